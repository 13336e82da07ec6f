/**
 * Whole-model checks of the training pass (src/gpu/engine/qwen-trainer.ts) on tiny random Qwen models with the real
 * vocabulary (V = 151,936) and a rank-4 LoRA on every projection whose B is NON-zero (so every path of every branch
 * carries gradient), against the float64 reference model (src/model/reference):
 * - train-logprobs: log p(target) of the scored positions of three packed sequences of different lengths (LM head in
 *   chunks of 8 rows, so several chunks and partial runs), with the adapter and with `adapterEnabled: false` (the
 *   base model), vs `modelForward` + `tokenLogProbsRef`; Qwen3 (q/k norms, tied head) and Qwen2 (biases, untied);
 *   one sequence alone equals its rows of the packed batch; and a plan whose LM-head chunk exceeds one binding is a
 *   `GpuOutOfMemoryError` naming the chunk rows that fit.
 * - train-gradients: the adapter's gradients of loss = Σ c_t·logp_t (random c) accumulated over two micro-batches
 *   vs `modelBackward` summed over the sequences (Qwen3 and Qwen2); then, on Qwen3, central finite differences of the
 *   GPU loss itself (f32, so ε = 1e-2) on four adapter entries with the largest gradients (A and B of both layers)
 *   vs the GPU's analytic gradient.
 * - train-adamw-step: one clipped AdamW step and one unclipped second step vs the float64 reference
 *   (src/model/reference/optim.ts) from the same gradients; gradients zeroed after the step; and the engine's next
 *   `step` logits equal the reference model's with the updated adapter (and differ from before the step).
 * The reference gets the weights as the GPU stores them (matrices rounded to f16, the adapter rounded to f32) and a
 * KV cache of the engine's format (these checks plan an f32 cache, see `setup`), so the tolerances measure the
 * engine's f32 arithmetic.
 */
import { createRng, type Rng } from '../../data/rng.ts';
import { writeBuffer } from '../../gpu/buffers.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine } from '../../gpu/engine/qwen-engine.ts';
import { GpuOutOfMemoryError, GpuShapeError } from '../../gpu/errors.ts';
import { QwenTrainer, type LoraTensors, type TrainSequence } from '../../gpu/engine/qwen-trainer.ts';
import type { AdamWSettings } from '../../gpu/engine/train-ops.ts';
import { roundToF16 } from '../../gpu/f16.ts';
import { roundTripWeight, type WeightFormat } from '../../gpu/quant.ts';
import { projectionPrefix } from '../../model/weights.ts';
import { maxChunkBytes } from '../../gpu/split.ts';
import type { ModelConfig } from '../../model/config.ts';
import { createLoraAdapter, loraScale, type LoraAdapter, type LoraConfig } from '../../model/lora.ts';
import { modelBackward, zeroLoraGrads, type LoraGrads } from '../../model/reference/backward.ts';
import { createReferenceSession, emptyCache, modelForward, toReferenceLora, toReferenceWeights, type ReferenceLoraLayers, type ReferenceWeights } from '../../model/reference/model.ts';
import { tokenLogProbsBackwardRef, tokenLogProbsRef } from '../../model/reference/ops.ts';
import { adamwStepRef, type AdamTensorRef } from '../../model/reference/optim.ts';
import { randomModelWeights, tinyModelConfig } from '../../model/tiny-model.ts';
import { PROJECTIONS, type Projection, type Tensor } from '../../model/weights.ts';
import { compare, type Comparison, type Tolerance } from '../compare.ts';

/** Log-probs (values around −12): f32 logits and a f32 log-sum-exp over 151,936 entries. */
const LOGPROB_TOL: Tolerance = { abs: 2e-5, rel: 2e-6 };
/**
 * Gradients vs the f64 reference: f32 accumulation through two layers, the LM head's softmax over V and the
 * attention recompute; `abs` is relative to the largest gradient of the comparison (set per call), rel per element.
 */
