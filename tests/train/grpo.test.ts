/**
 * GRPO's arithmetic (src/train/grpo.ts): group advantages (mean-centred, optional std scaling, zero-variance groups
 * → 0) and the token-level clipped PG + k3 KL loss, whose per-token gradient is checked against central finite
 * differences of the loss (h = 1e-6, relative error < 1e-6 away from the clip kinks).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { groupAdvantages, pgLoss, STD_EPS, type PgSettings } from '../../src/train/grpo.ts';

describe('groupAdvantages', () => {
  it('mean-centres, and with std scaling divides by the sample std (+1e-4)', () => {
    const r = [1, 0, 0, 0];
    expect(groupAdvantages(r, false).advantages).toEqual([0.75, -0.25, -0.25, -0.25]);
    const std = Math.sqrt((0.75 ** 2 + 3 * 0.25 ** 2) / 3);
    const scaled = groupAdvantages(r, true).advantages;
    expect(scaled[0]).toBeCloseTo(0.75 / (std + STD_EPS), 12);
    expect(scaled[1]).toBeCloseTo(-0.25 / (std + STD_EPS), 12);
    expect(scaled.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12);
  });

  it('gives zero advantages to a group whose rewards are all equal', () => {
    for (const scaling of [true, false]) {
      const g = groupAdvantages([0.3, 0.3, 0.3], scaling);
      expect(g.zeroVariance).toBe(true);
      expect(g.advantages).toEqual([0, 0, 0]);
    }
    expect(groupAdvantages([0.3, 0.31], true).zeroVariance).toBe(false);
  });
});

function randomTokens(n: number, seed: number, spread: number) {
  const rng = createRng(seed);
  const u = () => rng.next() * 2 - 1;
  const logProbs = Array.from({ length: n }, () => -1 - rng.next() * 3);
  return {
    logProbs,
    oldLogProbs: logProbs.map((lp) => lp + spread * u()),
    advantages: Array.from({ length: n }, () => 2 * u()),
    refLogProbs: logProbs.map((lp) => lp + 0.5 * u()),
  };
}

describe('pgLoss', () => {
  const settings: PgSettings = { clipEpsLow: 0.2, clipEpsHigh: 0.28, klBeta: 0.3 };

  it('has the gradient of its loss (finite differences), with clipping and KL active', () => {
    const tokens = randomTokens(40, 1, 0.6);
    const N = 57; // the batch's token count: these 40 are one micro-batch of it
    const base = pgLoss(tokens, settings, N);
    expect(base.clipped).toBeGreaterThan(3); // the spread puts some ratios outside the clip range
    expect(base.clipped).toBeLessThan(37);
    const h = 1e-6;
    for (let t = 0; t < 40; t++) {
      const r = Math.exp(tokens.logProbs[t] - tokens.oldLogProbs[t]);
      if (Math.abs(r - 0.8) < 1e-3 || Math.abs(r - 1.28) < 1e-3) continue; // a kink
      const at = (d: number) => pgLoss({ ...tokens, logProbs: tokens.logProbs.map((lp, i) => (i === t ? lp + d : lp)) }, settings, N).loss;
      const fd = (at(h) - at(-h)) / (2 * h);
      expect(Math.abs(base.grad[t] - fd)).toBeLessThan(1e-6 * Math.max(1, Math.abs(fd)) + 1e-7); // grad is f32
    }
  });

  it('zeroes the gradient exactly where the clipped branch is the minimum', () => {
    const s = { ...settings, klBeta: 0 };
    const lp = Math.log(0.5);
    // r = 1.5 > 1.28 with A > 0: clipped; r = 1.5 with A < 0: not clipped; r = 0.5 < 0.8 with A < 0: clipped.
    const r = pgLoss({ logProbs: [lp, lp, lp], oldLogProbs: [lp - Math.log(1.5), lp - Math.log(1.5), lp - Math.log(0.5)], advantages: [1, -1, -1] }, s, 3);
    expect(r.grad[0]).toBe(0);
    expect(r.grad[1]).toBeCloseTo((1 * 1.5) / 3, 6);
    expect(r.grad[2]).toBe(0);
    expect(r.clipped).toBe(2);
    expect(r.loss).toBeCloseTo((-1.28 + 1.5 + 0.8) / 3, 12);
  });

  it('is −A/N per token on-policy (ratio 1) without KL, and its KL is 0 at the reference', () => {
    const lp = [-1, -2, -3];
    const r = pgLoss({ logProbs: lp, oldLogProbs: lp, advantages: [2, -1, 0], refLogProbs: lp }, { ...settings, klBeta: 0.5 }, 4);
    expect(Array.from(r.grad)).toEqual([-0.5, 0.25, 0]);
    expect(r.klSum).toBe(0);
    expect(r.loss).toBeCloseTo(-(2 - 1) / 4, 12);
  });

  it('adds up over micro-batches to the whole batch (same N)', () => {
    const tokens = randomTokens(30, 2, 0.4);
    const whole = pgLoss(tokens, settings, 30);
    const slice = (a: number, b: number) => ({
      logProbs: tokens.logProbs.slice(a, b),
      oldLogProbs: tokens.oldLogProbs.slice(a, b),
      advantages: tokens.advantages.slice(a, b),
      refLogProbs: tokens.refLogProbs.slice(a, b),
    });
    const p1 = pgLoss(slice(0, 11), settings, 30);
    const p2 = pgLoss(slice(11, 30), settings, 30);
    expect(p1.loss + p2.loss).toBeCloseTo(whole.loss, 12);
    expect([...p1.grad, ...p2.grad]).toEqual(Array.from(whole.grad));
  });

  it('refuses inconsistent inputs', () => {
    expect(() => pgLoss({ logProbs: [1], oldLogProbs: [], advantages: [1] }, settings, 1)).toThrow(RangeError);
    expect(() => pgLoss({ logProbs: [1], oldLogProbs: [1], advantages: [1] }, settings, 1)).toThrow(/reference/);
    expect(() => pgLoss({ logProbs: [], oldLogProbs: [], advantages: [], refLogProbs: [] }, settings, 0)).toThrow(/no loss tokens/);
  });
});
