/**
 * A Qwen2/Qwen3 decoder as the ONNX graph the Hub's onnx-community exports hold (`onnx/model.onnx`, `model_q4.onnx`,
 * `model_q4f16.onnx`): onnxruntime's contrib operators, as onnxruntime-genai's model builder writes them for the
 * CPU/WebGPU execution providers. Followed: https://github.com/microsoft/onnxruntime-genai/blob/7192debda2941fdf6439da5eef3347be38d28517/src/python/py/models/builder.py
 * (May 2025, a month after "Add Qwen3 to model builder" #1428, when the onnx-community Qwen3 exports appeared; the
 * Hub's files themselves could not be read from here): make_layer, make_layernorm, make_attention (Qwen3 sets q_norm,
 * which turns off packed QKV and rotary-inside-GQA, so q/k get their own RotaryEmbedding and position_ids stays an
 * input), make_qk_norm, make_group_query_attention, make_attention_mask_reformatting_for_gqa, make_mlp_proj, and the
 * int4 defaults (MatMul4BitsQuantizer, block 32, symmetric, accuracy_level 4 for cpu/webgpu). Today's builder
 * (src/python/py/models/builders/base.py at a0c04eb) differs for newer exports: rotary inside GQA (do_rotary 1,
 * cos_cache/sin_cache as GQA inputs, no position_ids input) on every EP but DML, q/k norm fused into GQA on
 * cuda/webgpu, and a tied q4 table shared through GatherBlockQuantized. transformers.js feeds position_ids only when
 * the graph has that input, so it runs either form. Per layer l:
 *
 *   l = 0   SimplifiedLayerNormalization(x, w_in)                     → h          (ai.onnx domain, as ORT registers it)
 *   l > 0   SkipSimplifiedLayerNormalization(res, mlp_out, w_in)      → h, _, _, res   (com.microsoft)
 *   q,k,v   MatMul (fp32, weights stored (in,out)) | MatMulNBits (q4)  (+ Add bias: Qwen2)
 *   Qwen3   Reshape (B,T·H,D) → SimplifiedLayerNormalization(q_norm) → Reshape (B,T,H·D), same for k
 *   RoPE    RotaryEmbedding(q|k, position_ids, cos_cache, sin_cache)  caches (maxPositions, D/2), interleaved 0
 *   attn    GroupQueryAttention(q, k, v, past_k, past_v, seqlens_k, total_seq_len), do_rotary 0, scale 1/√D
 *           seqlens_k = ReduceSum(attention_mask) − 1 (int32), total_seq_len = Shape(attention_mask)[1] (int32)
 *   o       MatMul | MatMulNBits, then SkipSimplifiedLayerNormalization(res, o, w_post) → h2, _, _, res
 *   MLP     gate, up: MatMul | MatMulNBits; silu = gate · Sigmoid(gate); · up; down: MatMul | MatMulNBits
 *   end     SkipSimplifiedLayerNormalization(res, down, w_final) → h; logits = MatMul | MatMulNBits (lm_head)
 *
 * Inputs/outputs as the builder (and transformers.js) name them: input_ids, attention_mask, position_ids (B,T|S)
 * int64, past_key_values.{i}.key/.value (B,KVH,P,D) → logits (B,T,V), present.{i}.key/.value (B,KVH,S,D), all f32
 * (q4f16: f16, as the builder's fp16 io_dtype, logits included). KVH and D are fixed numbers in the input metadata:
 * transformers.js builds the empty first-call past from them.
 *
 * Where this differs from the real export: weights are inline (no external `.onnx_data`); the embedding is a float
 * Gather in both variants (the 2025 builder's; today's builder shares the tied q4 lm_head through
 * GatherBlockQuantized), and a tied fp32 model stores the table once, as `lm_head.MatMul.weight` (C,V) gathered
 * through a Transpose (today's builder's way; the 2025 one stored it twice); no fp16 (unquantised) or q8 variants;
 * no genai_config.json. Batched left padding is not exercised: GroupQueryAttention assumes right padding.
 */