const GRAD_ABS_OF_MAX = 2e-4;
const GRAD_REL = 2e-3;
/** Central differences of the f32 GPU loss: rounding noise of ~1e-5 in the loss over 2ε = 2e-2, plus O(ε²) truncation. */
const FD_EPS = 1e-2;
const FD_TOL: Tolerance = { abs: 2e-3, rel: 3e-3 };
/** AdamW on f32 master weights: the update is ~lr = 1e-2 per element; f32 m, v and sqrt. */
const ADAM_TOL: Tolerance = { abs: 2e-7, rel: 2e-6 };
const LOGITS_TOL: Tolerance = { abs: 5e-5, rel: 1e-4 };

const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: [...PROJECTIONS], dropout: 0, useRslora: false };

function qwen2Config(): ModelConfig {
  return tinyModelConfig({ architecture: 'qwen2', tieWordEmbeddings: false, numLayers: 2, hiddenSize: 64, numHeads: 4, numKvHeads: 2 });
}

/** The weights as the engine stores them: matrices rounded to f16 (or q8/q4 and decoded), vectors to f32. */
function asStored(tensors: Map<string, Tensor>, format: WeightFormat): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  const matrix = (t: Tensor) => (format === 'f16' ? roundToF16(t.data) : roundTripWeight(format, t.data, t.shape[0], t.shape[1]));
  for (const [name, t] of tensors) out.set(name, { shape: t.shape, data: t.shape.length === 2 ? matrix(t) : Float64Array.from(t.data) });
  return out;
}

/** A rank-4 adapter with non-zero B, rounded to f32 (what the GPU holds). */
function nonZeroAdapter(config: ModelConfig, rng: Rng): LoraAdapter {
  const adapter = createLoraAdapter(config, LORA, rng, (r) => (r.next() * 2 - 1) * 0.3);
  for (const layer of adapter.layers) for (const pair of Object.values(layer)) for (const t of [pair.a, pair.b]) t.data = Float64Array.from(Float32Array.from(t.data));
  return adapter;
}

/** Three sequences of 7, 13 and 20 tokens: every position scored, a suffix, and scattered positions (runs of 1–4). */
function sequences(config: ModelConfig, rng: Rng): TrainSequence[] {
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(rng.next() * config.vocabSize));
  return [
    { ids: ids(7), scored: [0, 1, 2, 3, 4, 5] },
    { ids: ids(13), scored: [3, 4, 5, 6, 7, 8, 9, 10, 11] },
    { ids: ids(20), scored: [0, 2, 3, 4, 9, 10, 15, 16, 17, 18] },
  ];
}

interface Setup {
  config: ModelConfig;
  engine: QwenEngine;
  trainer: QwenTrainer;
  weights: ReferenceWeights;
  adapter: LoraAdapter;
  lora: ReferenceLoraLayers;
  seqs: TrainSequence[];
  format: WeightFormat;
}

async function setup(ctx: GpuContext, seed: number, config: ModelConfig, format: WeightFormat = 'f16'): Promise<Setup> {
  const rng = createRng(seed * 7919 + 17);
  const tensors = randomModelWeights(config, createRng(seed));
  const adapter = nonZeroAdapter(config, rng);
  const engine = await QwenEngine.create(ctx, config, {
    batch: 3,
    context: 32,
    maxTokens: 48,
    weights: format,
    // An f32 KV cache: the tolerances measure arithmetic, and the finite differences need a loss without f16 rounding
    // steps (the f16 cache's kernels are checked in checks/backward-attention.ts, its training in train-learning).
    kvCache: 'f32',
    lora: { rank: LORA.rank, targets: LORA.targetModules },
    training: { logitChunkRows: 8 },
  });
  try {
    engine.loadWeights(tensors);
    engine.loadLora(adapter.layers, loraScale(LORA));
    const trainer = await QwenTrainer.create(engine);
    return { config, engine, trainer, weights: toReferenceWeights(config, asStored(tensors, format)), adapter, lora: toReferenceLora(adapter), seqs: sequences(config, rng), format };
  } catch (error) {
    engine.destroy();
    throw error;
  }
}

