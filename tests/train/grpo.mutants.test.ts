/**
 * Cases that kill the mutants Stryker found surviving in src/train/grpo.ts (docs/mutation.md). Expected values are
 * worked out by hand from the formulas in grpo.ts's header (k3 KL, the clip rule, N), never by calling the module
 * on another input.
 */
import { describe, expect, it } from 'vitest';
import { groupAdvantages, lossNormaliser, pgLoss } from '../../src/train/grpo.ts';

describe('grpo.ts, mutation survivors', () => {
  it('N is the loss tokens for DAPO and episodes × the longest episode for Dr. GRPO', () => {
    expect(lossNormaliser('dapo', 17, 3, 9)).toBe(17);
    expect(lossNormaliser('dr_grpo', 17, 3, 9)).toBe(27);
    expect(() => lossNormaliser('bnpo' as 'dapo', 17, 3, 9)).toThrow(/unknown loss type bnpo/);
  });

  it('an empty group has no advantages and no signal', () => {
    expect(groupAdvantages([], true)).toEqual({ advantages: [], zeroVariance: true });
  });

  it('a group is "all equal" only when every reward is within 1e-9 of the mean (the bound included)', () => {
    // [−0.5, 0, 0.5]: one reward equals the mean, the others do not: a signal, A = r − mean.
    expect(groupAdvantages([-0.5, 0, 0.5], false)).toEqual({ advantages: [-0.5, 0, 0.5], zeroVariance: false });
    // [0, 2e-9]: mean 1e-9, each reward exactly 1e-9 from it (halving and this subtraction are exact in doubles).
    expect(groupAdvantages([0, 2e-9], true)).toEqual({ advantages: [0, 0], zeroVariance: true });
  });

  it('refuses per-token arrays of different lengths, and a reference of the wrong length, even without KL', () => {
    const noKl = { clipEpsLow: 0.2, clipEpsHigh: 0.2, klBeta: 0 };
    expect(() => pgLoss({ logProbs: [-1, -1], oldLogProbs: [-1], advantages: [1, 1] }, noKl, 2)).toThrow(/differ in length/);
    expect(() => pgLoss({ logProbs: [-1, -1], oldLogProbs: [-1, -1], advantages: [1] }, noKl, 2)).toThrow(/differ in length/);
    expect(() => pgLoss({ logProbs: [-1], oldLogProbs: [-1], advantages: [1], refLogProbs: [] }, { ...noKl, klBeta: 0.1 }, 1)).toThrow(/reference log-prob per token/);
  });

  it('counts a token as clipped only for A ≠ 0 strictly outside the range: on its edge the gradient flows, as torch.clamp passes it', () => {
    // r = e^0 = 1 exactly. With ε = 0 the range is [1, 1]: r sits on both edges, so nothing is clipped and
    // dL/dℓ = −A·r/N = −A/2.
    const edge = pgLoss({ logProbs: [0, 0], oldLogProbs: [0, 0], advantages: [1, -1] }, { clipEpsLow: 0, clipEpsHigh: 0, klBeta: 0 }, 2);
    expect(edge.clipped).toBe(0);
    expect(Array.from(edge.grad)).toEqual([-0.5, 0.5]);
    // A = 0 with r = e^1 (above 1 + ε) and r = e^−1 (below 1 − ε): no advantage, nothing clipped.
    const flat = pgLoss({ logProbs: [1, -1], oldLogProbs: [0, 0], advantages: [0, 0] }, { clipEpsLow: 0.2, clipEpsHigh: 0.2, klBeta: 0 }, 2);
    expect(flat.clipped).toBe(0);
  });

  it('reports the KL term β·Σkl/N and Σkl, and its gradient β(1 − e^d)/N, at a known distance from the reference', () => {
    // One on-policy token (r = 1, A = 0: no PG term), ℓ = −1, ℓ_ref = −1 + ln 2: d = ln 2, kl = e^d − d − 1 = 1 − ln 2.
    const kl = 1 - Math.LN2;
    const r = pgLoss({ logProbs: [-1], oldLogProbs: [-1], advantages: [0], refLogProbs: [-1 + Math.LN2] }, { clipEpsLow: 0.2, clipEpsHigh: 0.2, klBeta: 0.5 }, 2);
    expect(r.klSum).toBeCloseTo(kl, 12);
    expect(r.klLoss).toBeCloseTo((0.5 * kl) / 2, 12);
    expect(r.loss).toBeCloseTo((0.5 * kl) / 2, 12);
    // dL/dℓ = β·(1 − e^d)/N = 0.5·(1 − 2)/2 = −0.25
    expect(r.grad[0]).toBeCloseTo(-0.25, 6);
    expect(r.clipped).toBe(0);
  });
});
