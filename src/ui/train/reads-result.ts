/**
 * The toy run's result in words (ReadsPanel.tsx): fresh success after the SFT warm-up (the control: GRPO at lr 0
 * leaves exactly this), after GRPO, and the best fixed-answer policy's exact rate; then how often an ANSWER copied a
 * value an observation showed — the sign that the model reads before it answers.
 */
import type { ReadsResult } from '../../workers/train-protocol.ts';

const rate = (x: number): string => x.toFixed(3);

/** "Fresh success: 0.600 before GRPO (the control) → 0.650 after; fixed-answer ceiling 0.2067." */
export function readsSuccessText(r: ReadsResult): string {
  return `Fresh success: ${rate(r.before.success)} before GRPO (the control) → ${rate(r.after.success)} after; fixed-answer ceiling ${r.ceiling.toFixed(4)}.`;
}

/** Copying and answering, before → after, with the run's seed and size. */
export function readsDetailText(r: ReadsResult): string {
  return (
    `Answers that copy a value an observation showed: ${rate(r.before.copied)} → ${rate(r.after.copied)}; episodes that answered: ${rate(r.before.answered)} → ${rate(r.after.answered)}. ` +
    `Run seed ${r.runSeed}, ${r.after.episodes} fresh episodes (one sampled episode per question of databases no update saw).`
  );
}

/** Whether GRPO moved fresh success above both bars (the control and the ceiling). */
export function readsVerdict(r: ReadsResult): string {
  const aboveControl = r.after.success > r.before.success;
  const aboveCeiling = r.after.success > r.ceiling;
  if (aboveControl && aboveCeiling) return 'GRPO raised fresh success above the control and the ceiling.';
  if (aboveCeiling) return 'The model reads (above the ceiling), but GRPO did not add to the warm-up in this run.';
  return 'Fresh success is not above the ceiling: this run did not learn to read (try more steps).';
}
