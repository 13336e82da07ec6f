/**
 * How the model policy prompts and generates (the Model panel's settings), their defaults and their checks. Plain
 * data, so the page can hold a copy and send it with `loadModel` / `setModelSettings`; `resolveLlmSettings` fills the
 * defaults and throws LlmSettingsError naming the first field out of range, before anything is loaded.
 *
 *   thinking       Qwen3's thinking block; off by default (on: longer replies, Qwen3's sampling defaults)
 *   shots          0, 1 or 3 Oracle transcripts of train questions of `shotDataset` before the episode
 *   temperature    0 is greedy; default 0.7 (0.6 with thinking), Qwen3's recommendation
 *   topP           nucleus mass in (0, 1]; default 0.8 (0.95 with thinking)
 *   maxNewTokens   per-turn token limit; default 256 (1024 with thinking)
 *   weights        storage of the base matrices on the GPU for decode: q4 (default), q8 or f16 (the reference);
 *                  changing it needs a reload, the others apply to the next episode
 */
import { DEFAULT_DECODE_WEIGHTS, WEIGHT_FORMATS, type WeightFormat } from '../gpu/quant.ts';
import { SHOT_COUNTS } from '../policies/llm/prompt.ts';
import { samplingDefaults } from '../policies/llm/sampling-defaults.ts';

export type ShotCount = (typeof SHOT_COUNTS)[number];

export interface LlmPolicySettings {
  /** Per-turn token limit; default 256 (1024 with thinking). */
  maxNewTokens?: number;
  thinking?: boolean;
  /** 0 is greedy; default 0.7 (0.6 with thinking). */
  temperature?: number;
  /** Default 0.8 (0.95 with thinking). */
  topP?: number;
  /** Few-shot examples; default 0. */
  shots?: ShotCount;
  /** The dataset whose train questions the shots are played on; default 'demo'. */
  shotDataset?: string;
  /** Decode weight storage; default DEFAULT_DECODE_WEIGHTS (quant.ts). */
  weights?: WeightFormat;
}

export type ResolvedLlmSettings = Required<LlmPolicySettings>;

export const MAX_NEW_TOKENS_LIMIT = 4096;

export class LlmSettingsError extends RangeError {
  override name = 'LlmSettingsError';
  constructor(
    readonly field: keyof LlmPolicySettings,
    reason: string,
  ) {
    super(`Model setting '${field}' ${reason}.`);
  }
}

/** The settings with every default filled in; throws LlmSettingsError on the first field out of range. */
export function resolveLlmSettings(settings: LlmPolicySettings = {}): ResolvedLlmSettings {
  const thinking = settings.thinking ?? false;
  const defaults = samplingDefaults(thinking);
  const resolved: ResolvedLlmSettings = {
    thinking,
    maxNewTokens: settings.maxNewTokens ?? defaults.maxNewTokens,
    temperature: settings.temperature ?? defaults.temperature,
    topP: settings.topP ?? defaults.topP,
    shots: settings.shots ?? 0,
    shotDataset: settings.shotDataset ?? 'demo',
    weights: settings.weights ?? DEFAULT_DECODE_WEIGHTS,
  };
  if (typeof resolved.thinking !== 'boolean') throw new LlmSettingsError('thinking', 'must be true or false');
  if (!Number.isInteger(resolved.maxNewTokens) || resolved.maxNewTokens < 1 || resolved.maxNewTokens > MAX_NEW_TOKENS_LIMIT) {
    throw new LlmSettingsError('maxNewTokens', `must be a whole number from 1 to ${MAX_NEW_TOKENS_LIMIT}, not ${resolved.maxNewTokens}`);
  }
  if (!Number.isFinite(resolved.temperature) || resolved.temperature < 0 || resolved.temperature > 2) {
    throw new LlmSettingsError('temperature', `must be from 0 (greedy) to 2, not ${resolved.temperature}`);
  }
  if (!Number.isFinite(resolved.topP) || resolved.topP <= 0 || resolved.topP > 1) throw new LlmSettingsError('topP', `must be above 0 and at most 1, not ${resolved.topP}`);
  if (!(SHOT_COUNTS as readonly number[]).includes(resolved.shots)) throw new LlmSettingsError('shots', `must be one of ${SHOT_COUNTS.join(', ')}, not ${resolved.shots}`);
  if (typeof resolved.shotDataset !== 'string' || resolved.shotDataset.trim() === '') throw new LlmSettingsError('shotDataset', 'must name a dataset');
  if (!WEIGHT_FORMATS.includes(resolved.weights)) throw new LlmSettingsError('weights', `must be one of ${WEIGHT_FORMATS.join(', ')}, not ${String(resolved.weights)}`);
  return resolved;
}

/** One line for the policy list: how the model plays. */
export function describeLlmSettings(s: ResolvedLlmSettings): string {
  const sampling = s.temperature === 0 ? 'greedy' : `temperature ${s.temperature}, top-p ${s.topP}`;
  return `${s.shots === 0 ? 'zero-shot' : `${s.shots}-shot`}, thinking ${s.thinking ? 'on' : 'off'}, ${sampling}, at most ${s.maxNewTokens} new tokens a turn, ${s.weights} weights`;
}
