import { describe, expect, it } from 'vitest';
import { DEFAULT_REWARD_WEIGHTS, maxReturnWithoutCorrectAnswer, OPERATIONAL, progressReward, RewardConfigError, totalReward, validateRewardWeights } from '../../src/env/rewards.ts';

describe('reward parts', () => {
  it('progress is the improvement of the best similarity, never negative', () => {
    expect(progressReward(0, 0.4)).toBeCloseTo(0.4);
    expect(progressReward(0.4, 0.4)).toBe(0);
    expect(progressReward(0.4, 0.2)).toBe(0);
  });

  it('weights the components', () => {
    expect(totalReward({ correctness: 1, progress: 0.5, operational: -0.05 }, { correctness: 2, progress: 0.2, operational: 1 })).toBeCloseTo(2 + 0.1 - 0.05);
  });

  it('bounds what an episode without a correct answer can earn', () => {
    expect(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10)).toBeCloseTo(0.2 + 10 * OPERATIONAL.newInformation);
    expect(maxReturnWithoutCorrectAnswer(DEFAULT_REWARD_WEIGHTS, 10)).toBeLessThan(DEFAULT_REWARD_WEIGHTS.correctness);
  });

  it('refuses weights under which shaping could outpay a correct answer', () => {
    expect(() => validateRewardWeights(DEFAULT_REWARD_WEIGHTS, 10)).not.toThrow();
    expect(() => validateRewardWeights({ correctness: 1, progress: 1, operational: 1 }, 10)).toThrow(RewardConfigError);
    expect(() => validateRewardWeights({ correctness: 1, progress: 0.2, operational: 1 }, 50)).toThrow(/Raise the correctness weight/);
    expect(() => validateRewardWeights({ correctness: 1, progress: -1, operational: 1 }, 10)).toThrow(/≥ 0/);
    expect(() => validateRewardWeights({ correctness: Number.NaN, progress: 0, operational: 0 }, 10)).toThrow(/finite/);
  });
});