import type { ModelConfig } from '../config.ts';
import { EMBED_TOKENS, FINAL_NORM, LM_HEAD, checkWeights, layerTensorNames, type Tensor, type TensorMap } from '../weights.ts';
import { GraphBuilder } from './graph.ts';
import { f16BitsToF32, f32ToF16Bits } from '../safetensors.ts';
import { DataType, encodeModel, type AttributeValue } from './proto.ts';
import { quantizeQ4, Q4_BLOCK } from './q4.ts';
import { ONNX_MAX_BYTES, OnnxExportError, pastKeyName, pastValueName, presentKeyName, presentValueName } from './qwen.ts';

/** The variants written, keyed as transformers.js's `dtype` option; the file is `onnx/model{suffix}.onnx`. */
export const COMMUNITY_DTYPES = { fp32: '', q4: '_q4', q4f16: '_q4f16' } as const;
export type CommunityDtype = keyof typeof COMMUNITY_DTYPES;

export const COMMUNITY_OPSET = 17;
const MS = 'com.microsoft';

export interface CommunityOnnxOptions {
  dtype: CommunityDtype;
  /** Rows of cos_cache/sin_cache = the longest sequence. Default: the config's max_position_embeddings (as the builder). */
  maxPositions?: number;
  /** MatMulNBits accuracy_level: 4 (int8 activations, the builder's value for cpu/webgpu) or 0 (f32 activations). */
  accuracyLevel?: 0 | 4;
}

export function communityOnnxFileName(dtype: CommunityDtype): string {
  return `model${COMMUNITY_DTYPES[dtype]}.onnx`;
}

/** cos and sin caches (maxPositions, D/2) in f64 then rounded: entry [p,i] = cos/sin(p · θ^(−2i/D)), as ropeRef. */
function ropeCaches(config: ModelConfig, maxPositions: number): { cos: Float32Array; sin: Float32Array } {
  const half = config.headDim / 2;
  const cos = new Float32Array(maxPositions * half);
  const sin = new Float32Array(maxPositions * half);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.pow(config.ropeTheta, (-2 * i) / config.headDim);
    for (let p = 0; p < maxPositions; p++) {
      cos[p * half + i] = Math.cos(p * invFreq);
      sin[p * half + i] = Math.sin(p * invFreq);
    }
  }
  return { cos, sin };
}

/** x rounded to the nearest f16 (as the f16 initializers store it). */
export const roundF16 = (x: number): number => f16BitsToF32(f32ToF16Bits(x));

