/**
 * LoRA adapters, PEFT-compatible. A projection y = x·Wᵀ (+ b) with W (out, in) becomes
 *   y = x·Wᵀ (+ b) + scale · (x·Aᵀ)·Bᵀ,   A (R, in), B (out, R), scale = alpha / R (alpha / sqrt(R) with rsLoRA),
 * on every targeted projection of every layer. B starts at zero (so a fresh adapter leaves the model unchanged) and
 * A at PEFT's default (Kaiming-uniform with a = sqrt(5): uniform in ±1/sqrt(in)). Dropout is a training-time
 * option of PEFT that the engine does not apply (it is read and kept, for the adapter_config round trip).
 *
 * Tensor names are PEFT's: `base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight`, so an adapter saved
 * here loads in PEFT and one trained there loads here.
 */
import type { Rng } from '../data/rng.ts';
import type { ModelConfig } from './config.ts';
import { PROJECTIONS, projectionPrefix, projectionShape, type Projection, type Tensor } from './weights.ts';

export type LoraTarget = Projection;
export const LORA_TARGETS = PROJECTIONS;

export interface LoraConfig {
  /** R */
  rank: number;
  alpha: number;
  targetModules: LoraTarget[];
  /** Kept for the adapter_config round trip; the engine computes without dropout. */
  dropout: number;
  /** rsLoRA: scale alpha / sqrt(R) instead of alpha / R. */
  useRslora: boolean;
}

export const DEFAULT_LORA_CONFIG: LoraConfig = {
  rank: 16,
  alpha: 32,
  targetModules: [...PROJECTIONS],
  dropout: 0,
  useRslora: false,
};

export function loraScale(config: LoraConfig): number {
  return config.useRslora ? config.alpha / Math.sqrt(config.rank) : config.alpha / config.rank;
}

/** One projection's adapter: A (R, in) and B (out, R), row-major. */
export interface LoraPair {
  a: Tensor;
  b: Tensor;
}

/** An adapter: per layer, the targeted projections' pairs. */
export interface LoraAdapter {
  config: LoraConfig;
  layers: Array<Partial<Record<LoraTarget, LoraPair>>>;
}

export class LoraConfigError extends Error {
  override name = 'LoraConfigError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`LoRA config "${field}": ${detail}`);
  }
}

/** Largest LoRA rank accepted (PEFT's "r"): published adapters use 4–256; more is a damaged or crafted file. */
export const MAX_LORA_RANK = 1024;
/** Largest |alpha| accepted (PEFT's "lora_alpha"): published adapters use 8–512. */
export const MAX_LORA_ALPHA = 65536;

export function validateLoraConfig(config: LoraConfig): void {
  if (!Number.isSafeInteger(config.rank) || config.rank <= 0 || config.rank > MAX_LORA_RANK) {
    throw new LoraConfigError('rank', `must be a positive integer at most ${MAX_LORA_RANK} (PEFT "r"), got ${config.rank}`);
  }
  if (!Number.isFinite(config.alpha) || config.alpha <= 0 || config.alpha > MAX_LORA_ALPHA) {
    throw new LoraConfigError('alpha', `must be a finite number in (0, ${MAX_LORA_ALPHA}] (PEFT "lora_alpha"), got ${config.alpha}`);
  }
  if (!(config.dropout >= 0 && config.dropout < 1)) throw new LoraConfigError('dropout', `must be in [0, 1) (PEFT "lora_dropout"), got ${config.dropout}`);
  if (!Array.isArray(config.targetModules) || config.targetModules.length > LORA_TARGETS.length * 4) throw new LoraConfigError('target_modules', 'must list at most the seven projections');
  if (config.targetModules.length === 0) throw new LoraConfigError('target_modules', 'names no projection');
  for (const t of config.targetModules) {
    if (!(LORA_TARGETS as readonly string[]).includes(t)) {
      throw new LoraConfigError('target_modules', `unknown module "${t}"; use some of ${LORA_TARGETS.join(', ')}`);
    }
  }
}

/** PEFT's name of an adapter tensor, e.g. `base_model.model.model.layers.3.mlp.up_proj.lora_B.weight`. */
export function peftTensorName(layer: number, target: LoraTarget, which: 'A' | 'B'): string {
  return `base_model.model.${projectionPrefix(layer, target)}.lora_${which}.weight`;
}

/** Shapes of one target's A (R, in) and B (out, R). */
export function loraShapes(model: ModelConfig, lora: LoraConfig, target: LoraTarget): { a: [number, number]; b: [number, number] } {
  const [out, inp] = projectionShape(model, target);
  return { a: [lora.rank, inp], b: [out, lora.rank] };
}

/**
 * A fresh adapter: A uniform in ±1/sqrt(in) from the seeded generator, B zero (`bInit` overrides B's init, for tests
 * that need a non-zero adapter). f64 storage so the reference can take finite differences through it.
 */
