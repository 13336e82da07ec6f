/**
 * The memory plan: ONE table of every GPU buffer the engine uses — weights, LoRA adapters, activations, KV cache,
 * tables, and (for training) checkpoints, gradients and optimiser state — each with its shape, dtype and bytes, and
 * for weights too large for one binding, its row chunks. `allocatePlan` (allocate.ts) creates exactly these buffers;
 * a tensor whose shape differs from the plan is an error there, never a silent reallocation. Pure TS, no WebGPU: the
 * same table answers "how much GPU memory would Qwen3-0.6B need" in Node, from its config alone.
 *
 * Dimension letters (used on every buffer of src/gpu): B sequence slots (batch), S context length per slot, T tokens
 * per forward (a prefill chunk, or B for one decode step), C hidden, I MLP width, V vocabulary, L layers, H query
 * heads, KVH key/value heads, D head size, R LoRA rank, P RoPE table positions (= S).
 *
 * Storage: matrices of the base model are packed in the plan's weight format (quant.ts): 'f16x2' (2 bytes per
 * element, words of two halves; the default and the reference), 'q8g32' (1 byte per element + one f32 scale per 32:
 * 1.125 bytes), 'q4g32' (0.625 bytes) or 'q4mg32' (0.625 bytes; the embedding and LM head then 'q8g32', quant.ts
 * `tableFormat`); everything else f32 (norm weights, biases, adapters and their gradients,
 * activations) or u32 (token ids, positions, sampler keys and results); the KV cache in the plan's `kvCache` format
 * (kv-format.ts: dtype 'f16', two halves per u32 word, by default; or 'f32').
 */
import { GpuError, GpuShapeError } from './errors.ts';
import { DEFAULT_KV_CACHE, type KvCacheFormat } from './kv-format.ts';
import { checkWeightShape, tableFormat, weightBytes, type WeightFormat } from './quant.ts';
import { splitRows, type RowChunk } from './split.ts';
// The model's dimensions, projection names and shapes are src/model's, spelled once (config.ts, weights.ts: files
// that import nothing at run time, so the plan stays a leaf).
import type { ModelConfig } from '../model/config.ts';
import { PROJECTIONS, projectionPrefix, projectionShape, type Projection } from '../model/weights.ts';

/** The model dimensions the plan needs (a `ModelConfig` is one). */
export type PlanDims = Pick<ModelConfig, 'vocabSize' | 'hiddenSize' | 'intermediateSize' | 'numLayers' | 'numHeads' | 'numKvHeads' | 'headDim' | 'tieWordEmbeddings' | 'qkvBias' | 'qkNorm'>;

export interface PlanOptions {
  /** B: sequence slots of the KV cache (sequences decoded together). */
  batch: number;
  /** S: positions per slot (prompt + generation). */
  context: number;
  /** T: most tokens in one forward (prefill chunk); at least B. Default max(B, min(S, 512)). */
  maxTokens?: number;
  /** Rows of logits computed per forward (the last token of each sequence when sampling). Default B. */
  logitRows?: number;
  lora?: { rank: number; targets: readonly Projection[] } | null;
  /** Largest bytes per binding/buffer for splitting weights. Default 128 MiB (WebGPU's default binding limit). */
  maxBindingBytes?: number;
  /** Storage of the base model's matrices (embedding, projections, lm_head). Default 'f16' (the reference). */
  weights?: WeightFormat;
  /** Storage of the KV cache (kv-format.ts). Default 'f16' (half the bytes of 'f32'). */
  kvCache?: KvCacheFormat;
  /** Training buffers (issue 5): per-layer checkpoints, activation gradients, adapter gradients and AdamW state. */
  training?: { logitChunkRows: number } | null;
}

export type TensorKind = 'weight' | 'adapter' | 'activation' | 'kv-cache' | 'table' | 'checkpoint' | 'gradient' | 'optimizer';
/** 'f16': plain f16 values two per u32 word (the KV cache), unlike 'f16x2', a packed weight matrix. */
export type TensorDType = 'f16x2' | 'q8g32' | 'q4g32' | 'q4mg32' | 'f16' | 'f32' | 'u32';