function teardown(s: Setup): void {
  s.trainer.destroy();
  s.engine.destroy();
}

function label(config: ModelConfig, format: WeightFormat = 'f16'): string {
  return `${config.architecture}${config.tieWordEmbeddings ? '' : ' untied'} L=${config.numLayers} C=${config.hiddenSize}${format === 'f16' ? '' : ` ${format}`}`;
}

/** Reference log-probs of every scored position, in the trainer's order. */
function referenceLogprobs(s: Setup, seqs: readonly TrainSequence[], lora: ReferenceLoraLayers | null): Float64Array {
  const V = s.config.vocabSize;
  const out: number[] = [];
  for (const seq of seqs) {
    const fwd = modelForward(s.config, s.weights, lora, emptyCache(s.config, s.engine.plan.options.kvCache), seq.ids);
    const lp = new Float64Array(1);
    for (const t of seq.scored) {
      tokenLogProbsRef(lp, fwd.logits.subarray(t * V, (t + 1) * V), [seq.ids[t + 1]], 1, V);
      out.push(lp[0]);
    }
  }
  return Float64Array.from(out);
}

/** Reference gradients of Σ c·logp over `seqs` (c in the trainer's order), summed over the sequences. */
function referenceGrads(s: Setup, seqs: readonly TrainSequence[], c: Float64Array): LoraGrads {
  const V = s.config.vocabSize;
  const grads = zeroLoraGrads(s.lora);
  let k = 0;
  for (const seq of seqs) {
    const T = seq.ids.length;
    const fwd = modelForward(s.config, s.weights, s.lora, emptyCache(s.config, s.engine.plan.options.kvCache), seq.ids);
    const dout = new Float64Array(T);
    const targets = new Array<number>(T).fill(0);
    for (const t of seq.scored) {
      dout[t] = c[k++];
      targets[t] = seq.ids[t + 1];
    }
    const dlogits = new Float64Array(T * V);
    tokenLogProbsBackwardRef(dlogits, dout, fwd.logits, targets, T, V);
    modelBackward(s.config, s.weights, s.lora, grads, fwd, dlogits);
  }
  return grads;
}

function flatten(tensors: LoraTensors, which: 'a' | 'b'): Float32Array {
  const parts = tensors.flatMap((layer) => PROJECTIONS.filter((p) => layer[p]).map((p) => layer[p]![which]));
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function flattenRef(grads: LoraGrads, which: 'da' | 'db'): Float64Array {
  const parts = grads.flatMap((layer) => PROJECTIONS.filter((p) => layer[p]).map((p) => layer[p]![which]));
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function maxAbs(values: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) m = Math.max(m, Math.abs(values[i]));
  return m;
}

function gradTol(ref: ArrayLike<number>): Tolerance {
  return { abs: GRAD_ABS_OF_MAX * maxAbs(ref), rel: GRAD_REL };
}

function randomWeights(rng: Rng, n: number): Float64Array {
  return Float64Array.from({ length: n }, () => rng.next() * 2 - 1);
}

function dot(c: ArrayLike<number>, lp: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < c.length; i++) s += c[i] * lp[i];
  return s;
}

/** A pass/fail comparison built by hand (a property rather than a difference). */
export function property(labelText: string, shape: string, pass: boolean, value: number): Comparison {
  return { label: labelText, shape, count: 1, maxAbs: value, maxRel: 0, worst: 0, tol: { abs: 0, rel: 0 }, pass };
}

// --- train-logprobs -------------------------------------------------------------------------------------------------