export function createLoraAdapter(model: ModelConfig, lora: LoraConfig, rng: Rng, bInit?: (rng: Rng) => number): LoraAdapter {
  validateLoraConfig(lora);
  const layers: LoraAdapter['layers'] = [];
  for (let i = 0; i < model.numLayers; i++) {
    const layer: Partial<Record<LoraTarget, LoraPair>> = {};
    for (const t of LORA_TARGETS) {
      if (!lora.targetModules.includes(t)) continue;
      const s = loraShapes(model, lora, t);
      const bound = 1 / Math.sqrt(s.a[1]);
      const a = new Float64Array(s.a[0] * s.a[1]);
      for (let j = 0; j < a.length; j++) a[j] = (rng.next() * 2 - 1) * bound;
      const b = new Float64Array(s.b[0] * s.b[1]);
      if (bInit !== undefined) for (let j = 0; j < b.length; j++) b[j] = bInit(rng);
      layer[t] = { a: { shape: s.a, data: a }, b: { shape: s.b, data: b } };
    }
    layers.push(layer);
  }
  return { config: lora, layers };
}

/**
 * The adapter as PEFT-named tensors, layer by layer, targets in LORA_TARGETS order: the one mapping from adapter to
 * file names (writePeftAdapter writes it; readPeftAdapter reads the same names back through `peftTensorName`).
 */
export function loraToTensors(adapter: LoraAdapter): Map<string, Tensor> {
  const out = new Map<string, Tensor>();
  adapter.layers.forEach((layer, i) => {
    for (const t of LORA_TARGETS) {
      const pair = layer[t];
      if (pair === undefined) continue;
      out.set(peftTensorName(i, t, 'A'), pair.a);
      out.set(peftTensorName(i, t, 'B'), pair.b);
    }
  });
  return out;
}

/** PEFT's adapter_config.json for this adapter. */
export function toPeftAdapterConfig(lora: LoraConfig, baseModel: string): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: lora.rank,
    lora_alpha: lora.alpha,
    lora_dropout: lora.dropout,
    target_modules: [...lora.targetModules],
    use_rslora: lora.useRslora,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    use_dora: false,
    // Written by PEFT ≥ 0.7 with these defaults; fields newer PEFT versions add are left out so older ones still load it.
    rank_pattern: {},
    alpha_pattern: {},
    layers_to_transform: null,
    layers_pattern: null,
    loftq_config: {},
    megatron_config: null,
    megatron_core: 'megatron.core',
    auto_mapping: null,
    revision: null,
  };
}

/** adapter_config.json fields that change the maths when set (not null, false or empty); refused by name. */
const UNSUPPORTED_PEFT_FIELDS: ReadonlyArray<{ name: string; why: string }> = [
  { name: 'layers_to_transform', why: 'per-layer targeting needs the model\'s layout: read the adapter with readPeftAdapter (adapter-file.ts)' },
  { name: 'lora_bias', why: 'LoRA B biases are not supported' },
  { name: 'use_qalora', why: 'QA-LoRA adapters are not supported' },
  { name: 'layer_replication', why: 'layer replication is not supported' },
  { name: 'target_parameters', why: 'adapters on parameters (rather than modules) are not supported' },
  { name: 'trainable_token_indices', why: 'trained token embeddings are not supported' },
];

/**
 * Reads PEFT's adapter_config.json with `target_modules` a list of projection names; refuses what the engine cannot
 * compute (DoRA, trained biases, per-module ranks or alphas, other types) rather than load it mis-scaled.
 */
export function parsePeftAdapterConfig(json: unknown): LoraConfig {
  if (typeof json !== 'object' || json === null) throw new LoraConfigError('(root)', 'adapter_config.json must be an object');
  const j = json as Record<string, unknown>;
  if (j.peft_type !== undefined && j.peft_type !== 'LORA') throw new LoraConfigError('peft_type', `only LORA is supported, got ${JSON.stringify(j.peft_type)}`);
  if (j.use_dora === true) throw new LoraConfigError('use_dora', 'DoRA adapters are not supported');
  if (j.bias !== undefined && j.bias !== 'none') throw new LoraConfigError('bias', `only "none" is supported, got ${JSON.stringify(j.bias)}`);
  if (j.modules_to_save !== undefined && j.modules_to_save !== null) throw new LoraConfigError('modules_to_save', 'adapters that save whole modules are not supported');
  const nonEmpty = (v: unknown) => v !== undefined && v !== null && v !== false && !(typeof v === 'object' && Object.keys(v).length === 0);
  if (nonEmpty(j.rank_pattern)) throw new LoraConfigError('rank_pattern', 'per-module ranks are not supported');
  if (nonEmpty(j.alpha_pattern)) throw new LoraConfigError('alpha_pattern', 'per-module alphas are not supported (the scale would be wrong)');
  for (const field of UNSUPPORTED_PEFT_FIELDS) {
    if (nonEmpty(j[field.name])) throw new LoraConfigError(field.name, field.why);
  }
  const targets = j.target_modules;
  if (typeof targets === 'string') {
    throw new LoraConfigError('target_modules', `a regex (${JSON.stringify(targets)}) needs the model's module names: read the adapter with readPeftAdapter (adapter-file.ts)`);
  }
  if (!Array.isArray(targets)) throw new LoraConfigError('target_modules', 'expected a list of module names');
  const config: LoraConfig = {
    rank: typeof j.r === 'number' ? j.r : NaN,
    alpha: typeof j.lora_alpha === 'number' ? j.lora_alpha : NaN,
    targetModules: targets.map(String) as LoraTarget[],
    dropout: typeof j.lora_dropout === 'number' ? j.lora_dropout : 0,
    useRslora: j.use_rslora === true,
  };
  validateLoraConfig(config);
  return config;
}
