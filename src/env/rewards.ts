/**
 * Reward parts, pure functions (environment v3). Three named components per step, reported separately and summed
 * with weights w = (w_c, w_p, w_o):
 *
 *   Along the way (every step that does not end the episode with a correct ANSWER):
 *     correctness_t = 0
 *     progress_t    = Φ_t − Φ_{t−1}, Φ_t = best closeness so far (0..1) of a QUERY or SAMPLE result to the gold;
 *                     Φ_0 = 0. closeness = min over the database and its perturbed copies of similarity(result_c,
 *                     gold_c), gold_c = the gold SQL run on copy c (closeness.ts). It telescopes; a step that does not
 *                     beat the best so far (a repeat included) earns exactly 0.
 *     operational_t = −STEP_COST (−0.01) every step: DESCRIBE, SAMPLE, QUERY, a wrong ANSWER
 *                     −0.02 a repeat (actions compared after normalising case, spacing, quoting and `AS`)
 *                     −0.05 an error (invalid action, unknown table, SQL error, refused or timed-out query)
 *   Settlement, on the step that answers correctly (step L of the episode):
 *     correctness_L = 1
 *     progress_L    = −Φ_{L−1}                                  (the potential is cleared: Σ progress = 0)
 *     operational_L = −Σ_{t<L} operational_t − STEP_COST·(L−1)  (penalties refunded, a cost per extra step)
 *
 *   reward_t = w_c·correctness_t + w_p·progress_t + w_o·operational_t
 *
 * So a correct episode of L steps returns exactly   C(L) = w_c − w_o·STEP_COST·(L − 1),
 * and an episode without a correct answer returns   F = w_p·Φ_T + w_o·Σ_t operational_t, with every operational_t
 * ≤ −STEP_COST: nothing is paid for activity.
 *
 * The properties (docs/rewards.md argues each; `rewardPropertyViolations` checks a weight setting exactly; tests/env
 * check trajectories):
 *   1. Correct dominates: min C = C(budget) > max F, checked in exact rational arithmetic for every accepted setting.
 *   2. Progress only from the database's content: a result earns closeness only as far as it agrees with the gold
 *      on the database and on every perturbed copy, so a literal (any spelling), connection state or randomness
 *      earns nothing by construction; the gold SQL run verbatim earns 1.
 *   3. No pay for activity: every step costs; content-free, repeated and invalid actions never raise a return.
 *   4. Answering never loses to stalling: a wrong answer costs one step and keeps Φ, and any continuation costs at
 *      least one step, so answering now ≥ any continuation that never answers and gains no closeness.
 *   5. Earlier is better (C non-increasing in L) and no pay for padding (an inserted step makes L larger).
 */

export interface RewardWeights {
  correctness: number;
  progress: number;
  operational: number;
}

export const DEFAULT_REWARD_WEIGHTS: RewardWeights = { correctness: 1, progress: 0.2, operational: 1 };

/** What every step costs (operationally), and what a correct episode is charged per step beyond its first. */
export const STEP_COST = 0.01;

/** Operational reward of a step by outcome, unweighted: every step costs, repeats and errors cost more. */
export const OPERATIONAL = {
  step: -STEP_COST,
  repeat: -0.02,
  error: -0.05,
} as const;

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

/**
 * The largest return an episode of at most `budget` steps can collect without a correct answer (weights ≥ 0):
 * every failed episode takes at least one step; a wrong answer at step 1 has Φ = 0 (nothing was read yet), so Φ = 1
 * costs one step before an answer (two steps in all) or ends the episode at the budget:
 *   F_max = max(−w_o·c, w_p − w_o·c·min(budget, 2)),  c = STEP_COST.
 */
export function maxReturnWithoutCorrectAnswer(weights: RewardWeights, budget: number): number {
  return Math.max(-weights.operational * STEP_COST, weights.progress - weights.operational * STEP_COST * Math.min(budget, 2));
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

/** An exact rational n/d (d > 0). Every finite JS number is one with d a power of two. */
export interface Fraction {
  n: bigint;
  d: bigint;
}

/** `x` exactly: doubling a finite double is exact, and a non-integer double becomes an integer within 1,074 doublings. */
export function exactFraction(x: number): Fraction {
  let v = x;
  let shift = 0n;
  while (!Number.isInteger(v)) {
    v *= 2;
    shift++;
  }
  return { n: BigInt(v), d: 1n << shift };
}

const frac = (n: bigint, d: bigint): Fraction => ({ n, d });
const sub = (a: Fraction, b: Fraction): Fraction => frac(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Fraction, b: Fraction): Fraction => frac(a.n * b.n, a.d * b.d);
const greater = (a: Fraction, b: Fraction): boolean => a.n * b.d > b.n * a.d;
/** STEP_COST as the exact 1/100 it stands for (the double 0.01 is not exactly 1/100). */
const EXACT_STEP_COST = frac(1n, 100n);

/** C(budget) − F_max in exact arithmetic, as [numerator, denominator]: positive exactly when correct dominates. */
export function exactDominanceMargin(weights: RewardWeights, budget: number): Fraction {
  const wc = exactFraction(weights.correctness);
  const wp = exactFraction(weights.progress);
  const wo = exactFraction(weights.operational);
  const cost = (steps: number) => mul(wo, mul(EXACT_STEP_COST, frac(BigInt(steps), 1n)));
  const worstCorrect = sub(wc, cost(budget - 1));
  const answerAtOnce = sub(frac(0n, 1n), cost(1));
  const readThenFail = sub(wp, cost(Math.min(budget, 2)));
  const bestFailure = greater(answerAtOnce, readThenFail) ? answerAtOnce : readThenFail;
  return sub(worstCorrect, bestFailure);
}

/**
 * Which of the reward properties a weight setting breaks at this step budget, as sentences with a fix; empty when
 * it keeps them all. Negative weights would turn costs into pay and make later correct answers worth more; "correct
 * dominates" is decided exactly (exactDominanceMargin), so a tie at the edge is refused, not rounded either way.
 */
export function rewardPropertyViolations(weights: RewardWeights, budget: number): string[] {
  const out: string[] = [];
  for (const [name, w] of Object.entries(weights)) {
    if (!Number.isFinite(w) || w < 0) out.push(`Reward weight '${name}' must be a finite number ≥ 0, got ${w}: a negative weight pays for errors, repeats or stalling.`);
  }
  if (!Number.isInteger(budget) || budget < 1) out.push(`The step budget must be a whole number ≥ 1, got ${budget}.`);
  if (out.length > 0) return out;
  const margin = exactDominanceMargin(weights, budget);
  if (margin.n <= 0n) {
    const worstCorrect = minCorrectReturn(weights, budget);
    const bestFailure = maxReturnWithoutCorrectAnswer(weights, budget);
    out.push(
      `With these weights and ${budget} steps an episode without a correct answer could return ${bestFailure.toFixed(3)}, at least as much as a correct answer in ${budget} steps (${worstCorrect.toFixed(3)}). Raise the correctness weight above ${(bestFailure + weights.operational * STEP_COST * (budget - 1)).toFixed(3)} or lower progress/operational.`,
    );
  }
  return out;
}

/** Throws `RewardConfigError` naming every property the weights break (see `rewardPropertyViolations`). */
export function validateRewardWeights(weights: RewardWeights, budget: number): void {
  const violations = rewardPropertyViolations(weights, budget);
  if (violations.length > 0) throw new RewardConfigError(violations.join(' '));
}
