/**
 * An adapter saved as PEFT files and loaded back gives identical logits (issue 5, "done means"), on a tiny random
 * Qwen3 with the real vocabulary (V = 151,936) and a rank-4 LoRA on every projection with non-zero B:
 * 1. a training engine takes one clipped AdamW step with QwenTrainer, so the adapter is the GPU's own f32 masters;
 * 2. `readLora` → `loraAdapterFromArrays` → `writePeftAdapter` (F32) → `readPeftAdapter`;
 * 3. a FRESH inference engine (no training buffers) loads the base weights and the read adapter;
 * 4. its prefill and decode logits equal the training engine's bit for bit (compareExact).
 * Then the same adapter saved as F16 and as BF16: the logit difference from the F32 file is reported (and held to a
 * bound from the rounding), and each engine's logits are compared with the float64 reference model given the same
 * half-precision-read adapter, so the difference is shown to be the storage rounding alone.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine, type StepInput } from '../../gpu/engine/qwen-engine.ts';
import { QwenTrainer } from '../../gpu/engine/qwen-trainer.ts';
import { roundToF16 } from '../../gpu/f16.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, loraAdapterFromArrays, readPeftAdapter, writePeftAdapter } from '../../model/adapter-file.ts';
import { createLoraAdapter, loraScale, type LoraAdapter, type LoraConfig } from '../../model/lora.ts';
import { createReferenceSession, toReferenceLora, toReferenceWeights } from '../../model/reference/model.ts';
import type { SafetensorsDtype } from '../../model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../model/tiny-model.ts';
import { PROJECTIONS, type Tensor } from '../../model/weights.ts';
import { compare, compareExact, type Comparison, type Tolerance } from '../compare.ts';

const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: [...PROJECTIONS], dropout: 0, useRslora: false };
/** Engine vs float64 reference (as engine.ts and train-engine.ts hold it). */
const LOGITS_TOL: Tolerance = { abs: 5e-5, rel: 1e-4 };
/**
 * A half-precision file vs the F32 one: each adapter value moves by at most half an ulp (relative 2^-11 for F16,
 * 2^-8 for BF16), so the logits move by about that fraction of the adapter's whole effect on them (measured: ≈ 0.5×);
 * held to 2× it. The difference itself is reported.
 */
const HALF_ULP: Record<'F16' | 'BF16', number> = { F16: 2 ** -11, BF16: 2 ** -8 };

/** The logits of a 9-token prefill and of one decode step after it, one after the other. */
async function logitsOf(engine: QwenEngine, prompt: readonly number[], next: number): Promise<Float32Array> {
  engine.reset(0);
  const steps: StepInput[][] = [[{ slot: 0, ids: prompt }], [{ slot: 0, ids: [next] }]];
  const V = engine.model.vocabSize;
  const out = new Float32Array(steps.length * V);
  for (let s = 0; s < steps.length; s++) out.set(await engine.step(steps[s]), s * V);
  return out;
}

