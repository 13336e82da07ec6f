/**
 * A Qwen2/Qwen3 causal LM as one ONNX graph (opset 17, standard ops only, f32), in the layout transformers.js loads
 * for a decoder-only model with a KV cache (what Optimum exports as `onnx/model.onnx`):
 *
 *   inputs   input_ids (B,T) int64, attention_mask (B,S) int64, position_ids (B,T) int64,
 *            past_key_values.{i}.key / .value (B,KVH,P,D) f32                                  S = P + T
 *   outputs  logits (B,T,V) f32, present.{i}.key / .value (B,KVH,S,D) f32 (past ++ this call's k/v)
 *
 * B, T, P and S are symbolic dimensions (`batch_size`, `sequence_length`, `past_sequence_length`,
 * `total_sequence_length`): transformers.js reads the past inputs' metadata and feeds empty (B,KVH,0,D) tensors on
 * the first call. The maths is the reference's (src/model/reference/model.ts), op by op:
 *   RMSNorm     x / sqrt(mean(x²) + eps) · w                  (Mul, ReduceMean, Add, Sqrt, Div, Mul)
 *   Linear      x · Wᵀ (+ b)                                  (MatMul with Wᵀ stored (in,out), Add)
 *   q/k norms   RMSNorm over D per head (Qwen3)
 *   RoPE        x·cos + rotate_half(x)·sin, cos/sin rows gathered by position_ids from f32 tables computed in f64
 *               (maxPositions rows), rotate_half = concat(−x[D/2:], x[:D/2])   (Gather, Slice, Neg, Concat)
 *   attention   GQA without copying k/v: q (B,H,T,D) is viewed as (B,KVH,R·T,D), R = H/KVH (query head h reads
 *               kv head ⌊h/R⌋, as HF's repeat_kv), so one MatMul per call covers every head of a group;
 *               scores·1/√D, masked with Where(allowed, s, f32 lowest), Softmax, ·V.
 *   mask        allowed(b,t,s) = s ≤ P + t (causal by cache index) ∧ attention_mask(b,s) ≠ 0 (padding), tiled R
 *               times along rows to match the grouped queries. A fully masked row (a padding query) gets a uniform
 *               softmax, not NaN, as HF's finfo.min mask does.
 *   SwiGLU      silu(x·Wgᵀ) · (x·Wuᵀ), then ·Wdᵀ              (MatMul, Sigmoid, Mul)
 *   LM head     Gemm(x (B·T,C), E (V,C), transB): the tied embedding is stored once, shared with the Gather.
 */
import type { ModelConfig } from '../config.ts';
import { EMBED_TOKENS, FINAL_NORM, LM_HEAD, checkWeights, layerTensorNames, type TensorMap } from '../weights.ts';
import { GraphBuilder } from './graph.ts';
import { DataType } from './proto.ts';

export const ONNX_OPSET = 17;
/** The most negative finite f32: the masked score (exp underflows to exactly 0 after the max is subtracted). */
const F32_LOWEST = -3.4028234663852886e38;

/** Protobuf's limit on one message: the model is one file, weights inline (no external data). */
export const ONNX_MAX_BYTES = 2 ** 31 - 1;

export class OnnxExportError extends Error {
  override name = 'OnnxExportError';
}

export interface QwenOnnxOptions {
  /** Rows of the RoPE tables = the longest sequence the graph accepts. Default: the config's max_position_embeddings. */
  maxPositions?: number;
}

/** Names of the inputs and outputs, as transformers.js spells them. */
export const pastKeyName = (layer: number) => `past_key_values.${layer}.key`;
export const pastValueName = (layer: number) => `past_key_values.${layer}.value`;
export const presentKeyName = (layer: number) => `present.${layer}.key`;
export const presentValueName = (layer: number) => `present.${layer}.value`;

function f32(t: { data: Float32Array | Float64Array }): Float32Array {
  return t.data instanceof Float32Array ? t.data : Float32Array.from(t.data);
}

/** W (out,in) → Wᵀ (in,out), the right operand of MatMul. */
function transposed(t: { shape: readonly number[]; data: Float32Array | Float64Array }): Float32Array {
  const [rows, cols] = t.shape;
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = t.data[r * cols + c];
  return out;
}

/** cos and sin tables (maxPositions, D): entry [p, j] = cos/sin(p · θ^(−2(j mod D/2)/D)), as ropeRef. */
export function ropeTables(config: ModelConfig, maxPositions: number): { cos: Float32Array; sin: Float32Array } {
  const D = config.headDim;
  const half = D / 2;
  const cos = new Float32Array(maxPositions * D);
  const sin = new Float32Array(maxPositions * D);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.pow(config.ropeTheta, (-2 * i) / D);
    for (let p = 0; p < maxPositions; p++) {
      const a = p * invFreq;
      cos[p * D + i] = cos[p * D + i + half] = Math.cos(a);
      sin[p * D + i] = sin[p * D + i + half] = Math.sin(a);
    }
  }
  return { cos, sin };
}

