/**
 * Reward parts, pure functions (environment v2). Three named components per step, reported separately and summed
 * with weights w = (w_c, w_p, w_o):
 *
 *   Along the way (every step that does not end the episode with a correct ANSWER):
 *     correctness_t = 0
 *     progress_t    = Φ_t − Φ_{t−1}, Φ_t = best similarity so far (0..1) between the gold result and a QUERY result
 *                     that READ THE DATABASE (it differs from the same statement's result on an empty copy of the
 *                     database) with the cells the statement wrote as literals blanked; Φ_0 = 0. It telescopes and
 *                     a query that does not beat the best so far (a repeat included) earns exactly 0.
 *     operational_t = +0.02 new information: the first DESCRIBE/SAMPLE of a table the question's gold SQL reads,
 *                           a QUERY that read the database and gave a result not seen before
 *                      0    nothing new: another table, a result already seen, a query that read no rows
 *                           (`SELECT 5`), a wrong ANSWER
 *                     −0.02 a repeat (actions compared after normalising case, spacing, quoting and `AS`)
 *                     −0.05 an error (invalid action, unknown table, SQL error, refused or timed-out query)
 *   Settlement, on the step that answers correctly (step L of the episode):
 *     correctness_L = 1
 *     progress_L    = −Φ_{L−1}                                  (the potential is cleared: Σ progress = 0)
 *     operational_L = −Σ_{t<L} operational_t − STEP_COST·(L−1)  (shaping refunded, a cost per extra step)
 *
 *   reward_t = w_c·correctness_t + w_p·progress_t + w_o·operational_t
 *
 * So a correct episode of L steps returns exactly   C(L) = w_c − w_o·STEP_COST·(L − 1),
 * and an episode without a correct answer returns   F = w_p·Φ_T + w_o·Σ_t operational_t  ≤ w_p + w_o·0.02·budget.
 *
 * The properties (README "Rewards"; `rewardPropertyViolations` checks a weight setting, tests/env check trajectories):
 *   1. Correct dominates: min C = C(budget) > max F, enforced for every accepted weight setting.
 *   2. No pay for padding: inserting an action into a correct episode makes it longer, and C is non-increasing.
 *      Content-free steps (a query that reads no rows, a literal guess, a repeat, an invalid action) earn ≤ 0 and
 *      never progress.
 *   3. Earlier is better: C(L) is non-increasing in L (strictly when w_o > 0).
 *   4. Progress only from the database, potential-based (Ng, Harada & Russell 1999): along the way it telescopes,
 *      and it is cleared when the episode succeeds, so shaping cannot change which behaviour is best (answering
 *      correctly in the fewest steps); it only orders the episodes that end without a correct answer.
 *   5. Dense signal: among failures, reading the gold SQL's tables and getting closer to the gold result pay.
 */

export interface RewardWeights {
  correctness: number;
  progress: number;
  operational: number;
}

export const DEFAULT_REWARD_WEIGHTS: RewardWeights = { correctness: 1, progress: 0.2, operational: 1 };

/** Operational reward of a step by outcome, unweighted. */
export const OPERATIONAL = {
  newInformation: 0.02,
  nothingNew: 0,
  repeat: -0.02,
  error: -0.05,
} as const;

/** Operational cost of each step a correct episode takes beyond its first (charged at the settlement). */
export const STEP_COST = 0.01;

export type OperationalOutcome = keyof typeof OPERATIONAL;

export interface RewardComponents {
  correctness: number;
  progress: number;
  operational: number;
}

/** Progress of a step that does not succeed: the rise of the potential Φ (never negative; Φ only grows). */
export function progressReward(potentialBefore: number, potentialAfter: number): number {
  return Math.max(0, potentialAfter - potentialBefore);
}

/**
 * The components of the step that answers correctly, as step `length` of an episode whose earlier steps had
 * potential `potentialBefore` and summed operational reward `operationalSoFar`: shaping is settled so the episode's
 * components sum to (1, 0, −STEP_COST·(length − 1)).
 */
export function settlementComponents(length: number, potentialBefore: number, operationalSoFar: number): RewardComponents {
  return { correctness: 1, progress: -potentialBefore, operational: -operationalSoFar - STEP_COST * (length - 1) };
}

export function totalReward(components: RewardComponents, weights: RewardWeights): number {
  return weights.correctness * components.correctness + weights.progress * components.progress + weights.operational * components.operational;
}

/** C(L): what every correct episode of `length` steps returns. */
export function correctEpisodeReturn(weights: RewardWeights, length: number): number {
  return weights.correctness - weights.operational * STEP_COST * (length - 1);
}

/** The largest return an episode of at most `budget` steps can collect without a correct answer. */
export function maxReturnWithoutCorrectAnswer(weights: RewardWeights, budget: number): number {
  return weights.progress * 1 + weights.operational * OPERATIONAL.newInformation * budget;
}

/** The smallest return of a correct episode within `budget` steps: C(budget). */
export function minCorrectReturn(weights: RewardWeights, budget: number): number {
  return correctEpisodeReturn(weights, budget);
}

export class RewardConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RewardConfigError';
  }
}

/**
 * Which of the reward properties a weight setting breaks at this step budget, as sentences with a fix; empty when
 * it keeps them all. Negative weights would turn penalties into pay (content-free actions earning) and make later
 * correct answers worth more; a correctness weight at or below the best failure breaks "correct dominates".
 */
export function rewardPropertyViolations(weights: RewardWeights, budget: number): string[] {
  const out: string[] = [];
  for (const [name, w] of Object.entries(weights)) {
    if (!Number.isFinite(w) || w < 0) out.push(`Reward weight '${name}' must be a finite number ≥ 0, got ${w}: a negative weight pays for errors, repeats or stalling.`);
  }
  if (!Number.isInteger(budget) || budget < 1) out.push(`The step budget must be a whole number ≥ 1, got ${budget}.`);
  if (out.length > 0) return out;
  const worstCorrect = minCorrectReturn(weights, budget);
  const bestFailure = maxReturnWithoutCorrectAnswer(weights, budget);
  if (worstCorrect <= bestFailure) {
    out.push(
      `With these weights and ${budget} steps an episode without a correct answer could return ${bestFailure.toFixed(3)}, as much as a correct answer in ${budget} steps (${worstCorrect.toFixed(3)}). Raise the correctness weight above ${(bestFailure + weights.operational * STEP_COST * (budget - 1)).toFixed(3)} or lower progress/operational.`,
    );
  }
  return out;
}

/** Throws `RewardConfigError` naming every property the weights break (see `rewardPropertyViolations`). */
export function validateRewardWeights(weights: RewardWeights, budget: number): void {
  const violations = rewardPropertyViolations(weights, budget);
  if (violations.length > 0) throw new RewardConfigError(violations.join(' '));
}
