/**
 * GPU memory planned for the real models, from their configs alone (src/gpu/memory-plan.ts, no weights, no GPU):
 * base weights per storage format, the KV cache for a context and batch, the rest (activations of one forward and
 * the RoPE table) and the whole inference plan's total.
 */
import { formatBytes, planMemory } from '../../src/gpu/memory-plan.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B, type ModelConfig } from '../../src/model/config.ts';

const MODELS: Array<[string, ModelConfig]> = [
  ['Qwen3-0.6B', QWEN3_0_6B],
  ['Qwen2.5-0.5B-Instruct', QWEN2_5_0_5B_INSTRUCT],
];
const FORMATS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];

/** Lines of the memory table for `batch` sequences of `context` positions (default 128 MiB binding limit). */
export function memoryLines(batch: number, context: number): string[] {
  const lines = [`GPU memory planned (memory-plan.ts, configs only; B=${batch} S=${context}, KV cache f32, default 128 MiB binding):`];
  const w = (s: string, n: number) => s.padStart(n);
  lines.push(`  ${'model'.padEnd(22)} ${'quant'.padEnd(5)} ${w('weights', 11)} ${w('kv cache', 11)} ${w('act.+tables', 12)} ${w('total', 11)}  (bytes total)`);
  for (const [name, config] of MODELS) {
    for (const weights of FORMATS) {
      const plan = planMemory(config, { batch, context, weights });
      const k = plan.byKind;
      const rest = plan.totalBytes - k.weight - k['kv-cache'];
      lines.push(
        `  ${name.padEnd(22)} ${weights.padEnd(5)} ${w(formatBytes(k.weight), 11)} ${w(formatBytes(k['kv-cache']), 11)} ${w(formatBytes(rest), 12)} ${w(formatBytes(plan.totalBytes), 11)}  (${plan.totalBytes})`,
      );
    }
  }
  return lines;
}
