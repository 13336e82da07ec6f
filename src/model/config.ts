/**
 * Model configuration: a Hugging Face `config.json` for Qwen2 or Qwen3 normalised into one typed `ModelConfig`,
 * with the dimension letters used on every buffer of the reference and the engine:
 *   V vocabSize, C hiddenSize, I intermediateSize, L numLayers, H numHeads, KVH numKvHeads, D headDim.
 * Qwen2 vs Qwen3, the two differences the engine must honour: Qwen2 has biases on q/k/v_proj (qkvBias) and
 * D = C/H; Qwen3 has no projection biases, an explicit `head_dim`, and a per-head RMSNorm of q and k before RoPE
 * (qkNorm). Both use GQA, rotate_half RoPE, RMSNorm, SwiGLU, and tied or untied embeddings.
 *
 * Parsing is strict: a field that would change the maths but is not implemented (rope scaling, sliding window,
 * another activation) is refused with a `ModelConfigError` naming it, never silently ignored. config.json is
 * untrusted: every number must lie in a plausible range (CONFIG_RANGES, with the published models they come from)
 * before anything is sized from it, and the error names the file, the field and the allowed range.
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
    readonly file: string = 'config.json',
  ) {
    super(`${file} field "${field}": ${detail}`);
  }
}

type Json = Record<string, unknown>;

/** A plausible range for one number of config.json, with where its bounds come from (shown in the error). */
export interface ConfigRange {
  /** The Hugging Face field name. */
  field: string;
  min: number;
  max: number;
  integer: boolean;
  why: string;
}

/**
 * Bounds on every number of config.json, wide enough for any published decoder-only checkpoint, narrow enough that a
 * damaged or crafted file is refused before anything is sized from it (`num_hidden_layers: 1e9` would otherwise
 * allocate until the process dies). Whether a config that passes still fits in memory is the memory plan's budget
 * check (model-budget.ts).
 */
export const CONFIG_RANGES = {
  numLayers: { field: 'num_hidden_layers', min: 1, max: 256, integer: true, why: 'Llama-3.1-405B has 126, Qwen3-235B 94' },
  hiddenSize: { field: 'hidden_size', min: 1, max: 32768, integer: true, why: 'Llama-3.1-405B has 16384; Qwen3-0.6B 1024' },
  intermediateSize: { field: 'intermediate_size', min: 1, max: 131072, integer: true, why: 'Llama-3.1-405B has 53248; Qwen3-0.6B 3072' },
  numHeads: { field: 'num_attention_heads', min: 1, max: 256, integer: true, why: 'Llama-3.1-405B has 128; Qwen3-0.6B 16' },
  numKvHeads: { field: 'num_key_value_heads', min: 1, max: 256, integer: true, why: 'at most num_attention_heads; Qwen3-0.6B has 8' },
  headDim: { field: 'head_dim', min: 2, max: 1024, integer: true, why: 'Gemma has 256, Qwen3 128' },
  vocabSize: { field: 'vocab_size', min: 1, max: 1_048_576, integer: true, why: 'Gemma-3 has 262144, Qwen 151936' },
  maxPositionEmbeddings: { field: 'max_position_embeddings', min: 1, max: 16_777_216, integer: true, why: 'Qwen2.5-1M has 1010000, Llama-4-Scout 10485760' },
  ropeTheta: { field: 'rope_theta', min: 1, max: 1e10, integer: false, why: 'Qwen3 uses 1e6, Qwen2.5-1M 1e7, Llama-2 1e4' },
  rmsNormEps: { field: 'rms_norm_eps', min: 1e-12, max: 0.1, integer: false, why: 'Qwen uses 1e-6, Llama 1e-5' },
} as const satisfies Record<string, ConfigRange>;

/** Token ids (bos, eos) stay below 2^24: every published vocabulary is far smaller; at most 64 eos ids. */
const MAX_TOKEN_ID = 16_777_215;
const MAX_EOS_IDS = 64;
/** H·D, the attention width: Llama-3.1-405B's is 16384. */
const MAX_ATTENTION_WIDTH = 65536;

function isRecord(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function show(v: unknown): string {
  const text = typeof v === 'number' ? String(v) : JSON.stringify(v);
  return text === undefined ? 'nothing' : text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** Throws ModelConfigError unless `v` lies in `range`. */
function checkRange(v: unknown, range: ConfigRange, file: string): number {
  const kind = range.integer ? 'an integer' : 'a number';
  if (typeof v !== 'number' || !Number.isFinite(v) || (range.integer && !Number.isSafeInteger(v)) || v < range.min || v > range.max) {
    throw new ModelConfigError(
      range.field,
      `expected ${kind} in [${range.min}, ${range.max}] (${range.why}), got ${show(v)}. Check that the file is an undamaged Qwen config.json.`,
      file,
    );
  }
  return v;
}

function ranged(json: Json, key: keyof typeof CONFIG_RANGES, fallback?: number): number {
  const range = CONFIG_RANGES[key];
  const v = json[range.field];
  return checkRange(v === undefined || v === null ? fallback : v, range, 'config.json');
}

function tokenIds(v: unknown, field: string, file: string): number[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? (v as unknown[]) : [v];
  if (list.length > MAX_EOS_IDS) throw new ModelConfigError(field, `lists ${list.length} token ids, at most ${MAX_EOS_IDS} are plausible`, file);
  return list.map((id) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > MAX_TOKEN_ID) {
      throw new ModelConfigError(field, `expected a token id in [0, ${MAX_TOKEN_ID}] or a list of them, got ${show(v)}`, file);
    }
    return id;
  });
}

