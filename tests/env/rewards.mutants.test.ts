/**
 * Cases that kill the mutants Stryker found surviving in src/env/rewards.ts (docs/mutation.md). Every expected value
 * is worked out by hand here from the v3 rules (a step costs 1/100; C(L) = w_c − w_o·(L−1)/100; the best failure is
 * max(−w_o/100, w_p − w_o·min(budget, 2)/100)), never by calling the module.
 */
import { describe, expect, it } from 'vitest';
import { RewardConfigError, totalReward, validateRewardWeights } from '../../src/env/rewards.ts';

describe('rewards.ts, mutation survivors', () => {
  it('weights a correctness component of 0 as 0 (not w_c / 0)', () => {
    // 2·0 + 0.2·0.5 + 1·(−0.05) = 0.05
    expect(totalReward({ correctness: 0, progress: 0.5, operational: -0.05 }, { correctness: 2, progress: 0.2, operational: 1 })).toBeCloseTo(0.05, 12);
  });

  it('names its error class, so it survives a worker boundary by name', () => {
    expect(new RewardConfigError('x').name).toBe('RewardConfigError');
  });

  it('prints the figures of a refused setting and the correctness weight that would fix it', () => {
    // w = (1, 1.2, 1), budget 10: best failure = max(−0.01, 1.2 − 0.02) = 1.18; worst correct = 1 − 0.09 = 0.91;
    // a correct answer in 10 steps beats 1.18 once w_c − 0.09 > 1.18, i.e. w_c > 1.27.
    let message = '';
    try {
      validateRewardWeights({ correctness: 1, progress: 1.2, operational: 1 }, 10);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'With these weights and 10 steps an episode without a correct answer could return 1.180, at least as much as a correct answer in 10 steps (0.910). Raise the correctness weight above 1.270 or lower progress/operational.',
    );
  });

  it('joins several violations into one sentence-separated message', () => {
    expect(() => validateRewardWeights({ correctness: 1, progress: -1, operational: 1 }, 0)).toThrow(
      "Reward weight 'progress' must be a finite number ≥ 0, got -1: a negative weight pays for errors, repeats or stalling. The step budget must be a whole number ≥ 1, got 0.",
    );
  });
});
