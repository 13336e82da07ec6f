/**
 * Whole-model checks of the engine on tiny random Qwen models (src/model/tiny-model.ts, real vocabulary V = 151936)
 * against the float64 reference model:
 * - qwen3 (q/k norms, tied embedding): three sequences of different lengths prefilled in ONE step (more tokens than
 *   the planned T, so it runs as two forwards), then greedy batched decode steps; every step's logits compared with
 *   a reference session per sequence, greedy ids compared, and batched decode compared bit for bit with the same
 *   sequence decoded alone;
 * - a rank-4 LoRA on every projection against the reference with the same adapter, and a B = 0 adapter that must
 *   give the base logits exactly;
 * - qwen2 (qkv bias, untied lm_head).
 * The reference gets the weights as the GPU stores them (matrices rounded to f16) and a KV cache of the engine's
 * format (f16-rounded for the default f16 cache; the LoRA run uses the f32 cache), so the tolerance measures the
 * engine's arithmetic (with the f16 cache, up to a few keys and values that round to the other f16 neighbour, see
 * KV_F16_TOL); the error against the unrounded f32 weights and an exact cache (f16 storage) is reported beside it.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine, type StepInput } from '../../gpu/engine/qwen-engine.ts';
import { roundToF16 } from '../../gpu/f16.ts';
import type { KvCacheFormat } from '../../gpu/kv-format.ts';
import type { ModelConfig } from '../../model/config.ts';
import { createLoraAdapter, loraScale, type LoraAdapter } from '../../model/lora.ts';
import { createReferenceSession, type ReferenceSession } from '../../model/reference/model.ts';
import { tinyModelConfig, randomModelWeights } from '../../model/tiny-model.ts';
import { PROJECTIONS, type Tensor } from '../../model/weights.ts';
import { compare, compareExact, type Comparison, type Tolerance } from '../compare.ts';

const TOL: Tolerance = { abs: 5e-5, rel: 1e-4 };
/**
 * With the f16 KV cache: a key or value that the GPU computes in f32 and the reference in f64 rounds to different f16
 * neighbours when it falls near a rounding midpoint (one f16 ulp, ≤ 2^-10 relative, apart); a few such flips over
 * the layers move the logits by ~5e-4 here. An unrounded reference cache is off by ~5e-3 and a wrong cache format or
 * layout by O(1) (the kernels themselves are checked exactly in checks/attention.ts).
 */
const KV_F16_TOL: Tolerance = { abs: 2e-3, rel: 0 };
/** f16 storage of the weights vs the f32 originals: what rounding the weights costs, with a loose bound. */
const STORAGE_TOL: Tolerance = { abs: 5e-2, rel: 5e-2 };

/** The weights as the engine stores them: matrices rounded to f16, vectors to f32. */
function asStored(tensors: Map<string, Tensor>): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  for (const [name, t] of tensors) out.set(name, { shape: t.shape, data: t.shape.length === 2 ? roundToF16(t.data) : Float64Array.from(t.data) });
  return out;
}