/** W (out,in) → Wᵀ (in,out). */
function transposed(data: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

/** The serialized ONNX model of a checked checkpoint in the community layout. */
export function exportCommunityOnnx(config: ModelConfig, tensors: TensorMap, options: CommunityOnnxOptions): Uint8Array {
  const g = communityOnnxGraph(config, tensors, options);
  const doc =
    `${config.architecture} L=${config.numLayers} C=${config.hiddenSize} H=${config.numHeads} KVH=${config.numKvHeads} D=${config.headDim} ` +
    `V=${config.vocabSize} ${options.dtype}, onnxruntime-genai builder layout, written by src/model/onnx/community.ts`;
  return encodeModel({
    graphName: 'main_graph',
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: g.inputs,
    outputs: g.outputs,
    opset: COMMUNITY_OPSET,
    extraOpsets: [{ domain: MS, version: 1 }],
    producer: 'sqlenv-web',
    docString: doc,
  });
}

/** The graph before encoding (the tests read its node list). */
export function communityOnnxGraph(config: ModelConfig, tensors: TensorMap, options: CommunityOnnxOptions): GraphBuilder {
  checkWeights(config, tensors);
  const { vocabSize: V, hiddenSize: C, numHeads: H, numKvHeads: KVH, headDim: D, rmsNormEps: eps } = config;
  const maxPositions = options.maxPositions ?? config.maxPositionEmbeddings;
  const q4 = options.dtype !== 'fp32';
  // q4f16: every float tensor (weights, scales, caches, activations, past/present, logits) in f16, as the builder's
  // fp16 io_dtype; MatMulNBits then takes f16 scales.
  const f16 = options.dtype === 'q4f16';
  const io = f16 ? DataType.FLOAT16 : DataType.FLOAT;
  const accuracyLevel = options.accuracyLevel ?? 4;
  // Bytes: f32 weights (a tied fp32 table once; q4 keeps the f32 embedding and adds the ~5/32-size lm_head) + caches.
  const values = [...tensors.values()].reduce((n, t) => n + t.data.length, 0) + maxPositions * D;
  if (values * 4 > ONNX_MAX_BYTES) {
    throw new OnnxExportError(`the weights and RoPE caches (${((values * 4) / 2 ** 30).toFixed(2)} GiB) exceed protobuf's 2 GiB limit for one ONNX file (no external data here)`);
  }
  const tensor = (name: string) => {
    const t = tensors.get(name);
    if (t === undefined) throw new OnnxExportError(`tensor ${name} missing`);
    return t;
  };
  const g = new GraphBuilder();
  const node = (opType: string, name: string, inputs: readonly string[], outputs: readonly string[], attributes?: Record<string, AttributeValue>, domain?: string) => {
    g.nodes.push({ opType, name, inputs, outputs, attributes, domain });
    return outputs[0];
  };
  const out0 = (name: string) => `${name}/output_0`;
  const floats = (init: string, dims: readonly number[], data: ArrayLike<number>) => {
    if (!f16) return g.floats(init, dims, Float32Array.from(data));
    const bits = Uint16Array.from(data, f32ToF16Bits);
    g.initializers.push({ name: init, dims, dataType: DataType.FLOAT16, raw: new Uint8Array(bits.buffer) });
    return init;
  };
  const weight = (name: string, init: string) => floats(init, tensor(name).shape, tensor(name).data);

  /** x (…,K) · Wᵀ for W (N,K) = `name`; MatMul on Wᵀ (fp32) or MatMulNBits on W's 4-bit blocks (q4). */
  const linear = (x: string, name: string, base: string, logits = false) => {
    const [N, K] = tensor(name).shape;
    const init = `${base.slice(1).replaceAll('/', '.')}.MatMul.weight`;
    const nodeName = `${base}/MatMul${q4 ? 'NBits' : ''}`;
    const output = logits ? 'logits' : out0(nodeName);
    if (!q4) return node('MatMul', nodeName, [x, floats(init, [K, N], transposed(tensor(name).data, N, K))], [output]);
    const qw = quantizeQ4(tensor(name).data, N, K, f16 ? roundF16 : Math.fround);
    g.initializers.push({ name: `${init}_Q4`, dims: [N, qw.blocks, Q4_BLOCK / 2], dataType: DataType.UINT8, raw: qw.packed });
    floats(`${init}_scales`, [N * qw.blocks], qw.scales);
    const attrs = { K: { int: K }, N: { int: N }, bits: { int: 4 }, block_size: { int: Q4_BLOCK }, accuracy_level: { int: accuracyLevel } };
    return node('MatMulNBits', nodeName, [x, `${init}_Q4`, `${init}_scales`], [output], attrs, MS);
  };
  const bias = (y: string, name: string, base: string) =>
    config.qkvBias ? node('Add', `${base}/Add`, [y, weight(name, `${base.slice(1).replaceAll('/', '.')}.Add.bias`)], [out0(`${base}/Add`)]) : y;
  const simplified = (x: string, w: string, name: string) => node('SimplifiedLayerNormalization', name, [x, w], [out0(name)], { epsilon: { float: eps }, axis: { int: -1 }, stash_type: { int: 1 } });
  /** SkipSimplifiedLayerNormalization: (normed, residual sum) — or only normed for the last one. */
  const skipNorm = (root: string, skip: string, w: string, name: string, last: boolean): [string, string] => {
    const sum = `${name}/output_3`;
    node('SkipSimplifiedLayerNormalization', name, [root, skip, w], last ? [out0(name)] : [out0(name), '', '', sum], { epsilon: { float: eps } }, MS);
    return [out0(name), sum];
  };

  const inputIds = g.input('input_ids', DataType.INT64, ['batch_size', 'sequence_length']);
  const attentionMask = g.input('attention_mask', DataType.INT64, ['batch_size', 'total_sequence_length']);
  const positionIds = g.input('position_ids', DataType.INT64, ['batch_size', 'sequence_length']);
  for (let l = 0; l < config.numLayers; l++) {
    g.input(pastKeyName(l), io, ['batch_size', KVH, 'past_sequence_length', D]);
    g.input(pastValueName(l), io, ['batch_size', KVH, 'past_sequence_length', D]);
  }

  // seqlens_k (B) int32 = Σ mask − 1; total_seq_len () int32 = S.
  const m = '/model/attn_mask_reformat/attn_mask_subgraph';
  const sum = node('ReduceSum', `${m}/ReduceSum`, [attentionMask, g.ints([1])], [out0(`${m}/ReduceSum`)], { keepdims: { int: 0 } });
  const sub = node('Sub', `${m}/Sub`, [sum, g.ints([1])], [out0(`${m}/Sub`)]);
  const seqlensK = node('Cast', `${m}/Sub/Cast`, [sub], [out0(`${m}/Sub/Cast`)], { to: { int: DataType.INT32 } });
  const shape = node('Shape', `${m}/Shape`, [attentionMask], [out0(`${m}/Shape`)]);
  const total = node('Gather', `${m}/Gather`, [shape, g.ints([1], true)], [out0(`${m}/Gather`)], { axis: { int: 0 } });
  const totalSeqLen = node('Cast', `${m}/Gather/Cast`, [total], [out0(`${m}/Gather/Cast`)], { to: { int: DataType.INT32 } });

  // Embedding (B,T,C). A tied fp32 model keeps one table, the LM head's (C,V), and gathers from its transpose.
  const headName = config.tieWordEmbeddings ? EMBED_TOKENS : LM_HEAD;
  let table: string;
  if (config.tieWordEmbeddings && !q4) {
    const lm = floats('lm_head.MatMul.weight', [C, V], transposed(tensor(EMBED_TOKENS).data, V, C));
    table = node('Transpose', '/model/embed_tokens/Transpose', [lm], [out0('/model/embed_tokens/Transpose')], { perm: { ints: [1, 0] } });
  } else {
    table = weight(EMBED_TOKENS, 'model.embed_tokens.weight');
  }
  const embeds = node('Gather', '/model/embed_tokens/Gather', [table, inputIds], [out0('/model/embed_tokens/Gather')], { axis: { int: 0 } });

  const caches = ropeCaches(config, maxPositions);
  const cosCache = floats('cos_cache', [maxPositions, D / 2], caches.cos);
  const sinCache = floats('sin_cache', [maxPositions, D / 2], caches.sin);
  const qkNorm = (x: string, w: string, heads: number, base: string) => {
    const r1 = node('Reshape', `${base}/Reshape_1`, [x, g.ints([0, -1, D])], [out0(`${base}/Reshape_1`)]);
    const n = simplified(r1, w, `${base}/SimplifiedLayerNormalization`);
    return node('Reshape', `${base}/Reshape_2`, [n, g.ints([0, -1, heads * D])], [out0(`${base}/Reshape_2`)]);
  };
  const rotary = (x: string, name: string) =>
    node('RotaryEmbedding', name, [x, positionIds, cosCache, sinCache], [out0(name)], { interleaved: { int: 0 }, num_heads: { int: 0 }, rotary_embedding_dim: { int: 0 } }, MS);

  let residual = embeds;
  let skip = '';
  for (let l = 0; l < config.numLayers; l++) {
    const n = layerTensorNames(l);
    const p = `/model/layers.${l}`;
    const wIn = weight(n.inputLayernorm, `model.layers.${l}.input_layernorm.weight`);
    let h: string;
    if (l === 0) h = simplified(residual, wIn, `${p}/input_layernorm/LayerNorm`);
    else [h, residual] = skipNorm(residual, skip, wIn, `${p}/input_layernorm/SkipLayerNorm`, false);

    let q = bias(linear(h, n.qProj, `${p}/attn/q_proj`), n.qBias, `${p}/attn/q_proj`);
    let k = bias(linear(h, n.kProj, `${p}/attn/k_proj`), n.kBias, `${p}/attn/k_proj`);
    const v = bias(linear(h, n.vProj, `${p}/attn/v_proj`), n.vBias, `${p}/attn/v_proj`);
    if (config.qkNorm) {
      q = qkNorm(q, weight(n.qNorm, `model.layers.${l}.attn.q_norm.layernorm.weight`), H, `${p}/attn/q_norm`);
      k = qkNorm(k, weight(n.kNorm, `model.layers.${l}.attn.k_norm.layernorm.weight`), KVH, `${p}/attn/k_norm`);
    }
    q = rotary(q, `${p}/attn/q_rotary/RotaryEmbedding`);
    k = rotary(k, `${p}/attn/k_rotary/RotaryEmbedding`);
    const gqa = `${p}/attn/GroupQueryAttention`;
    const gqaAttrs = {
      num_heads: { int: H },
      kv_num_heads: { int: KVH },
      scale: { float: 1 / Math.sqrt(D) },
      local_window_size: { int: -1 },
      softcap: { float: 0 },
      do_rotary: { int: 0 },
      rotary_interleaved: { int: 0 },
    };
    node('GroupQueryAttention', gqa, [q, k, v, pastKeyName(l), pastValueName(l), seqlensK, totalSeqLen], [out0(gqa), presentKeyName(l), presentValueName(l)], gqaAttrs, MS);
    const o = linear(out0(gqa), n.oProj, `${p}/attn/o_proj`);

    const wPost = weight(n.postAttentionLayernorm, `model.layers.${l}.post_attention_layernorm.weight`);
    const [h2, res2] = skipNorm(residual, o, wPost, `${p}/post_attention_layernorm/SkipLayerNorm`, false);
    residual = res2;
    const gate = linear(h2, n.gateProj, `${p}/mlp/gate_proj`);
    const up = linear(h2, n.upProj, `${p}/mlp/up_proj`);
    const sig = node('Sigmoid', `${p}/mlp/act_fn/Sigmoid`, [gate], [out0(`${p}/mlp/act_fn/Sigmoid`)]);
    const act = node('Mul', `${p}/mlp/act_fn/Mul`, [gate, sig], [out0(`${p}/mlp/act_fn/Mul`)]);
    const prod = node('Mul', `${p}/mlp/Mul`, [act, up], [out0(`${p}/mlp/Mul`)]);
    skip = linear(prod, n.downProj, `${p}/mlp/down_proj`);
  }

  const wFinal = weight(FINAL_NORM, 'model.norm.weight');
  const [final] = skipNorm(residual, skip, wFinal, '/model/norm/SkipLayerNorm', true);
  if (config.tieWordEmbeddings && !q4) node('MatMul', '/lm_head/MatMul', [final, 'lm_head.MatMul.weight'], ['logits']);
  else linear(final, headName, '/lm_head', true);

  g.output('logits', io, ['batch_size', 'sequence_length', V]);
  for (let l = 0; l < config.numLayers; l++) {
    g.output(presentKeyName(l), io, ['batch_size', KVH, 'total_sequence_length', D]);
    g.output(presentValueName(l), io, ['batch_size', KVH, 'total_sequence_length', D]);
  }
  return g;
}

/**
 * The checkpoint a q4 / q4f16 file stands for: every linear weight (and the LM head) replaced by its dequantized
 * 4-bit blocks, the embedding and norms kept (q4f16: every weight rounded to f16, scales included). A tied model comes
 * back untied (its float embedding and 4-bit head now differ). The float64 reference runs this to check the graph.
 */
export function q4Checkpoint(config: ModelConfig, tensors: TensorMap, dtype: Exclude<CommunityDtype, 'fp32'> = 'q4'): { config: ModelConfig; tensors: Map<string, Tensor> } {
  checkWeights(config, tensors);
  const round = dtype === 'q4f16' ? roundF16 : Math.fround;
  const out = new Map<string, Tensor>([...tensors].map(([name, t]) => [name, { shape: [...t.shape], data: Float32Array.from(t.data, round) }]));
  const quantized = (name: string): Tensor => {
    const t = tensors.get(name);
    if (t === undefined) throw new OnnxExportError(`tensor ${name} missing`);
    const [N, K] = t.shape;
    return { shape: [N, K], data: quantizeQ4(t.data, N, K, round).dequantized };
  };
  for (let l = 0; l < config.numLayers; l++) {
    const n = layerTensorNames(l);
    for (const name of [n.qProj, n.kProj, n.vProj, n.oProj, n.gateProj, n.upProj, n.downProj]) out.set(name, quantized(name));
  }
  out.set(LM_HEAD, quantized(config.tieWordEmbeddings ? EMBED_TOKENS : LM_HEAD));
  return { config: { ...config, tieWordEmbeddings: false }, tensors: out };
}
