/**
 * The engine's GPU sampling on the tiny Qwen3 model (f16 weights), against the logits the same engine returns:
 * greedy `sample` gives the argmax of `step`'s logits (and the float64 reference's greedy ids), a tempered top-p
 * draw's log-probability equals log q(token) computed on the CPU from those logits, the uniform is the key's, and a
 * decode step that samples costs exactly one dispatch more than one that returns logits. Also reports the
 * dispatches per decoded token with q4 weights (the decode default).
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine, type SampleInput } from '../../gpu/engine/qwen-engine.ts';
import { roundToF16 } from '../../gpu/f16.ts';
import type { SamplingParams } from '../../gpu/kernels/sample.ts';
import { sampleUniform } from '../../gpu/kernels/sample-rng.ts';
import { createReferenceSession } from '../../model/reference/model.ts';
import { randomModelWeights, tinyModelConfig } from '../../model/tiny-model.ts';
import type { Tensor } from '../../model/weights.ts';
import { compare, type Comparison } from '../compare.ts';
import { referenceDistribution } from '../sample-ref.ts';

const LOGPROB_TOL = { abs: 1e-4, rel: 1e-5 };

function argmax(row: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

export async function checkEngineSample(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const config = tinyModelConfig();
  const V = config.vocabSize;
  const tensors = randomModelWeights(config, createRng(seed));
  const rng = createRng(seed + 17);
  const prompts = [6, 10].map((n) => Array.from({ length: n }, () => Math.floor(rng.next() * V)));
  const params: SamplingParams = { temperature: 0.8, topP: 0.9 };
  const results: Comparison[] = [];
  const engine = await QwenEngine.create(ctx, config, { batch: 2, context: 32, maxTokens: 32, weights: 'f16' });
  const rows = (logits: Float32Array) => prompts.map((_, b) => logits.subarray(b * V, (b + 1) * V));
  const resetAll = () => prompts.forEach((_, slot) => engine.reset(slot));
  try {
    engine.loadWeights(tensors);
    const prefill = prompts.map((ids, slot) => ({ slot, ids }));
    const keyed = (step: number, ids: number[][]): SampleInput[] => ids.map((x, slot) => ({ slot, ids: x, key: { seed, sequence: slot, step } }));

    // Greedy: prefill, then one decode step.
    const logits0 = await engine.step(prefill);
    const argmax0 = rows(logits0).map(argmax);
    const next = argmax0.map((t) => [t]);
    const logits1 = await engine.step(next.map((ids, slot) => ({ slot, ids })));
    const stepDispatches = engine.lastStepDispatches;
    resetAll();
    const greedy0 = await engine.sample(keyed(0, prompts), { temperature: 0 });
    const greedy1 = await engine.sample(keyed(1, [...greedy0.tokens].map((t) => [t])), { temperature: 0 });
    const sampleDispatches = engine.lastStepDispatches;
    const stored = new Map<string, Tensor>([...tensors].map(([n, t]) => [n, { shape: t.shape, data: t.shape.length === 2 ? roundToF16(t.data) : t.data }]));
    const refGreedy = prompts.map((ids) => argmax(createReferenceSession(config, stored, undefined, engine.plan.options.kvCache).prefill(ids)));
    const shape = `tiny qwen3 B=2 V=${V}`;
    results.push(
      compare('greedy sample == argmax(step logits), prefill', shape, greedy0.tokens, argmax0, { abs: 0, rel: 0 }),
      compare('greedy sample == reference greedy ids', shape, greedy0.tokens, refGreedy, { abs: 0, rel: 0 }),
      compare('greedy sample == argmax(step logits), decode', shape, greedy1.tokens, rows(logits1).map(argmax), { abs: 0, rel: 0 }),
      compare('dispatches: sampling decode step == logits step + 1', shape, [sampleDispatches], [stepDispatches + 1], { abs: 0, rel: 0 }),
    );

    // Tempered nucleus draw from the prefill, checked against the CPU distribution of step()'s logits.
    resetAll();
    const drawn = await engine.sample(keyed(5, prompts), params);
    const q = rows(logits0).map((row) => referenceDistribution(row, params));
    results.push(
      compare(`sampled log-prob == log q(token) (T=${params.temperature} top-p=${params.topP})`, shape, drawn.logprobs, q.map((d, b) => Math.log(d.q[drawn.tokens[b]])), LOGPROB_TOL),
      // The top-p cut is decided by f32 mass sums over V = 151936 tokens, each of a flat distribution's boundary
      // tokens holding ~1/kept of the mass: the count may differ from the float64 one by a token or so.
      compare('sampled kept count ≈ reference (±0.1%)', shape, drawn.kept, q.map((d) => d.kept), { abs: 1, rel: 1e-3 }),
      compare('sampled uniform == sampleUniform(key)', shape, drawn.uniforms, prompts.map((_, slot) => sampleUniform({ seed, sequence: slot, step: 5 })), { abs: 0, rel: 0 }),
    );
    note(`f16 tiny qwen3 L=${config.numLayers}: ${stepDispatches} dispatches per decode step returning logits, ${sampleDispatches} sampling on the GPU`);
    note(`tempered draw: tokens ${[...drawn.tokens].join(',')} log-probs ${[...drawn.logprobs].map((x) => x.toFixed(4)).join(',')} kept ${[...drawn.kept].join(',')}`);
  } finally {
    engine.destroy();
  }
  const q4 = await QwenEngine.create(ctx, config, { batch: 2, context: 32, maxTokens: 32 });
  try {
    q4.loadWeights(tensors);
    await q4.sample(prompts.map((ids, slot) => ({ slot, ids, key: { seed, sequence: slot, step: 0 } })), params);
    const d = await q4.sample(prompts.map((_, slot) => ({ slot, ids: [1], key: { seed, sequence: slot, step: 1 } })), params);
    note(`default engine weights: ${q4.plan.options.weights}; ${q4.lastStepDispatches} dispatches per sampled decode step; drew ${[...d.tokens].join(',')}`);
  } finally {
    q4.destroy();
  }
  return results;
}
