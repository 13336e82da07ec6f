/**
 * Do the training settings fit this device? A rough time plan of the run's first minutes — the evaluation before
 * step 1 and one step — from the model's size and the adapter's speed, and, when it is minutes, smaller settings to
 * propose with the reason. Pure (tested in tests/ui/train/device-fit.test.ts); DeviceFitNote.tsx shows it.
 *
 * The plan counts tokens the model processes: every turn of an episode runs its whole context again (the trainer's
 * generate keeps no KV cache across turns), so an episode of `maxTurns` turns processes about maxTurns × (prompt +
 * reply) tokens; an update runs forward and backward (≈ 3× a forward) over the step's sequences. FLOPs per token are
 * 2 × (layer weights + LM head), layer weights ≈ 12 × hidden² per layer. Speeds: about 1 GFLOP/s for a software
 * adapter (SwiftShader, measured, DESIGN.md), 200 GFLOP/s assumed for a GPU (a low estimate for WebGPU).
 */
import type { TrainConfig } from '../../train/types.ts';

export interface ModelSize {
  layers: number;
  hidden: number;
  vocab: number;
}

export interface DeviceFacts {
  /** The adapter's name, for the reason. */
  name: string;
  software: boolean;
}

export interface FitAdvice {
  /** Sentences saying why (the adapter, the time plan). */
  reasons: string[];
  /** Smaller settings (each at most the current value); empty when none is smaller. */
  patch: Partial<TrainConfig>;
  /** Estimated seconds of the evaluation before step 1 and of one step, with the current settings. */
  evalSeconds: number;
  stepSeconds: number;
}

export const SOFTWARE_FLOPS = 1e9;
export const GPU_FLOPS = 2e11;
/** A plan beyond this many seconds (the first evaluation or a step) is worth a proposal. */
export const SLOW_SECONDS = 120;
/** Tokens of a first prompt (system text, schema, question), for the plan. */
export const PROMPT_TOKENS = 600;

/** The settings proposed on a slow device: short episodes, few evaluation episodes, small groups. */
export const SMALL_SETTINGS: Partial<TrainConfig> = {
  evalTrainSamples: 2,
  evalEvalSamples: 2,
  maxTurns: 3,
  maxNewTokensPerTurn: 48,
  maxEpisodeTokens: 1024,
  groupSize: 2,
  promptsPerStep: 1,
  sftExamplesPerStep: 2,
};

/** Settings the algorithm does not use (never proposed for it). */
const OTHER_ALGO_KEYS: Record<TrainConfig['algo'], ReadonlyArray<keyof TrainConfig>> = {
  sft: ['groupSize', 'promptsPerStep'],
  grpo: ['sftExamplesPerStep'],
};

export function flopsPerToken(m: ModelSize): number {
  return 2 * (m.layers * 12 * m.hidden * m.hidden + m.vocab * m.hidden);
}

/** Tokens one episode processes (each turn runs the context so far again, then its reply). */
function episodeTokens(c: TrainConfig): number {
  const prompt = Math.min(PROMPT_TOKENS, c.maxEpisodeTokens);
  let total = 0;
  for (let t = 0; t < c.maxTurns; t++) total += Math.min(c.maxEpisodeTokens, prompt + t * c.maxNewTokensPerTurn * 2) + c.maxNewTokensPerTurn;
  return total;
}

export function planSeconds(c: TrainConfig, m: ModelSize, flops: number): { evalSeconds: number; stepSeconds: number } {
  const perToken = flopsPerToken(m) / flops;
  const evalEpisodes = c.evalEvery > 0 ? c.evalTrainSamples + c.evalEvalSamples : 0;
  const evalSeconds = evalEpisodes * episodeTokens(c) * perToken;
  const sequence = Math.min(c.maxEpisodeTokens, PROMPT_TOKENS + c.maxTurns * c.maxNewTokensPerTurn * 2);
  const stepSeconds =
    c.algo === 'grpo'
      ? c.groupSize * c.promptsPerStep * (episodeTokens(c) + 3 * c.updatesPerRollout * sequence) * perToken
      : c.sftExamplesPerStep * 3 * sequence * perToken;
  return { evalSeconds, stepSeconds };
}

function minutes(seconds: number): string {
  return seconds < 90 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

/** Advice for `config` on `device` with `model`; null when it fits (or nothing is known to judge by). */
export function deviceFit(config: TrainConfig, device: DeviceFacts | null, model: ModelSize | null): FitAdvice | null {
  if (!model) return null;
  const software = device?.software === true;
  const { evalSeconds, stepSeconds } = planSeconds(config, model, software ? SOFTWARE_FLOPS : GPU_FLOPS);
  const slow = evalSeconds > SLOW_SECONDS || stepSeconds > SLOW_SECONDS;
  if (!software && !slow) return null;
  const patch: Partial<TrainConfig> = {};
  for (const [key, value] of Object.entries(SMALL_SETTINGS) as Array<[keyof TrainConfig, number]>) {
    if (!OTHER_ALGO_KEYS[config.algo].includes(key) && (config[key] as number) > value) (patch as Record<string, number>)[key] = value;
  }
  if (Object.keys(patch).length === 0 && !slow) return null;
  const reasons: string[] = [];
  if (software) reasons.push(`This browser's WebGPU adapter (${device?.name ?? 'unknown'}) is a software fallback that runs on the CPU, about a thousand times slower than a GPU.`);
  reasons.push(`With these settings the evaluation before step 1 would take about ${minutes(evalSeconds)} and each step about ${minutes(stepSeconds)} here.`);
  return { reasons, patch, evalSeconds, stepSeconds };
}
