/**
 * Reward formulas (rewards.ts) and the weight check: the settlement makes a correct episode's return depend only on
 * its length, and `rewardPropertyViolations` accepts exactly the weight settings under which the properties hold.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import {
  correctEpisodeReturn,
  DEFAULT_REWARD_WEIGHTS,
  maxReturnWithoutCorrectAnswer,
  minCorrectReturn,
  OPERATIONAL,
  progressReward,
  RewardConfigError,
  rewardPropertyViolations,
  settlementComponents,
  STEP_COST,
  totalReward,
  validateRewardWeights,
  type RewardWeights,
} from '../../src/env/rewards.ts';

describe('reward parts', () => {
  it('progress along the way is the rise of the potential, never negative', () => {
    expect(progressReward(0, 0.4)).toBeCloseTo(0.4);
    expect(progressReward(0.4, 0.4)).toBe(0);
    expect(progressReward(0.4, 0.2)).toBe(0);
  });

  it('the settlement clears the potential and refunds the operational reward, charging each extra step', () => {
    expect(settlementComponents(1, 0, 0)).toEqual({ correctness: 1, progress: -0, operational: -0 });
    const s = settlementComponents(5, 0.7, 0.06);
    expect(s.correctness).toBe(1);
    expect(s.progress).toBeCloseTo(-0.7);
    expect(s.operational).toBeCloseTo(-0.06 - 4 * STEP_COST);
    // Whatever was paid before, the episode's components sum to (1, 0, −STEP_COST·(L−1)).
    expect(0.7 + s.progress).toBeCloseTo(0);
    expect(0.06 + s.operational).toBeCloseTo(-4 * STEP_COST);
  });

  it('weights the components', () => {
    expect(totalReward({ correctness: 1, progress: 0.5, operational: -0.05 }, { correctness: 2, progress: 0.2, operational: 1 })).toBeCloseTo(2 + 0.1 - 0.05);
  });

  it('bounds correct and failed episodes with the default weights', () => {
    expect(correctEpisodeReturn(DEFAULT_REWARD_WEIGHTS, 1)).toBe(1);
    expect(correctEpisodeReturn(DEFAULT_REWARD_WEIGHTS, 10)).toBeCloseTo(0.91);
    expect(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10)).toBeCloseTo(0.2 + 10 * OPERATIONAL.newInformation);
    expect(minCorrectReturn(DEFAULT_REWARD_WEIGHTS, 10)).toBeGreaterThan(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10));
  });
});

describe('the weight check enforces the properties', () => {
  it('accepts the defaults and names what a bad setting breaks', () => {
    expect(() => validateRewardWeights(DEFAULT_REWARD_WEIGHTS, 10)).not.toThrow();
    expect(() => validateRewardWeights({ correctness: 1, progress: 1, operational: 1 }, 10)).toThrow(RewardConfigError);
    expect(() => validateRewardWeights({ correctness: 1, progress: 0.2, operational: 1 }, 50)).toThrow(/Raise the correctness weight/);
    expect(() => validateRewardWeights({ correctness: 1, progress: -1, operational: 1 }, 10)).toThrow(/≥ 0/);
    expect(() => validateRewardWeights({ correctness: 1, progress: 0, operational: -0.1 }, 10)).toThrow(/pays for errors/);
    expect(() => validateRewardWeights({ correctness: Number.NaN, progress: 0, operational: 0 }, 10)).toThrow(/finite/);
    expect(() => validateRewardWeights({ correctness: 0, progress: 0, operational: 0 }, 10)).toThrow(RewardConfigError);
    expect(() => validateRewardWeights(DEFAULT_REWARD_WEIGHTS, 0)).toThrow(/budget/);
  });

  it('over random weight settings, accepted ones keep every property and refused ones break one', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`weight-check seed ${seed}`);
    const rng = createRng(seed);
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      const w: RewardWeights = { correctness: rng.next() * 3 - 0.2, progress: rng.next() * 2 - 0.2, operational: rng.next() * 4 - 0.2 };
      const budget = 1 + Math.floor(rng.next() * 40);
      const ok = rewardPropertyViolations(w, budget).length === 0;
      const nonNegative = w.correctness >= 0 && w.progress >= 0 && w.operational >= 0;
      // Property 1 by brute force over the extremes of each kind of episode.
      const correct = Array.from({ length: budget }, (_, l) => correctEpisodeReturn(w, l + 1));
      const bestFailure = w.progress * 1 + w.operational * OPERATIONAL.newInformation * budget;
      const dominates = Math.min(...correct) > bestFailure;
      // Property 3: C(L) non-increasing.
      const earlierBetter = correct.every((c, l) => l === 0 || c <= correct[l - 1]);
      expect(ok, JSON.stringify({ w, budget })).toBe(nonNegative && dominates && earlierBetter);
      if (ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
  });
});