function argmax(row: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

function f32Adapter(adapter: LoraAdapter): LoraAdapter {
  for (const layer of adapter.layers) for (const pair of Object.values(layer)) for (const t of [pair.a, pair.b]) t.data = Float64Array.from(Float32Array.from(t.data));
  return adapter;
}

interface RunOptions {
  config: ModelConfig;
  label: string;
  prompts: number[][];
  decodeSteps: number;
  lora?: LoraAdapter;
  /** Also decode sequence `alone` by itself and require bitwise-equal logits. */
  alone?: number;
  /** The engine's KV cache format; default the plan's ('f16'). */
  kvCache?: KvCacheFormat;
}

async function run(ctx: GpuContext, seed: number, o: RunOptions, note: (text: string) => void): Promise<Comparison[]> {
  const { config, prompts } = o;
  const V = config.vocabSize;
  const tensors = randomModelWeights(config, createRng(seed));
  const stored = asStored(tensors);
  const B = prompts.length;
  const loraOption = o.lora ? { rank: o.lora.config.rank, targets: o.lora.config.targetModules } : null;
  const engine = await QwenEngine.create(ctx, config, { batch: B, context: 64, maxTokens: 32, lora: loraOption, weights: 'f16', kvCache: o.kvCache });
  const single = o.alone !== undefined ? await QwenEngine.create(ctx, config, { batch: 1, context: 64, maxTokens: 32, lora: loraOption, weights: 'f16', kvCache: o.kvCache }) : null;
  const results: Comparison[] = [];
  try {
    for (const e of [engine, single]) {
      e?.loadWeights(tensors);
      if (o.lora) e?.loadLora(o.lora.layers, loraScale(o.lora.config));
    }
    const refs: ReferenceSession[] = prompts.map(() => createReferenceSession(config, stored, o.lora, engine.plan.options.kvCache));
    const raw: ReferenceSession[] = prompts.map(() => createReferenceSession(config, tensors, o.lora));
    let inputs: StepInput[] = prompts.map((ids, slot) => ({ slot, ids }));
    const aloneRows: Float32Array[] = [];
    const batchRows: Float32Array[] = [];
    for (let step = 0; step <= o.decodeSteps; step++) {
      const logits = await engine.step(inputs);
      const name = step === 0 ? `prefill (${prompts.map((p) => p.length).join('+')} tokens)` : `decode step ${step}`;
      const ref = new Float64Array(B * V);
      const rawRef = new Float64Array(B * V);
      inputs.forEach((input, b) => {
        ref.set(step === 0 ? refs[b].prefill(input.ids) : refs[b].decode(input.ids[0]), b * V);
        rawRef.set(step === 0 ? raw[b].prefill(input.ids) : raw[b].decode(input.ids[0]), b * V);
      });
      const greedy = inputs.map((_, b) => argmax(logits.subarray(b * V, (b + 1) * V)));
      const refGreedy = inputs.map((_, b) => argmax(ref.subarray(b * V, (b + 1) * V)));
      const shape = `${o.label} B=${B} kv=${engine.plan.options.kvCache} ${name}`;
      results.push(compare('engine logits', shape, logits, ref, engine.plan.options.kvCache === 'f16' ? KV_F16_TOL : TOL));
      results.push(compare('engine logits vs unrounded f32 weights', shape, logits, rawRef, STORAGE_TOL));
      results.push(compare(`greedy ids (${greedy.join(',')})`, shape, greedy, refGreedy, { abs: 0, rel: 0 }));
      if (single && o.alone !== undefined) {
        const mine = inputs[o.alone];
        const alone = await single.step([{ slot: 0, ids: mine.ids }]);
        aloneRows.push(alone);
        batchRows.push(logits.slice(o.alone * V, (o.alone + 1) * V));
      }
      // Greedy continuation: each sequence appends its own argmax.
      inputs = inputs.map((input, b) => ({ slot: input.slot, ids: [argmax(logits.subarray(b * V, (b + 1) * V))] }));
    }
    if (single) {
      const a = new Float32Array(aloneRows.reduce((n, r) => n + r.length, 0));
      const b = new Float32Array(a.length);
      let off = 0;
      aloneRows.forEach((r, i) => {
        a.set(r, off);
        b.set(batchRows[i], off);
        off += r.length;
      });
      results.push(compareExact('batched decode == single-sequence decode', `${o.label} sequence ${o.alone}, ${aloneRows.length} steps`, b, a));
    }
    note(`${o.label} L=${config.numLayers}: ${engine.lastStepDispatches} dispatches per batched decode step`);
    return results;
  } finally {
    engine.destroy();
    single?.destroy();
  }
}

export async function checkEngine(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const qwen3 = tinyModelConfig();
  const rng = createRng(seed + 99);
  const prompt = (n: number) => Array.from({ length: n }, () => Math.floor(rng.next() * qwen3.vocabSize));
  return run(ctx, seed, { config: qwen3, label: 'qwen3', prompts: [prompt(5), prompt(11), prompt(20)], decodeSteps: 3, alone: 1 }, note);
}

export async function checkEngineLora(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const config = tinyModelConfig();
  const rng = createRng(seed + 7);
  const loraConfig = { rank: 4, alpha: 8, targetModules: [...PROJECTIONS] as ModelLoraTargets, dropout: 0, useRslora: false };
  const adapter = f32Adapter(createLoraAdapter(config, loraConfig, rng, (r) => (r.next() * 2 - 1) * 0.3));
  const prompts = [[1, 2, 3, 4, 5, 6, 7], [151643, 42]];
  const results = await run(ctx, seed, { config, label: 'qwen3+LoRA R=4', prompts, decodeSteps: 2, lora: adapter, kvCache: 'f32' }, note);

  // B = 0: the adapter must leave the base logits unchanged, bit for bit.
  const zero = f32Adapter(createLoraAdapter(config, loraConfig, rng));
  const tensors = randomModelWeights(config, createRng(seed));
  const engine = await QwenEngine.create(ctx, config, { batch: 1, context: 16, maxTokens: 16, lora: { rank: 4, targets: loraConfig.targetModules }, weights: 'f16' });
  try {
    engine.loadWeights(tensors);
    engine.loadLora(zero.layers, loraScale(loraConfig));
    engine.setLoraEnabled(false);
    const base = await engine.step([{ slot: 0, ids: prompts[0] }]);
    engine.reset(0);
    engine.setLoraEnabled(true);
    const withZero = await engine.step([{ slot: 0, ids: prompts[0] }]);
    results.push(compareExact('engine LoRA B=0 == base', `qwen3 R=4 T=${prompts[0].length}`, withZero, base));
  } finally {
    engine.destroy();
  }
  return results;
}

type ModelLoraTargets = LoraAdapter['config']['targetModules'];

export async function checkEngineQwen2(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const config = tinyModelConfig({ architecture: 'qwen2', tieWordEmbeddings: false, numLayers: 2, hiddenSize: 64, numHeads: 4, numKvHeads: 2 });
  return run(ctx, seed, { config, label: 'qwen2 untied', prompts: [[9, 8, 7, 6, 5, 4, 3, 2, 1], [100, 200, 300]], decodeSteps: 2 }, note);
}