/** The dtype of a matrix stored in `format`, and back. */
export const MATRIX_DTYPE: Record<WeightFormat, TensorDType> = { f16: 'f16x2', q8: 'q8g32', q4: 'q4g32', q4m: 'q4mg32' };
export function matrixFormat(dtype: TensorDType): WeightFormat | null {
  return (Object.keys(MATRIX_DTYPE) as WeightFormat[]).find((f) => MATRIX_DTYPE[f] === dtype) ?? null;
}

export interface PlanEntry {
  /** Unique name; weights use their Hugging Face tensor name. */
  name: string;
  kind: TensorKind;
  dtype: TensorDType;
  /** Logical shape in elements (a packed f16 matrix keeps its (rows, cols) shape). */
  shape: number[];
  bytes: number;
  /** Row chunks, each its own buffer, when the tensor is larger than one binding; null otherwise. */
  chunks: RowChunk[] | null;
  layer: number | null;
}

export interface MemoryPlan {
  dims: PlanDims;
  options: Required<Omit<PlanOptions, 'lora' | 'training'>> & Pick<PlanOptions, 'lora' | 'training'>;
  entries: PlanEntry[];
  byKind: Record<TensorKind, number>;
  totalBytes: number;
  /** The largest single buffer (after splitting): what `maxBufferSize` and the binding limit must cover. */
  largestBufferBytes: number;
}

const DEFAULT_MAX_BINDING = 128 * 1024 * 1024;

const BYTES: Record<'f16' | 'f32' | 'u32', number> = { f16: 2, f32: 4, u32: 4 };