/** The serialized ONNX model of a checked checkpoint (`tensors` as loaded by load.ts). */
export function exportQwenOnnx(config: ModelConfig, tensors: TensorMap, options: QwenOnnxOptions = {}): Uint8Array {
  const doc = `${config.architecture} L=${config.numLayers} C=${config.hiddenSize} H=${config.numHeads} KVH=${config.numKvHeads} D=${config.headDim} V=${config.vocabSize}, exported by src/model/onnx/qwen.ts`;
  return qwenOnnxGraph(config, tensors, options).encode(`${config.architecture}-causal-lm`, ONNX_OPSET, 'sqlenv-web', doc);
}

/** The graph before encoding (its node list is what the tests inspect). */
export function qwenOnnxGraph(config: ModelConfig, tensors: TensorMap, options: QwenOnnxOptions = {}): GraphBuilder {
  checkWeights(config, tensors);
  const { vocabSize: V, hiddenSize: C, numHeads: H, numKvHeads: KVH, headDim: D, rmsNormEps: eps } = config;
  const R = H / KVH;
  const maxPositions = options.maxPositions ?? config.maxPositionEmbeddings;
  const floats = [...tensors.values()].reduce((n, t) => n + t.data.length, 0) + 2 * maxPositions * D;
  if (floats * 4 > ONNX_MAX_BYTES) {
    throw new OnnxExportError(
      `the f32 weights and RoPE tables (${((floats * 4) / 2 ** 30).toFixed(2)} GiB) exceed protobuf's 2 GiB limit for one ONNX file; ` +
        'a smaller --max-positions helps only when the tables are what tips it over',
    );
  }
  const g = new GraphBuilder();
  const tensor = (name: string) => {
    const t = tensors.get(name);
    if (t === undefined) throw new Error(`ONNX export: tensor ${name} missing`);
    return t;
  };

  const inputIds = g.input('input_ids', DataType.INT64, ['batch_size', 'sequence_length']);
  const attentionMask = g.input('attention_mask', DataType.INT64, ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', DataType.INT64, ['batch_size', 'sequence_length']);
  for (let l = 0; l < config.numLayers; l++) {
    g.input(pastKeyName(l), DataType.FLOAT, ['batch_size', KVH, 'past_sequence_length', D]);
    g.input(pastValueName(l), DataType.FLOAT, ['batch_size', KVH, 'past_sequence_length', D]);
  }

  const rms = (x: string, w: string) => {
    const ms = g.op('ReduceMean', [g.op('Mul', [x, x])], { axes: { ints: [-1] }, keepdims: { int: 1 } });
    return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [ms, g.scalar(eps)])])]), w]);
  };
  const linear = (x: string, name: string, bias: string | null) => {
    const y = g.op('MatMul', [x, g.floats(`${name}.T`, [...tensor(name).shape].reverse(), transposed(tensor(name)))]);
    return bias === null ? y : g.op('Add', [y, g.floats(bias, tensor(bias).shape, f32(tensor(bias)))]);
  };
  const weight = (name: string) => g.floats(name, tensor(name).shape, f32(tensor(name)));

  // Embedding (B,T,C); the LM head reuses the same initializer when tied.
  const embed = weight(EMBED_TOKENS);
  let x = g.op('Gather', [embed, inputIds], { axis: { int: 0 } });

  // RoPE rows for this call: (B,1,T,D), broadcast over heads.
  const tables = ropeTables(config, maxPositions);
  const axis1 = g.ints([1]);
  const cos = g.op('Unsqueeze', [g.op('Gather', [g.floats('rope.cos', [maxPositions, D], tables.cos), positionIds], { axis: { int: 0 } }), axis1]);
  const sin = g.op('Unsqueeze', [g.op('Gather', [g.floats('rope.sin', [maxPositions, D], tables.sin), positionIds], { axis: { int: 0 } }), axis1]);
  const rope = (t: string) => {
    const lo = g.op('Slice', [t, g.ints([0]), g.ints([D / 2]), g.ints([-1])]);
    const hi = g.op('Slice', [t, g.ints([D / 2]), g.ints([D]), g.ints([-1])]);
    const rotated = g.op('Concat', [g.op('Neg', [hi]), lo], { axis: { int: -1 } });
    return g.op('Add', [g.op('Mul', [t, cos]), g.op('Mul', [rotated, sin])]);
  };

  // Mask (B,1,R·T,S): key s visible to query t iff s ≤ P + t and attention_mask[b,s] ≠ 0.
  const S = g.op('Gather', [g.op('Shape', [attentionMask]), g.ints([1], true)], { axis: { int: 0 } });
  const T = g.op('Gather', [g.op('Shape', [inputIds]), g.ints([1], true)], { axis: { int: 0 } });
  const keyIndex = g.op('Unsqueeze', [g.op('Range', [g.ints([0], true), S, g.ints([1], true)]), g.ints([0])]); // (1,S)
  const queryIndex = g.op('Unsqueeze', [g.op('Range', [g.op('Sub', [S, T]), S, g.ints([1], true)]), axis1]); // (T,1)
  const causal = g.op('LessOrEqual', [keyIndex, queryIndex]); // (T,S)
  const padding = g.op('Unsqueeze', [g.op('Cast', [attentionMask], { to: { int: DataType.BOOL } }), g.ints([1, 2])]); // (B,1,1,S)
  const allowed = g.op('Tile', [g.op('And', [causal, padding]), g.ints([1, 1, R, 1])]); // (B,1,R·T,S)
  const lowest = g.scalar(F32_LOWEST);
  const scale = g.scalar(1 / Math.sqrt(D));

  const toHeads = [0, 2, 1, 3];
  for (let l = 0; l < config.numLayers; l++) {
    const n = layerTensorNames(l);
    const h = rms(x, weight(n.inputLayernorm));
    let q = g.op('Reshape', [linear(h, n.qProj, config.qkvBias ? n.qBias : null), g.ints([0, 0, H, D])]); // (B,T,H,D)
    let k = g.op('Reshape', [linear(h, n.kProj, config.qkvBias ? n.kBias : null), g.ints([0, 0, KVH, D])]);
    const vNew = g.op('Reshape', [linear(h, n.vProj, config.qkvBias ? n.vBias : null), g.ints([0, 0, KVH, D])]);
    if (config.qkNorm) {
      q = rms(q, weight(n.qNorm));
      k = rms(k, weight(n.kNorm));
    }
    q = rope(g.op('Transpose', [q], { perm: { ints: toHeads } })); // (B,H,T,D)
    k = rope(g.op('Transpose', [k], { perm: { ints: toHeads } })); // (B,KVH,T,D)
    const v = g.op('Transpose', [vNew], { perm: { ints: toHeads } });
    const keys = g.op('Concat', [pastKeyName(l), k], { axis: { int: 2 } }, presentKeyName(l)); // (B,KVH,S,D)
    const values = g.op('Concat', [pastValueName(l), v], { axis: { int: 2 } }, presentValueName(l));
    const grouped = g.op('Reshape', [q, g.ints([0, KVH, -1, D])]); // (B,KVH,R·T,D)
    const scores = g.op('Mul', [g.op('MatMul', [grouped, g.op('Transpose', [keys], { perm: { ints: [0, 1, 3, 2] } })]), scale]); // (B,KVH,R·T,S)
    const probs = g.op('Softmax', [g.op('Where', [allowed, scores, lowest])], { axis: { int: -1 } });
    const heads = g.op('Reshape', [g.op('MatMul', [probs, values]), g.ints([0, H, -1, D])]); // (B,H,T,D)
    const attn = g.op('Reshape', [g.op('Transpose', [heads], { perm: { ints: toHeads } }), g.ints([0, 0, H * D])]); // (B,T,H·D)
    x = g.op('Add', [x, linear(attn, n.oProj, null)]);

    const h2 = rms(x, weight(n.postAttentionLayernorm));
    const gate = linear(h2, n.gateProj, null);
    const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(h2, n.upProj, null)]);
    x = g.op('Add', [x, linear(act, n.downProj, null)]);
  }

  const final = g.op('Reshape', [rms(x, weight(FINAL_NORM)), g.ints([-1, C])]); // (B·T,C)
  const head = config.tieWordEmbeddings ? embed : weight(LM_HEAD);
  const flat = g.op('Gemm', [final, head], { transB: { int: 1 } }); // (B·T,V)
  const logitsShape = g.op('Concat', [g.op('Shape', [inputIds]), g.ints([V])], { axis: { int: 0 } });
  g.op('Reshape', [flat, logitsShape], undefined, 'logits');

  g.output('logits', DataType.FLOAT, ['batch_size', 'sequence_length', V]);
  for (let l = 0; l < config.numLayers; l++) {
    g.output(presentKeyName(l), DataType.FLOAT, ['batch_size', KVH, 'total_sequence_length', D]);
    g.output(presentValueName(l), DataType.FLOAT, ['batch_size', KVH, 'total_sequence_length', D]);
  }
  return g;
}
