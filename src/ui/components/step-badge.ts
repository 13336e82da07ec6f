/**
 * The badge beside a step in a transcript. For most steps it is the environment's outcome (ok, nothing-new, repeat,
 * content-free, error). An ANSWER step's outcome is "ok" whether or not the answer was right (the step itself ran
 * fine), which on screen read as "the answer is ok": so an ANSWER says what the verifier said — correct or wrong —
 * from its correctness reward (1 for a correct answer, 0 otherwise), and in free play, where there is no gold
 * answer, "noted". Pure, unit-tested (tests/ui/components/step-badge.test.ts).
 */
import type { TranscriptStep } from '../../eval/transcript.ts';

export interface StepBadge {
  text: string;
  /** The CSS class beside `badge`: the outcome, or `correct` / `wrong` / `noted` for an ANSWER. */
  kind: string;
  /** What the badge means: the text of the "?" note beside it (Transcript.tsx). */
  title: string;
}

export function stepBadge(step: Pick<TranscriptStep, 'action' | 'outcome' | 'components'>, freePlay = false): StepBadge {
  if (step.action.type !== 'ANSWER' || step.outcome !== 'ok') return { text: step.outcome, kind: step.outcome, title: `Step outcome: ${step.outcome}` };
  if (freePlay) return { text: 'noted', kind: 'noted', title: 'Free play has no gold answer, so the answer is not judged' };
  return step.components.correctness > 0
    ? { text: 'correct', kind: 'correct', title: 'The answer matches the gold result' }
    : { text: 'wrong', kind: 'wrong', title: 'The answer does not match the gold result' };
}
