/**
 * Model configuration: a Hugging Face `config.json` for Qwen2 or Qwen3 normalised into one typed `ModelConfig`,
 * with the dimension letters used on every buffer of the reference and the engine:
 *   V vocabSize, C hiddenSize, I intermediateSize, L numLayers, H numHeads, KVH numKvHeads, D headDim.
 * Qwen2 vs Qwen3, the two differences the engine must honour: Qwen2 has biases on q/k/v_proj (qkvBias) and
 * D = C/H; Qwen3 has no projection biases, an explicit `head_dim`, and a per-head RMSNorm of q and k before RoPE
 * (qkNorm). Both use GQA, rotate_half RoPE, RMSNorm, SwiGLU, and tied or untied embeddings.
 *
 * Parsing is strict: a field that would change the maths but is not implemented (rope scaling, sliding window,
 * another activation) is refused with a `ModelConfigError` naming it, never silently ignored.
 * The published configs of Qwen3-0.6B and Qwen2.5-0.5B-Instruct sit here as constants, so memory can be planned
 * without downloading anything.
 */

export type Architecture = 'qwen2' | 'qwen3';

export interface ModelConfig {
  architecture: Architecture;
  /** V */
  vocabSize: number;
  /** C */
  hiddenSize: number;
  /** I (SwiGLU width) */
  intermediateSize: number;
  /** L */
  numLayers: number;
  /** H query heads */
  numHeads: number;
  /** KVH key/value heads (GQA: H is a multiple of KVH) */
  numKvHeads: number;
  /** D head size (Qwen3: `head_dim`, which need not equal C/H; Qwen2: C/H) */
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  /** lm_head shares embed_tokens' (V,C) matrix; no `lm_head.weight` tensor then. */
  tieWordEmbeddings: boolean;
  /** q/k/v_proj carry a bias (Qwen2). o_proj never does. */
  qkvBias: boolean;
  /** Per-head RMSNorm (weight (D)) of q and k before RoPE (Qwen3). */
  qkNorm: boolean;
  maxPositionEmbeddings: number;
  /** Tokens that end a generation (config's eos, merged with generation_config's when given). */
  eosTokenIds: number[];
  bosTokenId: number | null;
}

const SUPPORTED: Record<string, Architecture> = {
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
};

export class UnsupportedArchitectureError extends Error {
  override name = 'UnsupportedArchitectureError';
  constructor(readonly architectures: string[]) {
    super(
      `Unsupported model architecture ${architectures.length === 0 ? '(none given)' : architectures.join(', ')}: ` +
        `config.json "architectures" must name one of ${Object.keys(SUPPORTED).join(', ')}. ` +
        'Pick a Qwen2/Qwen2.5 or Qwen3 causal-LM checkpoint.',
    );
  }
}

export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`config.json field "${field}": ${detail}`);
  }
}

type Json = Record<string, unknown>;

