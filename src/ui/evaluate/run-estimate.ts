/**
 * How long a model run (an Evaluate run, a Watch episode) may take on this device, said BEFORE it starts: its size
 * (episodes × turns × tokens per turn) and an upper bound on its time, every episode played to its step budget and
 * every turn to its token limit (a bound at a measured speed; at the plan's speed, a floor: arithmetic alone). Pure (tested in tests/ui/evaluate/run-estimate.test.ts); RunEstimate.tsx shows it.
 *
 * The time comes from one of two speeds:
 *   measured — this model's own turns already played on this page (Watch steps, an Evaluate run): the median decode
 *              and prefill rates of their GenerationRecords;
 *   plan     — the Train view's time plan (src/ui/train/device-fit.ts): FLOPs per token from the model's size, at the
 *              speed that plan assumes for this adapter (software fallback or GPU), and its first-prompt size.
 * Tokens an episode processes, with the KV cache the model policy keeps across turns (policies/llm/prefix-slots.ts):
 * its first prompt once, then per turn the reply and the observation fed back, taken as long as a reply (the Train
 * plan's assumption too). Concurrent episodes (Evaluate batches them) only make a run faster: a bound still holds.
 */
import type { GenerationRecord } from '../../eval/transcript.ts';
import { roughDuration } from '../../train/progress.ts';
import { plural } from '../components/plural.ts';
import { flopsPerToken, GPU_FLOPS, PROMPT_TOKENS, SOFTWARE_FLOPS, type ModelSize } from '../train/device-fit.ts';

/** What a run will play: `episodes` of at most `turns` turns, each generating at most `tokensPerTurn` tokens. */
export interface RunShape {
  episodes: number;
  turns: number;
  tokensPerTurn: number;
}

/** Speeds measured on this device, in tokens per second. */
export interface MeasuredSpeed {
  decodeTokensPerSecond: number;
  prefillTokensPerSecond: number;
  /** Turns the figures come from. */
  turns: number;
}

export type SpeedBasis =
  | { kind: 'measured'; speed: MeasuredSpeed }
  /** The Train view's plan: `flops` FLOP/s assumed for this adapter. */
  | { kind: 'plan'; flops: number; software: boolean };

export interface RunEstimate {
  /** Most tokens the run generates: episodes × turns × tokens per turn. */
  generatedTokens: number;
  /** Most tokens the run's forwards process (first prompts, replies, observations). */
  processedTokens: number;
  /** Upper bound on the run's time, in seconds. */
  seconds: number;
  basis: SpeedBasis;
}

/** Most tokens one episode processes: the first prompt, then each turn's reply and the observation it brings back. */
export function episodeTokensProcessed(turns: number, tokensPerTurn: number): number {
  return PROMPT_TOKENS + turns * 2 * tokensPerTurn;
}

/** The run's size and bound at `basis`'s speed (`model` gives FLOPs per token for the plan). */
export function estimateRun(shape: RunShape, model: ModelSize, basis: SpeedBasis): RunEstimate {
  const episodes = Math.max(0, shape.episodes);
  const generatedTokens = episodes * shape.turns * shape.tokensPerTurn;
  const processedTokens = episodes * episodeTokensProcessed(shape.turns, shape.tokensPerTurn);
  let seconds: number;
  if (basis.kind === 'measured') {
    const { decodeTokensPerSecond: decode, prefillTokensPerSecond: prefill } = basis.speed;
    // Per episode: the first prompt's prefill; per turn, the reply decoded and the observation prefilled.
    const perEpisode = PROMPT_TOKENS / prefill + shape.turns * (shape.tokensPerTurn / decode + shape.tokensPerTurn / prefill);
    seconds = episodes * perEpisode;
  } else {
    seconds = (processedTokens * flopsPerToken(model)) / basis.flops;
  }
  return { generatedTokens, processedTokens, seconds, basis };
}

/** The plan's speed for an adapter (software fallback: SwiftShader's measured rate; otherwise the GPU assumption). */
export function planBasis(software: boolean): SpeedBasis {
  return { kind: 'plan', flops: software ? SOFTWARE_FLOPS : GPU_FLOPS, software };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const positive = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x) && x > 0;

/**
 * The speeds of turns played: the median decode rate (a turn's overall rate where decode was not timed apart) and
 * the median prefill rate (the decode rate where none was timed). Null when no turn generated a token.
 */
export function measuredSpeed(records: readonly GenerationRecord[]): MeasuredSpeed | null {
  const played = records.filter((r) => r.newTokens > 0);
  const decodes = played.map((r) => (positive(r.decodeTokensPerSecond) ? r.decodeTokensPerSecond : r.tokensPerSecond)).filter(positive);
  if (decodes.length === 0) return null;
  const prefills = played.map((r) => r.prefillTokensPerSecond).filter(positive);
  const decode = median(decodes);
  return { decodeTokensPerSecond: decode, prefillTokensPerSecond: prefills.length > 0 ? median(prefills) : decode, turns: decodes.length };
}

/** "3 episodes × 10 turns × 256 tokens per turn = at most 7,680 generated tokens". */
export function shapeText(shape: RunShape, estimate: RunEstimate): string {
  return `${plural(shape.episodes, 'episode')} × ${plural(shape.turns, 'turn')} × ${plural(shape.tokensPerTurn, 'token')} per turn = at most ${plural(estimate.generatedTokens, 'generated token')}`;
}

/** What the bound says and what it rests on. */
export function timeText(estimate: RunEstimate): string {
  const time = roughDuration(estimate.seconds);
  const basis = estimate.basis;
  if (basis.kind === 'measured') {
    const { decodeTokensPerSecond: d, prefillTokensPerSecond: p, turns } = basis.speed;
    return `At most about ${time} on this device, at the speed measured on this page (decode ${d.toFixed(1)} tokens/s, prefill ${p.toFixed(1)} tokens/s, over ${plural(turns, 'turn')}).`;
  }
  const assumed = basis.software
    ? `a software WebGPU adapter at about ${basis.flops / 1e9} GFLOP/s`
    : `a GPU at an assumed ${basis.flops / 1e9} GFLOP/s`;
  // The plan counts arithmetic only; a small model's time is mostly per-dispatch overhead (a fresh-clone walk-through
  // saw 2 min planned for the tiny model's 10-turn episode on SwiftShader, whose first turn alone took 114 s), so it
  // is a floor, not a bound.
  return (
    `Arithmetic alone takes about ${time} by the Train view's time plan (${assumed}); dispatch overhead and memory traffic come on top, so expect longer, for a small model many times longer. ` +
    "This model's speed here is not measured yet: its first turn measures it (the tokens/s shown while it generates), and later estimates use that."
  );
}
