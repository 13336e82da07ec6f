/**
 * Progress reports cross from the worker to the page at most every `PROGRESS_INTERVAL_MS` (a Spider import checks
 * thousands of questions, a model download reports every chunk); a report that closes a phase is never dropped.
 * `reportingSteps` makes a policy tell how its steps go (Watch's step, an evaluation's episode).
 */
import type { Policy, TurnProgress } from '../../policies/policy.ts';
import type { StepProgress } from '../env-protocol.ts';

/** The least time between two reports that may be dropped, in milliseconds. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * Wraps `emit` so a report is dropped when one went out less than `PROGRESS_INTERVAL_MS` ago and `mayDrop(report)`
 * says it is an intermediate one; `force` sends it regardless. `now` is the clock (milliseconds).
 */
export function throttleProgress<P>(emit: ((p: P) => void) | undefined, mayDrop: (p: P) => boolean, now: () => number = Date.now): (p: P, force?: boolean) => void {
  let last = 0;
  return (p, force = false) => {
    const t = now();
    if (!force && t - last < PROGRESS_INTERVAL_MS && mayDrop(p)) return;
    last = t;
    emit?.(p);
  };
}

/** `policy` with each step reported through `onStep` (the step, the budget, and the turn's tokens as they come). */
export function reportingSteps(policy: Policy, onStep: (current: StepProgress) => void): Policy {
  return {
    name: policy.name,
    act: (context) => {
      const step = context.history.length + 1;
      const budget = context.history.length + context.observation.stepsLeft;
      onStep({ step, budget, turn: null });
      return policy.act({ ...context, onProgress: (turn: TurnProgress) => onStep({ step, budget, turn }) });
    },
  };
}