async function logprobsFor(ctx: GpuContext, seed: number, config: ModelConfig, note: (text: string) => void): Promise<Comparison[]> {
  const s = await setup(ctx, seed, config);
  try {
    const results: Comparison[] = [];
    const shape = `${label(config)} ${s.seqs.map((q) => `${q.ids.length}(${q.scored.length})`).join('+')} tokens(scored), chunks of 8`;
    const gpu = await s.trainer.forward({ sequences: s.seqs });
    note(`${label(config)}: ${s.trainer.lastDispatches.forward} dispatches per training forward (T = ${s.seqs.reduce((n, q) => n + q.ids.length, 0)})`);
    results.push(compare('trainer log-probs, adapter on', shape, gpu, referenceLogprobs(s, s.seqs, s.lora), LOGPROB_TOL));
    const base = await s.trainer.forward({ sequences: s.seqs }, { adapterEnabled: false });
    results.push(compare('trainer log-probs, adapterEnabled false', shape, base, referenceLogprobs(s, s.seqs, null), LOGPROB_TOL));
    // One sequence alone gives its rows of the packed batch (packing does not leak across slots).
    const alone = await s.trainer.forward({ sequences: [s.seqs[2]] });
    const offset = s.seqs[0].scored.length + s.seqs[1].scored.length;
    results.push(compare('sequence alone == its rows packed', `${label(config)} sequence 2`, alone, gpu.subarray(offset), { abs: 1e-5, rel: 1e-6 }));
    // Bad batches are refused before anything is recorded, each with a GpuShapeError.
    const [a, b] = [s.seqs[0].ids, s.seqs[1].ids];
    const bad: Array<[string, () => Promise<unknown>]> = [
      ['scored position without a next token', () => s.trainer.forward({ sequences: [{ ids: a, scored: [a.length - 1] }] })],
      ['scored positions not increasing', () => s.trainer.forward({ sequences: [{ ids: a, scored: [2, 1] }] })],
      ['more sequences than slots', () => s.trainer.forward({ sequences: [a, a, a, a].map((ids) => ({ ids, scored: [0] })) })],
      ['more tokens than T', () => s.trainer.forward({ sequences: [b, b, b, b].slice(0, 3).map((ids) => ({ ids: [...ids, ...ids], scored: [0] })) })],
      ['token id outside V', () => s.trainer.forward({ sequences: [{ ids: [1, config.vocabSize], scored: [0] }] })],
      ['d(logprob) of the wrong length', () => s.trainer.backward(new Float32Array(3))],
    ];
    for (const [what, run] of bad) {
      let thrown: unknown = null;
      await run().catch((error: unknown) => (thrown = error));
      results.push(property(`refused: ${what}`, label(config), thrown instanceof GpuShapeError, 0));
    }
    return results;
  } finally {
    teardown(s);
  }
}

