/**
 * Reward formulas (rewards.ts) and the weight check. The expected side is computed here, independently of
 * rewards.ts: from the v3 rules as the issue states them (every step costs 1/100, a repeat 2/100, an error 5/100;
 * a wrong answer is a step; a correct episode of L steps returns w_c − w_o·(L−1)/100; Φ ≤ 1 needs a reading step),
 * by enumerating abstract episodes in exact rational arithmetic of our own. So a validator that rounds, forgets a
 * kind of failure or uses the wrong bound fails here.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import {
  correctEpisodeReturn,
  DEFAULT_REWARD_WEIGHTS,
  exactFraction,
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
import { testSeed } from '../fixtures/seed.ts';

/** An exact rational of our own: n/d with d > 0. */
type Q = [bigint, bigint];
/** A double exactly, by its IEEE-754 bits (independent of exactFraction's doubling loop). */
function q(x: number): Q {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = exp === 0 ? frac : frac | (1n << 52n);
  const e = (exp === 0 ? 1 : exp) - 1075;
  return e >= 0 ? [sign * mant * (1n << BigInt(e)), 1n] : [sign * mant, 1n << BigInt(-e)];
}
const plus = (a: Q, b: Q): Q => [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
const times = (a: Q, b: Q): Q => [a[0] * b[0], a[1] * b[1]];
const cmp = (a: Q, b: Q): number => Number(a[0] * b[1] - b[0] * a[1] > 0n) - Number(a[0] * b[1] - b[0] * a[1] < 0n);
const hundredths = (k: number): Q => [BigInt(k), 100n];

/** Kinds of step of a failed episode: a read that reaches Φ = 1, a plain step, a repeat, an error. */
const STEP_KINDS: Array<{ cost: number; reads: boolean }> = [
  { cost: 1, reads: true },
  { cost: 1, reads: false },
  { cost: 2, reads: false },
  { cost: 5, reads: false },
];

/**
 * The best return over every failed episode of at most `budget` steps: every path of step kinds (4^budget of them)
 * walked breadth-first as the set of states (summed cost in hundredths, Φ reached) it can be in after each step.
 */
function bestFailure(w: RewardWeights, budget: number): Q {
  let best: Q | null = null;
  const value = (cost: number, phi: boolean): Q => plus(phi ? q(w.progress) : [0n, 1n], times(q(-w.operational), hundredths(cost)));
  const consider = (v: Q) => {
    if (best === null || cmp(v, best) > 0) best = v;
  };
  let states = new Map<string, [number, boolean]>([['0|false', [0, false]]]);
  for (let steps = 0; ; steps++) {
    // End here with a wrong answer (one more step, a plain cost), or by truncation when the budget is used up.
    for (const [cost, phi] of states.values()) consider(steps < budget ? value(cost + 1, phi) : value(cost, phi));
    if (steps === budget) break;
    const next = new Map<string, [number, boolean]>();
    for (const [cost, phi] of states.values()) {
      for (const kind of STEP_KINDS) next.set(`${cost + kind.cost}|${phi || kind.reads}`, [cost + kind.cost, phi || kind.reads]);
    }
    states = next;
  }
  if (best === null) throw new Error('no failure enumerated');
  return best;
}

function worstCorrect(w: RewardWeights, budget: number): Q {
  let worst: Q | null = null;
  for (let l = 1; l <= budget; l++) {
    const v = plus(q(w.correctness), times(q(-w.operational), hundredths(l - 1)));
    if (worst === null || cmp(v, worst) < 0) worst = v;
  }
  return worst as Q;
}

const validWeights = (w: RewardWeights): boolean => Object.values(w).every((x) => Number.isFinite(x) && x >= 0);

describe('reward parts', () => {
  it('progress along the way is the rise of the potential, never negative', () => {
    expect(progressReward(0, 0.4)).toBeCloseTo(0.4);
    expect(progressReward(0.4, 0.4)).toBe(0);
    expect(progressReward(0.4, 0.2)).toBe(0);
  });

  it('every step costs 0.01, a repeat 0.02, an error 0.05: nothing is paid for activity', () => {
    expect(OPERATIONAL).toEqual({ step: -0.01, repeat: -0.02, error: -0.05 });
    expect(STEP_COST).toBe(0.01);
  });

  it('the settlement clears the potential and refunds the operational reward, charging each extra step', () => {
    expect(settlementComponents(1, 0, 0)).toEqual({ correctness: 1, progress: -0, operational: -0 });
    const s = settlementComponents(5, 0.7, -0.06);
    expect(s.correctness).toBe(1);
    expect(s.progress).toBeCloseTo(-0.7);
    expect(s.operational).toBeCloseTo(0.06 - 4 * 0.01);
  });

  it('weights the components', () => {
    expect(totalReward({ correctness: 1, progress: 0.5, operational: -0.05 }, { correctness: 2, progress: 0.2, operational: 1 })).toBeCloseTo(2 + 0.1 - 0.05);
  });

  it('reads doubles exactly', () => {
    for (const x of [0, 1, 0.5, 0.1, 0.7, 1.5, 1e-300, 123456.789, 2 ** 60]) {
      const f = exactFraction(x);
      const [n, d] = q(x);
      expect(f.n * d).toBe(n * f.d);
    }
  });
});

describe('the weight check decides "correct dominates" exactly', () => {
  it('accepts the defaults and names what a bad setting breaks', () => {
    expect(() => validateRewardWeights(DEFAULT_REWARD_WEIGHTS, 10)).not.toThrow();
    expect(() => validateRewardWeights({ correctness: 1, progress: 1.2, operational: 1 }, 10)).toThrow(RewardConfigError);
    expect(() => validateRewardWeights({ correctness: 1, progress: -1, operational: 1 }, 10)).toThrow(/≥ 0/);
    expect(() => validateRewardWeights({ correctness: 1, progress: 0, operational: -0.1 }, 10)).toThrow(/pays for errors/);
    expect(() => validateRewardWeights({ correctness: Number.NaN, progress: 0, operational: 0 }, 10)).toThrow(/finite/);
    expect(() => validateRewardWeights({ correctness: 0, progress: 0, operational: 0 }, 10)).toThrow(RewardConfigError);
    expect(() => validateRewardWeights(DEFAULT_REWARD_WEIGHTS, 0)).toThrow(/budget/);
  });

  it("the issue's tie (1, 0.7, 1.5) at budget 7 is strictly ordered under v3, and exact ties are refused", () => {
    const issue = { correctness: 1, progress: 0.7, operational: 1.5 };
    expect(cmp(worstCorrect(issue, 7), bestFailure(issue, 7))).toBe(1);
    expect(rewardPropertyViolations(issue, 7)).toEqual([]);
    // Ties in exact arithmetic: w_c = w_p + w_o·(budget − 3)/100 (a read, then a wrong answer, against C(budget)).
    for (const [w, budget] of [
      [{ correctness: 1, progress: 1, operational: 1 }, 3],
      [{ correctness: 0.5, progress: 0.25, operational: 25 }, 4],
      [{ correctness: 0.75, progress: 0.5, operational: 12.5 }, 5],
    ] as const) {
      expect(cmp(worstCorrect(w, budget), bestFailure(w, budget)), JSON.stringify(w)).toBe(0);
      expect(rewardPropertyViolations(w, budget).length, JSON.stringify(w)).toBe(1);
    }
  });

  it('over random and 2-decimal-grid settings, accepts exactly those where every correct episode beats every failure', () => {
    const seed = testSeed('tests/env/rewards.test.ts (weight check)');
    const rng = createRng(seed);
    let accepted = 0;
    let refused = 0;
    const check = (w: RewardWeights, budget: number) => {
      const where = JSON.stringify({ seed, w, budget });
      const ok = rewardPropertyViolations(w, budget).length === 0;
      if (ok) accepted++;
      else refused++;
      if (!validWeights(w)) {
        expect(ok, where).toBe(false);
        return;
      }
      const worst = worstCorrect(w, budget);
      const best = bestFailure(w, budget);
      expect(ok, where).toBe(cmp(worst, best) > 0);
      // The figures the Help view and the refusal message print (C(L), min C, max F), against our own enumeration:
      // equal up to the rounding of a few double operations (the module computes in doubles, we in rationals).
      const near = (a: number, b: Q) => {
        const diff = plus(q(a), times(b, [-1n, 1n]));
        const size: Q = [diff[0] < 0n ? -diff[0] : diff[0], diff[1]];
        expect(cmp(size, [1n, 1_000_000_000n]), `${where}: ${a} vs ${Number(b[0] * 1_000_000n / b[1]) / 1e6}`).toBeLessThan(1);
      };
      for (let l = 1; l <= budget; l++) near(correctEpisodeReturn(w, l), plus(q(w.correctness), times(q(-w.operational), hundredths(l - 1))));
      near(minCorrectReturn(w, budget), worst);
      near(maxReturnWithoutCorrectAnswer(w, budget), best);
    };
    // 5,000 settings in all: 2,500 drawn anywhere (negative and non-finite-free), 2,500 on the 2-decimal grid.
    for (let i = 0; i < 2500; i++) {
      const budget = 1 + Math.floor(rng.next() * 5);
      check({ correctness: rng.next() * 1.5 - 0.1, progress: rng.next() * 1.5 - 0.1, operational: rng.next() * 40 - 1 }, budget);
      // The 2-decimal grid, where float ties live.
      const grid = () => Math.round(rng.next() * 200) / 100;
      check({ correctness: grid(), progress: grid(), operational: Math.round(rng.next() * 5000) / 100 }, budget);
    }
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });
});