function readBack(adapter: LoraAdapter, dtype: SafetensorsDtype): LoraAdapter {
  const config = tinyModelConfig();
  const files = writePeftAdapter(adapter, { modelId: 'tiny/qwen3', config }, { dtype });
  return readPeftAdapter({ safetensors: files[ADAPTER_WEIGHTS_FILE], configJson: files[ADAPTER_CONFIG_FILE] }, config);
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function property(label: string, shape: string, pass: boolean, value: number): Comparison {
  return { label, shape, count: 1, maxAbs: value, maxRel: 0, worst: 0, tol: { abs: 0, rel: 0 }, pass };
}

export async function checkAdapterRoundtrip(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const config = tinyModelConfig();
  const V = config.vocabSize;
  const tensors = randomModelWeights(config, createRng(seed));
  const rng = createRng(seed * 7919 + 17);
  const initial = createLoraAdapter(config, LORA, rng, (r) => (r.next() * 2 - 1) * 0.3);
  const ids = Array.from({ length: 12 }, () => Math.floor(rng.next() * V));
  const prompt = ids.slice(0, 9);
  const next = ids[9];
  // An f32 KV cache, so the comparisons with the reference measure the adapter's path (engine.ts checks the f16 cache).
  const plan = { batch: 1, context: 32, maxTokens: 16, weights: 'f16' as const, kvCache: 'f32' as const, lora: { rank: LORA.rank, targets: LORA.targetModules } };
  const shape = `qwen3 L=${config.numLayers} C=${config.hiddenSize} V=${V} R=${LORA.rank} all projections, prefill ${prompt.length} + 1 decode`;
  const results: Comparison[] = [];

  // 1. One AdamW step on the GPU, then the training engine's logits with its own adapter.
  const trainEngine = await QwenEngine.create(ctx, config, { ...plan, training: { logitChunkRows: 8 } });
  let trained: LoraAdapter;
  let before: Float32Array;
  try {
    trainEngine.loadWeights(tensors);
    trainEngine.loadLora(initial.layers, loraScale(LORA));
    const trainer = await QwenTrainer.create(trainEngine);
    try {
      await trainer.forward({ sequences: [{ ids, scored: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }] });
      await trainer.backward(Float32Array.from({ length: 11 }, () => rng.next() * 2 - 1));
      const { gradNorm } = await trainer.optimizerStep({ lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1, maxGradNorm: 1 });
      note(`one AdamW step (lr 1e-2, clip 1): ‖g‖ = ${gradNorm.toExponential(3)}`);
      trained = loraAdapterFromArrays(config, LORA, await trainer.readLora());
    } finally {
      trainer.destroy();
    }
    before = await logitsOf(trainEngine, prompt, next);
  } finally {
    trainEngine.destroy();
  }
  const moved = maxAbsDiff(trained.layers[0].q_proj!.b.data, Float32Array.from(initial.layers[0].q_proj!.b.data));
  results.push(property('the step changed the adapter (max |ΔB| of layer 0 q_proj > 0)', shape, moved > 0, moved));

  // 2–4. F32 PEFT files → a fresh inference engine: bit-identical logits; then F16 and BF16 files.
  const fresh = await QwenEngine.create(ctx, config, plan);
  try {
    fresh.loadWeights(tensors);
    const f32 = readBack(trained, 'F32');
    fresh.loadLora(f32.layers, loraScale(f32.config));
    const after = await logitsOf(fresh, prompt, next);
    results.push(compareExact('fresh engine, adapter from F32 PEFT files == training engine (bitwise)', shape, after, before));
    fresh.setLoraEnabled(false);
    const base = await logitsOf(fresh, prompt, next);
    const effect = maxAbsDiff(before, base);
    results.push(property('the adapter matters: logits differ from the base model (max |Δ| > 1e-3)', shape, effect > 1e-3, effect));
    note(`adapter effect on the logits: max |Δ| = ${effect.toExponential(3)}`);

    const stored = new Map<string, Tensor>([...tensors].map(([n, t]) => [n, t.shape.length === 2 ? { shape: t.shape, data: roundToF16(t.data) } : t]));
    const weights = toReferenceWeights(config, stored);
    for (const dtype of ['F16', 'BF16'] as const) {
      const half = readBack(trained, dtype);
      fresh.loadLora(half.layers, loraScale(half.config));
      const logits = await logitsOf(fresh, prompt, next);
      const c = compare(`${dtype} PEFT files vs F32 files (≤ 2·ulp/2·adapter effect)`, shape, logits, before, { abs: 2 * HALF_ULP[dtype] * effect, rel: 0 });
      results.push(c, property(`${dtype} rounding is visible in the logits (max |Δ| > 0)`, shape, c.maxAbs > 0, c.maxAbs));
      note(`${dtype} adapter file: logits max |Δ| vs F32 file = ${c.maxAbs.toExponential(3)} (${(c.maxAbs / (HALF_ULP[dtype] * effect)).toFixed(2)}× ulp/2 × effect), max rel = ${c.maxRel.toExponential(3)}`);
      const session = createReferenceSession(config, weights, toReferenceLora(half), fresh.plan.options.kvCache);
      const want = new Float64Array(2 * V);
      want.set(session.prefill(prompt), 0);
      want.set(session.decode(next), V);
      results.push(compare(`${dtype}-file engine vs float64 reference with the same ${dtype}-read adapter`, shape, logits, want, LOGITS_TOL));
    }
  } finally {
    fresh.destroy();
  }
  return results;
}