/** A training plan whose LM-head chunk exceeds one binding fails with a GpuOutOfMemoryError naming rows that fit. */
async function oversizedPlan(ctx: GpuContext, config: ModelConfig, note: (text: string) => void): Promise<Comparison> {
  const rows = Math.floor(maxChunkBytes(ctx.limits) / (config.vocabSize * 4)) + 1;
  const what = 'training plan above one binding: GpuOutOfMemoryError with the chunk rows that fit';
  const shape = `${label(config)} logitChunkRows=${rows}`;
  try {
    const engine = await QwenEngine.create(ctx, config, { batch: 1, context: 8, maxTokens: 8, weights: 'f16', lora: { rank: 4, targets: ['q_proj'] }, training: { logitChunkRows: rows } });
    engine.destroy();
    return property(what, `${shape} (created)`, false, 0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    note(`oversized plan: ${message}`);
    return property(what, shape, error instanceof GpuOutOfMemoryError && new RegExp(`chunk rows from ${rows} to ${rows - 1}\\b`).test(message), 0);
  }
}

export async function checkTrainLogprobs(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  return [
    ...(await logprobsFor(ctx, seed, tinyModelConfig(), note)),
    ...(await logprobsFor(ctx, seed + 1, qwen2Config(), note)),
    await oversizedPlan(ctx, tinyModelConfig(), note),
  ];
}

// --- train-gradients ------------------------------------------------------------------------------------------------

interface Entry {
  layer: number;
  proj: Projection;
  which: 'a' | 'b';
  index: number;
}

/** The `count` entries with the largest |gradient|, at most one per (layer, projection, A/B). */
function largestEntries(grads: LoraTensors, count: number): Entry[] {
  const best: Array<Entry & { g: number }> = [];
  grads.forEach((layer, l) => {
    for (const p of PROJECTIONS) {
      const pair = layer[p];
      if (!pair) continue;
      for (const which of ['a', 'b'] as const) {
        const g = pair[which];
        let k = 0;
        for (let i = 1; i < g.length; i++) if (Math.abs(g[i]) > Math.abs(g[k])) k = i;
        best.push({ layer: l, proj: p, which, index: k, g: Math.abs(g[k]) });
      }
    }
  });
  best.sort((x, y) => y.g - x.g);
  // Spread over A and B and both layers: alternate from the sorted list.
  const picked: Entry[] = [];
  for (const want of [
    (e: Entry) => e.which === 'a' && e.layer === 0,
    (e: Entry) => e.which === 'b' && e.layer === 0,
    (e: Entry) => e.which === 'a' && e.layer > 0,
    (e: Entry) => e.which === 'b' && e.layer > 0,
  ]) {
    const e = best.find((x) => want(x) && !picked.includes(x));
    if (e) picked.push(e);
  }
  for (const e of best) if (picked.length < count && !picked.includes(e)) picked.push(e);
  return picked.slice(0, count).map(({ layer, proj, which, index }) => ({ layer, proj, which, index }));
}

async function gradientsFor(ctx: GpuContext, seed: number, config: ModelConfig, note: (text: string) => void, finiteDifferences: boolean, format: WeightFormat = 'f16'): Promise<Comparison[]> {
  const s = await setup(ctx, seed, config, format);
  try {
    const results: Comparison[] = [];
    const rng = createRng(seed * 31 + 5);
    const nScored = s.seqs.reduce((n, q) => n + q.scored.length, 0);
    const c = randomWeights(rng, nScored);
    // Two micro-batches accumulate: sequences 0 and 1, then sequence 2.
    const split = s.seqs[0].scored.length + s.seqs[1].scored.length;
    s.trainer.zeroGrads();
    const t0 = performance.now();
    await s.trainer.forward({ sequences: s.seqs.slice(0, 2) });
    const t1 = performance.now();
    // Between a forward and its backward, a base-model forward of another batch and a decode step may run (a KL
    // reference, a rollout): the backward recomputes from its own checkpoints and must not see them.
    await s.trainer.forward({ sequences: [s.seqs[2]] }, { adapterEnabled: false });
    await s.engine.step([{ slot: 2, ids: [1, 2, 3] }]);
    s.engine.reset(2);
    const t2 = performance.now();
    await s.trainer.backward(Float32Array.from(c.subarray(0, split)));
    const t3 = performance.now();
    await s.trainer.forward({ sequences: s.seqs.slice(2) });
    await s.trainer.backward(Float32Array.from(c.subarray(split)));
    note(`${label(config, format)}: forward ${(t1 - t0).toFixed(0)} ms, backward ${(t3 - t2).toFixed(0)} ms (T = 20, 15 scored rows)`);
    note(`${label(config, format)}: ${s.trainer.lastDispatches.backward} dispatches per training backward (T = ${s.seqs[2].ids.length}, ${s.seqs[2].scored.length} scored rows)`);
    const gpu = await s.trainer.readLoraGrads();
    const ref = referenceGrads(s, s.seqs, c);
    const shape = `${label(config, format)} R=4 all projections, 2 micro-batches`;
    const refA = flattenRef(ref, 'da');
    const refB = flattenRef(ref, 'db');
    results.push(compare('LoRA A gradients vs modelBackward', shape, flatten(gpu, 'a'), refA, gradTol(refA)));
    results.push(compare('LoRA B gradients vs modelBackward', shape, flatten(gpu, 'b'), refB, gradTol(refB)));
    // Per projection, so a path that is wrong alone is named.
    for (const p of PROJECTIONS) {
      const g = Float32Array.from(gpu.flatMap((layer) => [...layer[p]!.a, ...layer[p]!.b]));
      const r = Float64Array.from(ref.flatMap((layer) => [...layer[p]!.da, ...layer[p]!.db]));
      results.push(compare(`  ${p} (A and B, both layers)`, shape, g, r, gradTol(r)));
    }

    if (!finiteDifferences) return results;
    // Finite differences of the GPU loss on the entries with the largest gradients (A and B, both layers).
    const batch = { sequences: s.seqs };
    const loss = async () => dot(c, await s.trainer.forward(batch));
    const entries = largestEntries(gpu, 4);
    const fd: number[] = [];
    const analytic: number[] = [];
    for (const e of entries) {
      const name = `${projectionPrefix(e.layer, e.proj)}.lora_${e.which === 'a' ? 'A' : 'B'}`;
      const buffer = s.engine.memory.buffer(name);
      const original = s.adapter.layers[e.layer][e.proj]![e.which].data[e.index];
      writeBuffer(ctx, buffer, Float32Array.of(original + FD_EPS), e.index * 4);
      const plus = await loss();
      writeBuffer(ctx, buffer, Float32Array.of(original - FD_EPS), e.index * 4);
      const minus = await loss();
      writeBuffer(ctx, buffer, Float32Array.of(original), e.index * 4);
      fd.push((plus - minus) / (2 * FD_EPS));
      analytic.push(gpu[e.layer][e.proj]![e.which][e.index]);
    }
    const where = entries.map((e) => `${e.layer}.${e.proj}.${e.which.toUpperCase()}[${e.index}]`).join(' ');
    results.push(compare('GPU gradient vs finite differences of the GPU loss', `${label(config, format)} ε=${FD_EPS} ${where}`, analytic, fd, FD_TOL));
    return results;
  } finally {
    teardown(s);
  }
}

export async function checkTrainGradients(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  return [
    ...(await gradientsFor(ctx, seed, tinyModelConfig(), note, true)),
    ...(await gradientsFor(ctx, seed + 1, qwen2Config(), note, false)),
    // The engine decodes with q4 weights by default: the same gradients through the q4 matmul_dx (reference on the decoded weights).
    ...(await gradientsFor(ctx, seed + 2, tinyModelConfig(), note, false, 'q4')),
  ];
}

// --- train-adamw-step -----------------------------------------------------------------------------------------------

function adamRefTensors(lora: LoraTensors, grads: LoraTensors, state: Map<string, { m: Float64Array; v: Float64Array }>): Array<AdamTensorRef & { key: string }> {
  const out: Array<AdamTensorRef & { key: string }> = [];
  lora.forEach((layer, l) => {
    for (const p of PROJECTIONS) {
      for (const which of ['a', 'b'] as const) {
        const param = layer[p]?.[which];
        const grad = grads[l][p]?.[which];
        if (!param || !grad) continue;
        const key = `${l}.${p}.${which}`;
        const st = state.get(key) ?? { m: new Float64Array(param.length), v: new Float64Array(param.length) };
        state.set(key, st);
        out.push({ key, param: Float64Array.from(param), grad: Float64Array.from(grad), m: st.m, v: st.v });
      }
    }
  });
  return out;
}

function fromRef(tensors: Array<AdamTensorRef & { key: string }>, which: 'param' | 'grad'): Float64Array {
  const out = new Float64Array(tensors.reduce((n, t) => n + t[which].length, 0));
  let o = 0;
  for (const t of tensors) {
    out.set(t[which], o);
    o += t[which].length;
  }
  return out;
}

export async function checkTrainAdamwStep(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const s = await setup(ctx, seed, tinyModelConfig());
  try {
    const results: Comparison[] = [];
    const rng = createRng(seed * 13 + 3);
    const nScored = s.seqs.reduce((n, q) => n + q.scored.length, 0);
    const state = new Map<string, { m: Float64Array; v: Float64Array }>();
    const shape = `${label(s.config)} R=4, ${nScored} scored tokens`;
    for (const step of [1, 2]) {
      s.trainer.zeroGrads();
      await s.trainer.forward({ sequences: s.seqs });
      await s.trainer.backward(Float32Array.from(randomWeights(rng, nScored)));
      const [before, grads] = await Promise.all([s.trainer.readLora(), s.trainer.readLoraGrads()]);
      const ref = adamRefTensors(before, grads, state);
      const norm = Math.sqrt(fromRef(ref, 'grad').reduce((a, g) => a + g * g, 0));
      // Step 1 clips (max norm half the gradient's norm), step 2 does not; weight decay on both.
      const settings: AdamWSettings = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step, maxGradNorm: step === 1 ? norm / 2 : 0 };
      const { gradNorm } = await s.trainer.optimizerStep(settings);
      note(`step ${step}: ${s.trainer.lastDispatches.optimizer} optimizer dispatches, ‖g‖ = ${gradNorm.toExponential(4)}`);
      results.push(compare(`step ${step}: gradient norm`, shape, [gradNorm], [norm], { abs: 0, rel: 1e-5 }));
      adamwStepRef(ref, settings);
      const after = await s.trainer.readLora();
      const gpuParams = Float32Array.from([...flatten(after, 'a'), ...flatten(after, 'b')]);
      // flatten order is all A then all B; the reference list interleaves per tensor: reorder it the same way.
      const refA = ref.filter((t) => t.key.endsWith('.a'));
      const refB = ref.filter((t) => t.key.endsWith('.b'));
      const refParams = Float64Array.from([...fromRef(refA, 'param'), ...fromRef(refB, 'param')]);
      results.push(compare(`step ${step}: AdamW params vs reference (${step === 1 ? 'clipped' : 'not clipped'}, wd 0.1)`, shape, gpuParams, refParams, ADAM_TOL));
      const zeroed = await s.trainer.readLoraGrads();
      const left = maxAbs([...flatten(zeroed, 'a'), ...flatten(zeroed, 'b')]);
      results.push(property(`step ${step}: gradients zeroed by the step`, shape, left === 0, left));
    }

    let stale: unknown = null;
    await s.trainer.backward(new Float32Array(nScored)).catch((error: unknown) => (stale = error));
    results.push(property('backward after an optimizer step refused (its checkpoints used the old adapter)', shape, stale instanceof GpuShapeError, 0));

    // The engine's next step runs with the updated adapter.
    const prompt = s.seqs[1].ids;
    const updated = await s.trainer.readLora();
    const refLora: ReferenceLoraLayers = updated.map((layer) => {
      const out: ReferenceLoraLayers[number] = {};
      for (const p of PROJECTIONS) {
        const pair = layer[p];
        if (pair) out[p] = { a: Float64Array.from(pair.a), b: Float64Array.from(pair.b), scale: loraScale(LORA), rank: LORA.rank };
      }
      return out;
    });
    s.engine.reset(0);
    const logits = await s.engine.step([{ slot: 0, ids: prompt }]);
    const want = createReferenceSession(s.config, s.weights, refLora, s.engine.plan.options.kvCache).prefill(prompt);
    const wasBefore = createReferenceSession(s.config, s.weights, s.lora, s.engine.plan.options.kvCache).prefill(prompt);
    results.push(compare('engine.step logits after the step vs reference with the updated adapter', `${label(s.config)} T=${prompt.length}`, logits, want, LOGITS_TOL));
    let moved = 0;
    for (let i = 0; i < logits.length; i++) moved = Math.max(moved, Math.abs(logits[i] - wasBefore[i]));
    results.push(property('engine.step logits moved by the update (max |Δ| > 1e-3)', `${label(s.config)} T=${prompt.length}`, moved > 1e-3, moved));
    return results;
  } finally {
    teardown(s);
  }
}