function isRecord(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function positiveInt(json: Json, field: string): number {
  const v = json[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    throw new ModelConfigError(field, `expected a positive integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

function positiveNumber(json: Json, field: string, fallback?: number): number {
  const v = json[field] ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ModelConfigError(field, `expected a positive number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function tokenIds(v: unknown, field: string): number[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? (v as unknown[]) : [v];
  return list.map((id) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
      throw new ModelConfigError(field, `expected a token id or a list of them, got ${JSON.stringify(v)}`);
    }
    return id;
  });
}

/**
 * Normalises a parsed config.json (and optionally generation_config.json, whose `eos_token_id` list is merged in).
 * Throws UnsupportedArchitectureError or ModelConfigError naming the field at fault.
 */
export function parseModelConfig(json: unknown, generationConfig?: unknown): ModelConfig {
  if (!isRecord(json)) throw new ModelConfigError('(root)', 'config.json must be a JSON object');
  const archs = json.architectures;
  const names = Array.isArray(archs) ? archs.filter((a): a is string => typeof a === 'string') : [];
  const found = names.map((n) => SUPPORTED[n]).find((a) => a !== undefined);
  if (found === undefined) throw new UnsupportedArchitectureError(names);
  const architecture: Architecture = found;

  const C = positiveInt(json, 'hidden_size');
  const H = positiveInt(json, 'num_attention_heads');
  const KVH = json.num_key_value_heads === undefined ? H : positiveInt(json, 'num_key_value_heads');
  if (H % KVH !== 0) {
    throw new ModelConfigError('num_key_value_heads', `${KVH} must divide num_attention_heads (${H}) for GQA`);
  }
  let D: number;
  if (json.head_dim !== undefined && json.head_dim !== null) D = positiveInt(json, 'head_dim');
  else if (C % H === 0) D = C / H;
  else throw new ModelConfigError('head_dim', `absent, and hidden_size ${C} is not a multiple of num_attention_heads ${H}`);
  if (D % 2 !== 0) throw new ModelConfigError('head_dim', `${D} must be even for rotary embeddings`);

  const act = json.hidden_act ?? 'silu';
  if (act !== 'silu') throw new ModelConfigError('hidden_act', `only "silu" (SwiGLU) is implemented, got ${JSON.stringify(act)}`);
  const scaling = json.rope_scaling;
  if (scaling !== undefined && scaling !== null) {
    const type = isRecord(scaling) ? (scaling.rope_type ?? scaling.type) : undefined;
    if (type !== 'default') {
      throw new ModelConfigError('rope_scaling', `RoPE scaling ${JSON.stringify(scaling)} is not implemented; only plain RoPE`);
    }
  }
  if (json.use_sliding_window === true) {
    throw new ModelConfigError('use_sliding_window', 'sliding-window attention is not implemented; full causal attention only');
  }
  if (architecture === 'qwen3' && json.attention_bias === true) {
    throw new ModelConfigError('attention_bias', 'Qwen3 with projection biases is not implemented');
  }
  const tie = json.tie_word_embeddings ?? false;
  if (typeof tie !== 'boolean') throw new ModelConfigError('tie_word_embeddings', `expected a boolean, got ${JSON.stringify(tie)}`);

  const eos = tokenIds(json.eos_token_id, 'eos_token_id');
  if (isRecord(generationConfig)) {
    for (const id of tokenIds(generationConfig.eos_token_id, 'generation_config.eos_token_id')) {
      if (!eos.includes(id)) eos.push(id);
    }
  }
  const bos = tokenIds(json.bos_token_id, 'bos_token_id');

  return {
    architecture,
    vocabSize: positiveInt(json, 'vocab_size'),
    hiddenSize: C,
    intermediateSize: positiveInt(json, 'intermediate_size'),
    numLayers: positiveInt(json, 'num_hidden_layers'),
    numHeads: H,
    numKvHeads: KVH,
    headDim: D,
    rmsNormEps: positiveNumber(json, 'rms_norm_eps', 1e-6),
    ropeTheta: positiveNumber(json, 'rope_theta', 10000),
    tieWordEmbeddings: tie,
    qkvBias: architecture === 'qwen2',
    qkNorm: architecture === 'qwen3',
    maxPositionEmbeddings: positiveInt(json, 'max_position_embeddings'),
    eosTokenIds: eos,
    bosTokenId: bos.length > 0 ? bos[0] : null,
  };
}

/** The inverse of parseModelConfig: a config.json Hugging Face (and this parser) reads back. */
export function toHfConfigJson(config: ModelConfig): Json {
  const qwen3 = config.architecture === 'qwen3';
  return {
    architectures: [qwen3 ? 'Qwen3ForCausalLM' : 'Qwen2ForCausalLM'],
    model_type: config.architecture,
    attention_dropout: 0.0,
    ...(qwen3 ? { attention_bias: false, head_dim: config.headDim } : {}),
    bos_token_id: config.bosTokenId,
    eos_token_id: config.eosTokenIds.length === 1 ? config.eosTokenIds[0] : config.eosTokenIds,
    hidden_act: 'silu',
    hidden_size: config.hiddenSize,
    initializer_range: 0.02,
    intermediate_size: config.intermediateSize,
    max_position_embeddings: config.maxPositionEmbeddings,
    max_window_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_hidden_layers: config.numLayers,
    num_key_value_heads: config.numKvHeads,
    rms_norm_eps: config.rmsNormEps,
    rope_scaling: null,
    rope_theta: config.ropeTheta,
    sliding_window: null,
    tie_word_embeddings: config.tieWordEmbeddings,
    torch_dtype: 'float32',
    use_cache: true,
    use_sliding_window: false,
    vocab_size: config.vocabSize,
  };
}

/** Qwen/Qwen3-0.6B config.json as published on the Hub. */
export const QWEN3_0_6B_CONFIG_JSON = {
  architectures: ['Qwen3ForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 1024,
  initializer_range: 0.02,
  intermediate_size: 3072,
  max_position_embeddings: 40960,
  max_window_layers: 28,
  model_type: 'qwen3',
  num_attention_heads: 16,
  num_hidden_layers: 28,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000,
  sliding_window: null,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.51.0',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
} as const;

/** Qwen/Qwen3-0.6B generation_config.json (eos list and default sampling) as published. */
export const QWEN3_0_6B_GENERATION_CONFIG_JSON = {
  bos_token_id: 151643,
  do_sample: true,
  eos_token_id: [151645, 151643],
  pad_token_id: 151643,
  temperature: 0.6,
  top_k: 20,
  top_p: 0.95,
  transformers_version: '4.51.0',
} as const;

/** Qwen/Qwen2.5-0.5B-Instruct config.json as published on the Hub. */
export const QWEN2_5_0_5B_INSTRUCT_CONFIG_JSON = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 21,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.43.1',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
} as const;

/** Qwen/Qwen2.5-0.5B-Instruct generation_config.json as published. */
export const QWEN2_5_0_5B_INSTRUCT_GENERATION_CONFIG_JSON = {
  bos_token_id: 151643,
  pad_token_id: 151643,
  do_sample: true,
  eos_token_id: [151645, 151643],
  repetition_penalty: 1.05,
  temperature: 0.7,
  top_p: 0.8,
  top_k: 20,
  transformers_version: '4.37.0',
} as const;

export const QWEN3_0_6B: ModelConfig = parseModelConfig(QWEN3_0_6B_CONFIG_JSON, QWEN3_0_6B_GENERATION_CONFIG_JSON);
export const QWEN2_5_0_5B_INSTRUCT: ModelConfig = parseModelConfig(
  QWEN2_5_0_5B_INSTRUCT_CONFIG_JSON,
  QWEN2_5_0_5B_INSTRUCT_GENERATION_CONFIG_JSON,
);