export function planMemory(dims: PlanDims, options: PlanOptions): MemoryPlan {
  const { vocabSize: V, hiddenSize: C, intermediateSize: I, numLayers: L, numHeads: H, numKvHeads: KVH, headDim: D } = dims;
  const B = options.batch;
  const S = options.context;
  const T = options.maxTokens ?? Math.max(B, Math.min(S, 512));
  const logitRows = options.logitRows ?? B;
  const maxBindingBytes = options.maxBindingBytes ?? DEFAULT_MAX_BINDING;
  const lora = options.lora ?? null;
  const training = options.training ?? null;
  const format = options.weights ?? 'f16';
  const kvCache = options.kvCache ?? DEFAULT_KV_CACHE;
  const matrix = MATRIX_DTYPE[format];
  const table = MATRIX_DTYPE[tableFormat(format)];
  const R = lora?.rank ?? 0;
  const positive = { B, S, T, logitRows, L, C, I, V, H, KVH, D, ...(lora ? { R } : {}) };
  for (const [name, value] of Object.entries(positive)) {
    if (!Number.isInteger(value) || value <= 0) throw new GpuShapeError('planMemory', `${name} = ${value} must be a positive integer`);
  }
  if (T < B) throw new GpuShapeError('planMemory', `tokens per forward T = ${T} must be at least the batch B = ${B} (one decode step is B tokens)`);
  if (logitRows > T) throw new GpuShapeError('planMemory', `logit rows ${logitRows} exceed the tokens per forward T = ${T}`);
  if (D % 2 !== 0 || C % 2 !== 0 || I % 2 !== 0 || (H * D) % 2 !== 0) throw new GpuShapeError('planMemory', `C = ${C}, I = ${I} and D = ${D} must be even (f16 pairs, RoPE halves)`);
  for (const K of [C, H * D, I]) checkWeightShape(format, 1, K, `planMemory (${format} weights)`);
  if (H % KVH !== 0) throw new GpuShapeError('planMemory', `H = ${H} must be a multiple of KVH = ${KVH}`);
  const entries: PlanEntry[] = [];

  const add = (name: string, kind: TensorKind, dtype: TensorDType, shape: number[], layer: number | null = null) => {
    const elements = shape.reduce((a, b) => a * b, 1);
    const packed = matrixFormat(dtype);
    const bytes = packed ? weightBytes(packed, shape[0], shape[1]) : elements * BYTES[dtype as 'f16' | 'f32' | 'u32'];
    let chunks: RowChunk[] | null = null;
    // Only base-model matrices are split (the kernels that read them dispatch per chunk); anything else must fit
    // one binding, which allocatePlan checks against the device.
    if (bytes > maxBindingBytes && packed) chunks = splitRows(shape[0], bytes / shape[0], maxBindingBytes, name);
    entries.push({ name, kind, dtype, shape, bytes, chunks, layer });
  };

  // Weights.
  add('model.embed_tokens.weight', 'weight', table, [V, C]);
  for (let l = 0; l < L; l++) {
    add(`model.layers.${l}.input_layernorm.weight`, 'weight', 'f32', [C], l);
    for (const p of PROJECTIONS) {
      add(`${projectionPrefix(l, p)}.weight`, 'weight', matrix, projectionShape(dims, p), l);
      if (dims.qkvBias && (p === 'q_proj' || p === 'k_proj' || p === 'v_proj')) add(`${projectionPrefix(l, p)}.bias`, 'weight', 'f32', [projectionShape(dims, p)[0]], l);
    }
    if (dims.qkNorm) {
      add(`model.layers.${l}.self_attn.q_norm.weight`, 'weight', 'f32', [D], l);
      add(`model.layers.${l}.self_attn.k_norm.weight`, 'weight', 'f32', [D], l);
    }
    add(`model.layers.${l}.post_attention_layernorm.weight`, 'weight', 'f32', [C], l);
  }
  add('model.norm.weight', 'weight', 'f32', [C]);
  if (!dims.tieWordEmbeddings) add('lm_head.weight', 'weight', table, [V, C]);

  // LoRA adapters (f32 master copies): A (R, in), B (out, R).
  if (lora) {
    for (let l = 0; l < L; l++) {
      for (const p of lora.targets) {
        const [out, inp] = projectionShape(dims, p);
        add(`${projectionPrefix(l, p)}.lora_A`, 'adapter', 'f32', [R, inp], l);
        add(`${projectionPrefix(l, p)}.lora_B`, 'adapter', 'f32', [out, R], l);
      }
    }
  }

  // Tables.
  add('rope.table', 'table', 'f32', [S, D / 2, 2]);

  // KV cache: per layer, keys (after RoPE) and values of every slot and position, in the plan's kvCache format.
  for (let l = 0; l < L; l++) {
    add(`kv.${l}.k`, 'kv-cache', kvCache, [B, S, KVH, D], l);
    add(`kv.${l}.v`, 'kv-cache', kvCache, [B, S, KVH, D], l);
  }

  // Activations of one forward of T tokens, reused by every layer.
  const acts: Array<[string, TensorDType, number[]]> = [
    ['act.ids', 'u32', [T]],
    ['act.positions', 'u32', [T]],
    ['act.slots', 'u32', [T]],
    ['act.x', 'f32', [T, C]],
    ['act.xn', 'f32', [T, C]],
    ['act.q', 'f32', [T, H * D]],
    ['act.k', 'f32', [T, KVH * D]],
    ['act.v', 'f32', [T, KVH * D]],
    ...(dims.qkNorm
      ? ([
          ['act.qRaw', 'f32', [T, H * D]],
          ['act.kRaw', 'f32', [T, KVH * D]],
        ] as Array<[string, TensorDType, number[]]>)
      : []),
    ['act.attn', 'f32', [T, H * D]],
    ['act.lse', 'f32', [T, H]],
    ['act.proj', 'f32', [T, C]],
    ['act.gate', 'f32', [T, I]],
    ['act.up', 'f32', [T, I]],
    ['act.mlp', 'f32', [T, I]],
    ...(lora ? ([['act.loraU', 'f32', [T, R]]] as Array<[string, TensorDType, number[]]>) : []),
    ['act.lastHidden', 'f32', [logitRows, C]],
    ['act.logits', 'f32', [logitRows, V]],
    // The GPU sampler (kernels/sample.ts): per logit row its key (seed, sequence, step, 0) and its result
    // (token, log-prob bits, uniform bits, kept-token count), read back instead of the logits.
    ['act.sampleKeys', 'u32', [logitRows, 4]],
    ['act.sampled', 'u32', [logitRows, 4]],
  ];
  for (const [name, dtype, shape] of acts) add(name, 'activation', dtype, shape);

  // Training (issue 5): layer inputs kept for per-layer recomputation, gradients of one layer's activations, the
  // adapter's gradients and AdamW moments, and the LM head's logits in chunks of rows (never T × V at once).
  if (training) {
    for (let l = 0; l < L; l++) add(`train.checkpoint.${l}`, 'checkpoint', 'f32', [T, C], l);
    for (const [name, dtype, shape] of acts) {
      if (dtype === 'f32' && !['act.lastHidden', 'act.logits', 'act.lse'].includes(name)) add(name.replace('act.', 'grad.'), 'gradient', 'f32', shape);
    }
    // The backward of a LoRA projection needs its u = x·Aᵀ: one (T, R) buffer per target, kept through the layer.
    if (lora) for (const p of lora.targets) add(`act.loraU.${p}`, 'activation', 'f32', [T, R]);
    add('train.logitChunk', 'activation', 'f32', [training.logitChunkRows, V]);
    add('train.tokenLogprobs', 'activation', 'f32', [T]);
    if (lora) {
      for (const e of entries.filter((x) => x.kind === 'adapter')) {
        add(`grad.${e.name}`, 'gradient', 'f32', e.shape, e.layer);
        add(`adam.m.${e.name}`, 'optimizer', 'f32', e.shape, e.layer);
        add(`adam.v.${e.name}`, 'optimizer', 'f32', e.shape, e.layer);
      }
    }
  }

  const byKind: Record<TensorKind, number> = { weight: 0, adapter: 0, activation: 0, 'kv-cache': 0, table: 0, checkpoint: 0, gradient: 0, optimizer: 0 };
  let largest = 0;
  for (const e of entries) {
    byKind[e.kind] += e.bytes;
    largest = Math.max(largest, ...(e.chunks ? e.chunks.map((c) => c.bytes) : [e.bytes]));
  }
  return {
    dims,
    options: { batch: B, context: S, maxTokens: T, logitRows, maxBindingBytes, weights: format, kvCache, lora, training },
    entries,
    byKind,
    totalBytes: entries.reduce((a, e) => a + e.bytes, 0),
    largestBufferBytes: largest,
  };
}

