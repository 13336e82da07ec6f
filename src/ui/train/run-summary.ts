/**
 * Whose figures the Train view's "Latest step" summary shows, said in words. A step's reward and success come from
 * the episodes it trained on: in GRPO the model's own sampled rollouts, in SFT the Oracle's demonstrations (which
 * are right by construction, so "success 100%" there says nothing of the model). The model's own success under
 * greedy play comes only from the evaluations (`EvalPoint`), shown beside it as their own figure.
 * Pure: no React, tested in Node.
 */
import type { EvalPoint, StepMetrics } from '../../train/types.ts';
import { percent } from '../evaluate/figures.ts';

/** One term and its value in the summary list. */
export interface SummaryFigure {
  term: string;
  value: string;
  /** What the figure measures, for a tooltip. */
  hint: string;
}

/** A success rate, or "n/a" where the evaluation had no questions (NaN). */
function rate(x: number | undefined): string {
  return x === undefined || Number.isNaN(x) ? 'n/a' : percent(x);
}

/** The reward and success of the step's episodes, named by who played them. */
export function stepEpisodesFigure(last: StepMetrics): SummaryFigure {
  const value = `reward ${last.reward.total.toFixed(3)} · success ${percent(last.successRate)}`;
  switch (last.algo) {
    case 'sft':
      return { term: 'Oracle demonstrations (not the model)', value, hint: 'Mean reward and success of the Oracle transcripts this SFT step trained on: the Oracle’s figures, not the model’s.' };
    case 'grpo':
      return { term: 'model’s sampled rollouts', value, hint: 'Mean reward and success of the episodes the model sampled for this GRPO step (at the rollout temperature).' };
    default:
      return last.algo satisfies never;
  }
}

/** The model's success in the latest evaluation of the run, or that there has been none yet. */
export function modelEvaluationFigure(lastEval: EvalPoint | undefined): SummaryFigure {
  const term = 'model (last evaluation)';
  const hint = 'Success of the model’s own greedy episodes on the fixed train and eval samples, at the latest evaluation (Evaluate every, in Advanced settings).';
  if (lastEval === undefined) return { term, value: 'none yet', hint };
  return { term, value: `success train ${rate(lastEval.trainSuccess)} · eval ${rate(lastEval.evalSuccess)} (step ${lastEval.step})`, hint };
}
