/**
 * A policy's step as it runs, on the page: the worker's latest `StepProgress` (the step, the budget and, for a model
 * policy, the tokens generated so far) with the page's clock around it, so the views can show "Generating… N tokens"
 * with a rate, and Evaluate can estimate what is left of an episode. Times are `performance.now()` milliseconds.
 */
import type { StepProgress } from '../../workers/env-protocol.ts';

export interface LiveStep extends StepProgress {
  /** When this step started (its first report). */
  startedAt: number;
  /** When the first new token of this step was reported (null before): decode's rate counts from here. */
  firstTokenAt: number | null;
  /** When the latest report came. */
  updatedAt: number;
  /** New tokens when `firstTokenAt` was taken (1 on an engine that reports every token). */
  firstTokens: number;
}

/** `previous` moved on by the report `p` that came at `now` (a report of another step starts it afresh). */
export function liveStep(previous: LiveStep | null, p: StepProgress, now: number): LiveStep {
  const same = previous !== null && previous.step === p.step;
  const startedAt = same ? previous.startedAt : now;
  const tokens = p.turn?.newTokens ?? 0;
  const hadFirst = same && previous.firstTokenAt !== null;
  return {
    ...p,
    startedAt,
    updatedAt: now,
    firstTokenAt: hadFirst ? previous.firstTokenAt : tokens > 0 ? now : null,
    firstTokens: hadFirst ? previous.firstTokens : tokens,
  };
}

/** Decode's rate so far in tokens per second (null until two reports with tokens came). */
export function tokensPerSecond(live: LiveStep): number | null {
  const tokens = (live.turn?.newTokens ?? 0) - live.firstTokens;
  if (live.firstTokenAt === null || tokens <= 0 || live.updatedAt <= live.firstTokenAt) return null;
  return (tokens * 1000) / (live.updatedAt - live.firstTokenAt);
}

/** "Generating… 37 tokens (12.3 tokens/s)", or what the step is doing before its first token; null for a policy with no tokens. */
export function generatingText(live: LiveStep): string | null {
  const turn = live.turn;
  if (!turn) return null;
  if (turn.newTokens === 0) return `Generating… reading the prompt (${turn.promptTokens} tokens)`;
  const rate = tokensPerSecond(live);
  return `Generating… ${turn.newTokens} token${turn.newTokens === 1 ? '' : 's'} of at most ${turn.maxNewTokens}${rate !== null ? ` (${rate.toFixed(1)} tokens/s)` : ''}`;
}