/**
 * Normalises a parsed config.json (and optionally generation_config.json, whose `eos_token_id` list is merged in).
 * Every number is checked against CONFIG_RANGES before anything is sized from it. Throws UnsupportedArchitectureError
 * or ModelConfigError naming the file and the field at fault.
 */
export function parseModelConfig(json: unknown, generationConfig?: unknown): ModelConfig {
  if (!isRecord(json)) throw new ModelConfigError('(root)', 'config.json must be a JSON object');
  const archs = json.architectures;
  const names = Array.isArray(archs) ? archs.slice(0, 16).filter((a): a is string => typeof a === 'string').map((a) => a.slice(0, 100)) : [];
  const found = names.map((n) => (Object.hasOwn(SUPPORTED, n) ? SUPPORTED[n] : undefined)).find((a) => a !== undefined);
  if (found === undefined) throw new UnsupportedArchitectureError(names);
  const architecture: Architecture = found;

  const C = ranged(json, 'hiddenSize');
  const H = ranged(json, 'numHeads');
  const KVH = json.num_key_value_heads === undefined ? H : ranged(json, 'numKvHeads');
  if (H % KVH !== 0) {
    throw new ModelConfigError('num_key_value_heads', `${KVH} must divide num_attention_heads (${H}) for GQA`);
  }
  let D: number;
  if (json.head_dim !== undefined && json.head_dim !== null) D = ranged(json, 'headDim');
  else if (C % H === 0) D = C / H;
  else throw new ModelConfigError('head_dim', `absent, and hidden_size ${C} is not a multiple of num_attention_heads ${H}`);
  if (D % 2 !== 0) throw new ModelConfigError('head_dim', `${D} must be even for rotary embeddings`);
  if (H * D > MAX_ATTENTION_WIDTH) {
    throw new ModelConfigError('head_dim', `num_attention_heads × head_dim = ${H} × ${D} exceeds ${MAX_ATTENTION_WIDTH} (Llama-3.1-405B's is 16384)`);
  }

  const act = json.hidden_act ?? 'silu';
  if (act !== 'silu') throw new ModelConfigError('hidden_act', `only "silu" (SwiGLU) is implemented, got ${show(act)}`);
  const scaling = json.rope_scaling;
  if (scaling !== undefined && scaling !== null) {
    const type = isRecord(scaling) ? (scaling.rope_type ?? scaling.type) : undefined;
    if (type !== 'default') {
      throw new ModelConfigError('rope_scaling', `RoPE scaling ${show(scaling)} is not implemented; only plain RoPE`);
    }
  }
  if (json.use_sliding_window === true) {
    throw new ModelConfigError('use_sliding_window', 'sliding-window attention is not implemented; full causal attention only');
  }
  if (architecture === 'qwen3' && json.attention_bias === true) {
    throw new ModelConfigError('attention_bias', 'Qwen3 with projection biases is not implemented');
  }
  const tie = json.tie_word_embeddings ?? false;
  if (typeof tie !== 'boolean') throw new ModelConfigError('tie_word_embeddings', `expected a boolean, got ${show(tie)}`);

  const eos = tokenIds(json.eos_token_id, 'eos_token_id', 'config.json');
  if (generationConfig !== undefined && generationConfig !== null && !isRecord(generationConfig)) {
    throw new ModelConfigError('(root)', 'generation_config.json must be a JSON object', 'generation_config.json');
  }
  if (isRecord(generationConfig)) {
    for (const id of tokenIds(generationConfig.eos_token_id, 'eos_token_id', 'generation_config.json')) {
      if (!eos.includes(id) && eos.length < MAX_EOS_IDS) eos.push(id);
    }
  }
  const bos = tokenIds(json.bos_token_id, 'bos_token_id', 'config.json');

  return {
    architecture,
    vocabSize: ranged(json, 'vocabSize'),
    hiddenSize: C,
    intermediateSize: ranged(json, 'intermediateSize'),
    numLayers: ranged(json, 'numLayers'),
    numHeads: H,
    numKvHeads: KVH,
    headDim: D,
    rmsNormEps: ranged(json, 'rmsNormEps', 1e-6),
    ropeTheta: ranged(json, 'ropeTheta', 10000),
    tieWordEmbeddings: tie,
    qkvBias: architecture === 'qwen2',
    qkNorm: architecture === 'qwen3',
    maxPositionEmbeddings: ranged(json, 'maxPositionEmbeddings'),
    eosTokenIds: eos,
    bosTokenId: bos.length > 0 ? bos[0] : null,
  };
}

/**
 * Checks an already-normalised config (built in code, or passed across a worker boundary) against CONFIG_RANGES and
 * the GQA/RoPE rules, so code that sizes arrays from a `ModelConfig` (the CPU reference, the memory plan) never trusts
 * it blindly. Throws ModelConfigError naming `file` and the Hugging Face field.
 */
export function validateModelConfig(config: ModelConfig, file = 'config.json'): void {
  for (const key of Object.keys(CONFIG_RANGES) as Array<keyof typeof CONFIG_RANGES>) checkRange(config[key], CONFIG_RANGES[key], file);
  if (config.numHeads % config.numKvHeads !== 0) throw new ModelConfigError('num_key_value_heads', `${config.numKvHeads} must divide num_attention_heads (${config.numHeads}) for GQA`, file);
  if (config.headDim % 2 !== 0) throw new ModelConfigError('head_dim', `${config.headDim} must be even for rotary embeddings`, file);
  if (config.numHeads * config.headDim > MAX_ATTENTION_WIDTH) throw new ModelConfigError('head_dim', `num_attention_heads × head_dim exceeds ${MAX_ATTENTION_WIDTH}`, file);
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
