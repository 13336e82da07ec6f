/**
 * A reward as the weighted sum of its parts, for the screen: "reward +0.220 = 1 × correctness 0.000 + 0.2 × progress
 * 1.000 + 1 × operational 0.020". Pure (no React), so tests check it against the environment's own rewards.
 *
 * Weights: the environment's defaults (src/env/types.ts) unless the caller knows others. A reward that was computed
 * with other weights (a training run's) does not add up with these: `rewardEquation` then returns null and the
 * screen shows the parts without an equation rather than one that is wrong.
 */
import { totalReward, type RewardComponents, type RewardWeights } from '../../env/rewards.ts';

export const REWARD_PARTS = ['correctness', 'progress', 'operational'] as const satisfies ReadonlyArray<keyof RewardComponents>;

/** A number with its sign and 3 decimals: "+0.220", "−0.050"; zero (or what rounds to it) is "0.000", unsigned. */
export function signed(x: number): string {
  const text = Math.abs(x).toFixed(3);
  if (Number(text) === 0) return '0.000';
  return `${x > 0 ? '+' : '−'}${text}`;
}

/** A number with 3 decimals and a true minus sign, no plus: "0.220", "−0.050", "0.000". */
export function plain(x: number): string {
  const text = Math.abs(x).toFixed(3);
  return Number(text) === 0 || x > 0 ? text : `−${text}`;
}

/** A weight as people write it: 1, 0.2, 0.05 (up to 6 significant digits, no trailing zeros). */
export function weightText(w: number): string {
  return String(Number(w.toPrecision(6)));
}

export interface RewardTerm {
  part: (typeof REWARD_PARTS)[number];
  weight: number;
  value: number;
}

/** The three terms w_i × part_i, in the environment's order. */
export function rewardTerms(components: RewardComponents, weights: RewardWeights): RewardTerm[] {
  return REWARD_PARTS.map((part) => ({ part, weight: weights[part], value: components[part] }));
}

/** Whether `total` is the weighted sum of `components` under `weights` (to float rounding). */
export function addsUp(components: RewardComponents, weights: RewardWeights, total: number): boolean {
  return Math.abs(totalReward(components, weights) - total) <= 1e-9 * Math.max(1, Math.abs(total));
}

/**
 * The right-hand side of the equation, "1 × correctness 0.000 + 0.2 × progress 1.000 + 1 × operational (−0.050)",
 * or null when `total` was not computed with `weights`.
 */
export function rewardEquation(components: RewardComponents, weights: RewardWeights, total: number): string | null {
  if (!addsUp(components, weights, total)) return null;
  return rewardTerms(components, weights)
    .map(({ part, weight, value }) => {
      const v = plain(value);
      return `${weightText(weight)} × ${part} ${v.startsWith('−') ? `(${v})` : v}`;
    })
    .join(' + ');
}