/** A plan (or another allocation sized from untrusted files) larger than the budget it must fit: refused before any buffer exists. */
export class MemoryBudgetError extends GpuError {
  constructor(
    readonly what: string,
    readonly neededBytes: number,
    readonly budgetBytes: number,
    hint: string,
  ) {
    super(`${what} needs ${formatBytes(neededBytes)}, more than the budget of ${formatBytes(budgetBytes)}. ${hint}`);
    this.name = 'MemoryBudgetError';
  }
}

/**
 * Throws MemoryBudgetError unless the whole plan fits `budgetBytes`: call it after planMemory and before
 * allocatePlan, or before decoding weights sized from a config, so a config that is plausible field by field but
 * too large as a whole (or a damaged one) is refused with a message instead of running the page out of memory.
 * `what` names the model (e.g. its config file) in the message.
 */
export function checkPlanFits(plan: MemoryPlan, budgetBytes: number, what = 'The model'): void {
  if (!(plan.totalBytes <= budgetBytes)) {
    const { numLayers: L, hiddenSize: C, vocabSize: V } = plan.dims;
    throw new MemoryBudgetError(
      `${what} (L=${L}, C=${C}, V=${V}; weights ${formatBytes(plan.byKind.weight)}, B=${plan.options.batch}, S=${plan.options.context})`,
      plan.totalBytes,
      budgetBytes,
      'Pick a smaller model, a shorter context or quantised weights, or check that config.json belongs to this checkpoint.',
    );
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
