/**
 * The Hugging Face tensor names and shapes of a Qwen2/Qwen3 causal LM, derived from its `ModelConfig`, and the check
 * of a loaded set of tensors against them. Shapes follow PyTorch: a Linear weight is (out, in), so
 * q_proj is (H·D, C), k/v_proj (KVH·D, C), o_proj (C, H·D), gate/up_proj (I, C), down_proj (C, I).
 *
 * This list is the one place the names are spelled; the reference model, the engine's loader and the memory plan
 * all read it, and `parameterCount` answers "how big is Qwen3-0.6B" with no weights at hand.
 */
import type { ModelConfig } from './config.ts';

export interface TensorSpec {
  name: string;
  /** PyTorch order, e.g. [V, C] for the embedding. */
  shape: number[];
}

/** A tensor in memory: f32 as decoded from safetensors, or f64 for the reference and its gradient checks. */
export interface Tensor {
  shape: number[];
  data: Float32Array | Float64Array;
}

export type TensorMap = ReadonlyMap<string, Tensor>;

/** The seven Linear layers of a decoder layer: LoRA targets them by these names. */
export const PROJECTIONS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type Projection = (typeof PROJECTIONS)[number];

/** `self_attn` or `mlp`: the module a projection belongs to in the HF name. */
export function projectionModule(p: Projection): 'self_attn' | 'mlp' {
  return p === 'gate_proj' || p === 'up_proj' || p === 'down_proj' ? 'mlp' : 'self_attn';
}

/** [out, in] features of a projection (its weight's shape). */
export function projectionShape(config: ModelConfig, p: Projection): [number, number] {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D } = config;
  switch (p) {
    case 'q_proj':
      return [H * D, C];
    case 'k_proj':
    case 'v_proj':
      return [KVH * D, C];
    case 'o_proj':
      return [C, H * D];
    case 'gate_proj':
    case 'up_proj':
      return [I, C];
    case 'down_proj':
      return [C, I];
    default:
      return p satisfies never;
  }
}

/** `model.layers.{i}.self_attn.q_proj` etc. (no `.weight`). */
export function projectionPrefix(layer: number, p: Projection): string {
  return `model.layers.${layer}.${projectionModule(p)}.${p}`;
}

/** Names of one decoder layer's tensors, in one place. */
export function layerTensorNames(layer: number) {
  const pre = `model.layers.${layer}`;
  return {
    inputLayernorm: `${pre}.input_layernorm.weight`,
    qProj: `${pre}.self_attn.q_proj.weight`,
    kProj: `${pre}.self_attn.k_proj.weight`,
    vProj: `${pre}.self_attn.v_proj.weight`,
    oProj: `${pre}.self_attn.o_proj.weight`,
    qBias: `${pre}.self_attn.q_proj.bias`,
    kBias: `${pre}.self_attn.k_proj.bias`,
    vBias: `${pre}.self_attn.v_proj.bias`,
    qNorm: `${pre}.self_attn.q_norm.weight`,
    kNorm: `${pre}.self_attn.k_norm.weight`,
    postAttentionLayernorm: `${pre}.post_attention_layernorm.weight`,
    gateProj: `${pre}.mlp.gate_proj.weight`,
    upProj: `${pre}.mlp.up_proj.weight`,
    downProj: `${pre}.mlp.down_proj.weight`,
  };
}

export const EMBED_TOKENS = 'model.embed_tokens.weight';
export const FINAL_NORM = 'model.norm.weight';
export const LM_HEAD = 'lm_head.weight';

/** Every tensor a checkpoint of this config holds, with its shape, in a stable order. */
export function expectedTensors(config: ModelConfig): TensorSpec[] {
  const { vocabSize: V, hiddenSize: C, numHeads: H, numKvHeads: KVH, headDim: D } = config;
  const specs: TensorSpec[] = [{ name: EMBED_TOKENS, shape: [V, C] }];
  for (let i = 0; i < config.numLayers; i++) {
    const n = layerTensorNames(i);
    specs.push({ name: n.inputLayernorm, shape: [C] });
    for (const p of ['q_proj', 'k_proj', 'v_proj', 'o_proj'] as const) {
      specs.push({ name: `${projectionPrefix(i, p)}.weight`, shape: projectionShape(config, p) });
    }
    if (config.qkvBias) {
      specs.push({ name: n.qBias, shape: [H * D] }, { name: n.kBias, shape: [KVH * D] }, { name: n.vBias, shape: [KVH * D] });
    }
    if (config.qkNorm) specs.push({ name: n.qNorm, shape: [D] }, { name: n.kNorm, shape: [D] });
    specs.push({ name: n.postAttentionLayernorm, shape: [C] });
    for (const p of ['gate_proj', 'up_proj', 'down_proj'] as const) {
      specs.push({ name: `${projectionPrefix(i, p)}.weight`, shape: projectionShape(config, p) });
    }
  }
  specs.push({ name: FINAL_NORM, shape: [C] });
  if (!config.tieWordEmbeddings) specs.push({ name: LM_HEAD, shape: [V, C] });
  return specs;
}

/** Number of parameters (tied embeddings counted once). Qwen3-0.6B: 596,049,920; Qwen2.5-0.5B: 494,032,768. */
export function parameterCount(config: ModelConfig): number {
  return expectedTensors(config).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
}

export class WeightShapeError extends Error {
  override name = 'WeightShapeError';
  constructor(
    readonly tensor: string,
    detail: string,
  ) {
    super(`Tensor "${tensor}": ${detail}`);
  }
}

/**
 * Checks loaded tensors against the config: every expected tensor present with its exact shape and data length.
 * Extra tensors are ignored except a stray `lm_head.weight` with tied embeddings, which Hugging Face also ignores
 * (some tied checkpoints ship it); the list of ignored names is returned so a caller can log it.
 */
export function checkWeights(config: ModelConfig, tensors: ReadonlyMap<string, { shape: readonly number[] }>): { ignored: string[] } {
  const expected = expectedTensors(config);
  for (const spec of expected) {
    const t = tensors.get(spec.name);
    if (t === undefined) {
      throw new WeightShapeError(
        spec.name,
        `missing from the checkpoint (expected shape [${spec.shape.join(', ')}] for a ${config.architecture} model). ` +
          'Check that config.json belongs to these weights.',
      );
    }
    if (t.shape.length !== spec.shape.length || t.shape.some((d, i) => d !== spec.shape[i])) {
      throw new WeightShapeError(
        spec.name,
        `shape [${t.shape.join(', ')}] does not match [${spec.shape.join(', ')}] from config.json. ` +
          'Check that config.json belongs to these weights.',
      );
    }
    const data = (t as { data?: ArrayLike<number> }).data;
    const size = spec.shape.reduce((a, b) => a * b, 1);
    if (data !== undefined && data.length !== size) {
      throw new WeightShapeError(spec.name, `holds ${data.length} values, its shape needs ${size}`);
    }
  }
  const names = new Set(expected.map((s) => s.name));
  return { ignored: [...tensors.keys()].filter((n) => !names.has(n)) };
}
