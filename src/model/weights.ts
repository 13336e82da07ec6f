/**
 * The Hugging Face tensor names and shapes of a Qwen2/Qwen3 causal LM, derived from its `ModelConfig`, and the check
 * of a loaded set of tensors against them. Shapes follow PyTorch: a Linear weight is (out, in), so
 * q_proj is (H·D, C), k/v_proj (KVH·D, C), o_proj (C, H·D), gate/up_proj (I, C), down_proj (C, I).
 *
 * This list is the one place the names are spelled and the shapes derived; the reference model, LoRA, the training
 * defaults, the engine's loader and trainer and the GPU memory plan all read it, and `parameterCount` answers "how big is Qwen3-0.6B" with no weights at hand.
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

/** The sizes a projection's shape depends on: a `ModelConfig` has them, and so has the GPU memory plan's `PlanDims`. */
export type ProjectionDims = Pick<ModelConfig, 'hiddenSize' | 'intermediateSize' | 'numHeads' | 'numKvHeads' | 'headDim'>;

/** [out, in] features of a projection (its weight's shape). */
export function projectionShape(dims: ProjectionDims, p: Projection): [number, number] {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D } = dims;
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
    for (const p of PROJECTIONS.filter((q) => projectionModule(q) === 'self_attn')) {
      specs.push({ name: `${projectionPrefix(i, p)}.weight`, shape: projectionShape(config, p) });
    }
    if (config.qkvBias) {
      specs.push({ name: n.qBias, shape: [H * D] }, { name: n.kBias, shape: [KVH * D] }, { name: n.vBias, shape: [KVH * D] });
    }
    if (config.qkNorm) specs.push({ name: n.qNorm, shape: [D] }, { name: n.kNorm, shape: [D] });
    specs.push({ name: n.postAttentionLayernorm, shape: [C] });
    for (const p of PROJECTIONS.filter((q) => projectionModule(q) === 'mlp')) {
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

/** config.json and the weights disagree (layer count, a shape, an architecture's tensors): names both files. */
export class ConfigWeightsMismatchError extends WeightShapeError {
  override name = 'ConfigWeightsMismatchError';
  constructor(
    tensor: string,
    readonly configFile: string,
    readonly field: string,
    readonly weightsFile: string,
    detail: string,
  ) {
    super(tensor, `${detail} (${configFile} field "${field}" disagrees with ${weightsFile}). Check that ${configFile} belongs to these weights.`);
  }
}

export interface CheckWeightsOptions {
  /** The file a tensor came from (for messages); default "the weights". */
  fileOf?: (tensor: string) => string;
  /** Default config.json. */
  configFile?: string;
}

/** config.json fields a tensor's shape is computed from (named in a mismatch). */
function shapeFields(name: string): string {
  if (name === EMBED_TOKENS || name === LM_HEAD) return 'vocab_size, hidden_size';
  if (/(input_layernorm|post_attention_layernorm)\.weight$/.test(name) || name === FINAL_NORM) return 'hidden_size';
  if (/(q_norm|k_norm)\.weight$/.test(name)) return 'head_dim';
  if (/(q_proj|o_proj)\./.test(name)) return 'num_attention_heads, head_dim, hidden_size';
  if (/(k_proj|v_proj)\./.test(name)) return 'num_key_value_heads, head_dim, hidden_size';
  return 'hidden_size, intermediate_size';
}

const LAYER = /^model\.layers\.(\d+)\.(.+)$/;
/** The per-layer tensor suffixes of either architecture (`self_attn.q_proj.bias`, …). */
const LAYER_SUFFIXES: ReadonlySet<string> = new Set(Object.values(layerTensorNames(0)).map((n) => n.slice('model.layers.0.'.length)));

/**
 * Checks loaded tensors (or just their header shapes) against the config: the layers present are exactly
 * 0..num_hidden_layers−1, and every expected tensor is present with its exact shape and data length. Extra tensors
 * are ignored except where they change the maths — a layer the config does not have, or a per-layer weight of the
 * other architecture (q_proj.bias in a Qwen3, q_norm in a Qwen2) — and a stray `lm_head.weight` with tied embeddings,
 * which Hugging Face also ignores (some tied checkpoints ship it); the list of ignored names is returned so a caller
 * can log it. A disagreement throws ConfigWeightsMismatchError naming config.json's field and the weights' file.
 */
export function checkWeights(config: ModelConfig, tensors: ReadonlyMap<string, { shape: readonly number[] }>, options: CheckWeightsOptions = {}): { ignored: string[] } {
  const fileOf = options.fileOf ?? (() => 'the weights');
  const configFile = options.configFile ?? 'config.json';
  const mismatch = (tensor: string, field: string, detail: string) => new ConfigWeightsMismatchError(tensor, configFile, field, fileOf(tensor), detail);
  const L = config.numLayers;
  for (const name of tensors.keys()) {
    const m = LAYER.exec(name);
    if (m === null) continue;
    const layer = Number(m[1]);
    if (layer >= L) throw mismatch(name, 'num_hidden_layers', `belongs to layer ${m[1]}, but the config has ${L} layers (0..${L - 1})`);
  }
  const expected = expectedTensors(config);
  for (const spec of expected) {
    const t = tensors.get(spec.name);
    if (t === undefined) {
      const layer = LAYER.exec(spec.name);
      const layerMissing = layer !== null && ![...tensors.keys()].some((n) => n.startsWith(`model.layers.${layer[1]}.`));
      if (layerMissing) throw mismatch(spec.name, 'num_hidden_layers', `missing: the config has ${L} layers, the weights hold no tensor of layer ${layer[1]}`);
      throw mismatch(
        spec.name,
        spec.name === LM_HEAD ? 'tie_word_embeddings' : 'architectures',
        `missing from the checkpoint (expected shape [${spec.shape.join(', ')}] for a ${config.architecture} model)`,
      );
    }
    if (t.shape.length !== spec.shape.length || t.shape.some((d, i) => d !== spec.shape[i])) {
      throw mismatch(spec.name, shapeFields(spec.name), `shape [${t.shape.join(', ')}] does not match [${spec.shape.join(', ')}] from config.json`);
    }
    const data = (t as { data?: ArrayLike<number> }).data;
    const size = spec.shape.reduce((a, b) => a * b, 1);
    if (data !== undefined && data.length !== size) {
      throw new WeightShapeError(spec.name, `holds ${data.length} values, its shape needs ${size}`);
    }
  }
  const names = new Set(expected.map((s) => s.name));
  const ignored = [...tensors.keys()].filter((n) => !names.has(n));
  for (const name of ignored) {
    const m = LAYER.exec(name);
    if (m !== null && LAYER_SUFFIXES.has(m[2])) {
      throw mismatch(name, 'architectures', `is a weight a ${config.architecture} model does not have; the weights are of another architecture`);
    }
  }
  return { ignored };
}
