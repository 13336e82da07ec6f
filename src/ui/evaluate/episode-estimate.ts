/**
 * What Evaluate says about the episode in play, before any episode has finished (after one, figures.ts's pace per
 * episode takes over): how far the run has moved, counting the steps and tokens of the episode in play, and an upper
 * bound on the time left — every step taken to the budget at the pace seen so far. A step's pace comes from the steps
 * already played in this episode, or, during the first step, from the prompt's time and the token rate (a step may
 * generate up to its token limit). Times are milliseconds.
 */
import { tokensPerSecond, type LiveStep } from '../store/live-step.ts';

/** Episodes done plus the part of the episode in play (its steps played, the tokens of the step in play), < done + 1. */
export function runFraction(done: number, current: LiveStep | null): number {
  if (!current || current.budget <= 0) return done;
  const turn = current.turn;
  const inStep = turn && turn.maxNewTokens > 0 ? Math.min(turn.newTokens / turn.maxNewTokens, 1) : 0;
  return done + Math.min((current.step - 1 + inStep) / current.budget, 0.99);
}

/** The longest a step may take at the pace seen so far (null when nothing says yet). */
export function stepBoundMs(current: LiveStep, episodeStartedAt: number): number | null {
  if (current.step > 1) return (current.startedAt - episodeStartedAt) / (current.step - 1);
  const rate = tokensPerSecond(current);
  const turn = current.turn;
  if (rate === null || !turn || current.firstTokenAt === null) return null;
  return current.firstTokenAt - current.startedAt + ((turn.maxNewTokens - current.firstTokens) * 1000) / rate;
}

/**
 * At most this long left for the run if every episode takes its whole budget at this pace: the episode in play and
 * `episodesAfter` more; null when nothing says yet.
 */
export function boundLeftMs(episodesAfter: number, current: LiveStep, episodeStartedAt: number, now: number): number | null {
  const perStep = stepBoundMs(current, episodeStartedAt);
  if (perStep === null) return null;
  const stepsLeft = current.budget - (current.step - 1) + current.budget * Math.max(episodesAfter, 0);
  return Math.max(0, perStep * stepsLeft - (now - current.startedAt));
}
