/**
 * The engine's logits for a seed, for comparing platforms rather than against the reference: the same tiny random
 * Qwen3 model (src/model/tiny-model.ts, f16 weights, V = 151936), the same two prompts, a batched prefill and two
 * greedy decode steps, run wherever it is called — in Node on Dawn (tests/gpu/engine-node-chromium.test.ts) and in
 * Chromium through the harness page (`gpuHarness.engineLogits`). Both should give the same bits: the same WGSL on
 * the same SwiftShader, with the inputs fixed by the seed.
 *
 * Logits cross `page.evaluate` as base64 of their f32 bytes (exact, and a quarter of a JSON number array's size).
 */
import { createRng } from '../data/rng.ts';
import type { GpuContext } from '../gpu/device.ts';
import { QwenEngine, type StepInput } from '../gpu/engine/qwen-engine.ts';
import { tinyModelConfig, randomModelWeights } from '../model/tiny-model.ts';

export const LOGITS_PROMPT_LENGTHS = [6, 13] as const;
export const LOGITS_DECODE_STEPS = 2;

export interface EngineLogits {
  seed: number;
  adapter: string;
  /** Rows of V logits: (steps, B, V) flattened, prefill first. */
  rows: number;
  vocab: number;
  /** The greedy id of every row, in row order. */
  greedy: number[];
  /** base64 of the (steps · B · V) f32 logits' bytes, little-endian as the GPU wrote them. */
  logits: string;
}

function argmax(row: Float32Array): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

/** Runs the seed's tiny model: prefill of both prompts in one step, then greedy decode; all logits, in order. */
export async function engineLogits(ctx: GpuContext, seed: number, adapter: string): Promise<EngineLogits> {
  const config = tinyModelConfig();
  const V = config.vocabSize;
  const rng = createRng(seed + 3);
  const prompts = LOGITS_PROMPT_LENGTHS.map((n) => Array.from({ length: n }, () => Math.floor(rng.next() * V)));
  const engine = await QwenEngine.create(ctx, config, { batch: prompts.length, context: 32, maxTokens: 32, lora: null, weights: 'f16' });
  try {
    engine.loadWeights(randomModelWeights(config, createRng(seed)));
    const rows: Float32Array[] = [];
    let inputs: StepInput[] = prompts.map((ids, slot) => ({ slot, ids }));
    for (let step = 0; step <= LOGITS_DECODE_STEPS; step++) {
      const logits = await engine.step(inputs);
      const batch = inputs.map((_, b) => logits.slice(b * V, (b + 1) * V));
      rows.push(...batch);
      inputs = inputs.map((input, b) => ({ slot: input.slot, ids: [argmax(batch[b])] }));
    }
    const all = new Float32Array(rows.length * V);
    rows.forEach((row, i) => all.set(row, i * V));
    return { seed, adapter, rows: rows.length, vocab: V, greedy: rows.map(argmax), logits: encodeF32(all) };
  } finally {
    engine.destroy();
  }
}

/** base64 of an f32 array's bytes (btoa exists in browsers and in Node ≥ 16). */
export function encodeF32(values: Float32Array): string {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The inverse of encodeF32. */
export function decodeF32(base64: string): Float32Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}
