/**
 * Reward parts, pure functions. Three named components per step, reported separately and summed with weights:
 *
 *   correctness_t = 1 when step t is an ANSWER the lenient verifier accepts, else 0
 *   progress_t    = Φ_t − Φ_{t−1},  Φ_t = best similarity (0..1) between any QUERY result so far and the gold
 *                   result, Φ_0 = 0. Potential-based: it sums to Φ_T ≤ 1 over an episode, and a query that does
 *                   not beat the best so far (a repeat included) earns exactly 0.
 *   operational_t = +0.02 for new information (first DESCRIBE/SAMPLE of a table, a QUERY whose result was not
 *                   seen before), −0.02 for repeating an earlier action, −0.05 for an error (invalid action,
 *                   unknown table, SQL error, refused or timed-out query), 0 otherwise (ANSWER, a new query with a
 *                   result already seen).
 *   reward_t      = w_c·correctness_t + w_p·progress_t + w_o·operational_t     (defaults w = 1, 0.2, 1)
 *
 * Bounds: correctness ∈ {0, 1} once per episode; progress_t ∈ [0, 1] and Σ progress ≤ 1; operational_t ∈
 * [−0.05, 0.02]. So an episode that never answers correctly returns at most w_p + w_o·0.02·budget, and the
 * configuration is refused unless that stays below w_c: shaping never pays more than a correct answer.
 */

export interface RewardWeights {
  correctness: number;
  progress: number;
  operational: number;
}

export const DEFAULT_REWARD_WEIGHTS: RewardWeights = { correctness: 1, progress: 0.2, operational: 1 };

export const OPERATIONAL = {
  newInformation: 0.02,
  nothingNew: 0,
  repeat: -0.02,
  error: -0.05,
} as const;

export type OperationalOutcome = keyof typeof OPERATIONAL;

export interface RewardComponents {
  correctness: number;
  progress: number;
  operational: number;
}

export function progressReward(bestBefore: number, bestAfter: number): number {
  return Math.max(0, bestAfter - bestBefore);
}

export function totalReward(components: RewardComponents, weights: RewardWeights): number {
  return weights.correctness * components.correctness + weights.progress * components.progress + weights.operational * components.operational;
}

/** The largest return an episode of `budget` steps can collect without a correct answer. */
export function maxReturnWithoutCorrectAnswer(weights: RewardWeights, budget: number): number {
  return weights.progress * 1 + Math.max(0, weights.operational) * OPERATIONAL.newInformation * budget;
}

export class RewardConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RewardConfigError';
  }
}

export function validateRewardWeights(weights: RewardWeights, budget: number): void {
  for (const [name, w] of Object.entries(weights)) {
    if (!Number.isFinite(w) || w < 0) throw new RewardConfigError(`Reward weight '${name}' must be a finite number ≥ 0, got ${w}.`);
  }
  const shaping = maxReturnWithoutCorrectAnswer(weights, budget);
  if (weights.correctness <= shaping) {
    throw new RewardConfigError(
      `With these weights an episode without a correct answer could return ${shaping.toFixed(3)}, as much as a correct answer (${weights.correctness}). Raise the correctness weight above ${shaping.toFixed(3)} or lower progress/operational.`,
    );
  }
}
