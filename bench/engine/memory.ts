/**
 * GPU memory planned for the real models, from their configs alone (src/gpu/memory-plan.ts, no weights, no GPU):
 * base weights per storage format, the KV cache for a context and batch in each cache format (kv-format.ts: f16, the
 * default, and f32), the rest (activations of one forward and the RoPE table) and the whole inference plan's total;
 * then the GRPO training plan (LoRA as the default training config, G = batch episodes of `context` tokens, one
 * forward of T = context tokens, LM head in chunks of 64 rows) with either cache.
 */
import { formatBytes, planMemory, type PlanOptions } from '../../src/gpu/memory-plan.ts';
import { KV_CACHE_FORMATS } from '../../src/gpu/kv-format.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B, type ModelConfig } from '../../src/model/config.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';

const MODELS: Array<[string, ModelConfig]> = [
  ['Qwen3-0.6B', QWEN3_0_6B],
  ['Qwen2.5-0.5B-Instruct', QWEN2_5_0_5B_INSTRUCT],
];
const FORMATS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];
const TRAIN_FORMATS: readonly WeightFormat[] = ['f16', 'q4'];

/** Lines of the memory tables for `batch` sequences of `context` positions (default 128 MiB binding limit). */
export function memoryLines(batch: number, context: number): string[] {
  const w = (s: string, n: number) => s.padStart(n);
  const row = (name: string, weights: WeightFormat, options: PlanOptions) => {
    const plan = planMemory(MODELS.find(([n]) => n === name)![1], options);
    const k = plan.byKind;
    const rest = plan.totalBytes - k.weight - k['kv-cache'];
    return `  ${name.padEnd(22)} ${weights.padEnd(5)} ${plan.options.kvCache.padEnd(4)} ${w(formatBytes(k.weight), 11)} ${w(formatBytes(k['kv-cache']), 11)} ${w(formatBytes(rest), 12)} ${w(formatBytes(plan.totalBytes), 11)}  (${plan.totalBytes})`;
  };
  const header = `  ${'model'.padEnd(22)} ${'quant'.padEnd(5)} ${'kv'.padEnd(4)} ${w('weights', 11)} ${w('kv cache', 11)} ${w('rest', 12)} ${w('total', 11)}  (bytes total)`;
  const lines = [`GPU memory planned for decoding (memory-plan.ts, configs only; B=${batch} S=${context}, default 128 MiB binding; rest = activations + tables):`, header];
  for (const [name] of MODELS) {
    for (const weights of FORMATS) for (const kvCache of KV_CACHE_FORMATS) lines.push(row(name, weights, { batch, context, weights, kvCache }));
  }
  const c = DEFAULT_TRAIN_CONFIG;
  const lora = { rank: c.loraRank, targets: c.loraTargets };
  lines.push(`GPU memory planned for GRPO training (G=${batch} episodes × S=${context}, T=${context} tokens per forward, LoRA r=${lora.rank} on ${lora.targets.length} projections; rest = adapters, activations, checkpoints, gradients, AdamW, tables):`, header);
  for (const [name] of MODELS) {
    for (const weights of TRAIN_FORMATS) {
      for (const kvCache of KV_CACHE_FORMATS) lines.push(row(name, weights, { batch, context, maxTokens: context, weights, kvCache, lora, training: { logitChunkRows: 64 } }));
    }
  }
  return lines;
}
