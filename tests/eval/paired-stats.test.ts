/**
 * Paired statistics of two runs: McNemar's exact p against values worked out by hand and against the binomial
 * formula computed exactly with BigInt (a different computation from the code's log-space sum); the bootstrap
 * interval's coverage of a known true difference at its nominal rate in a seeded simulation (seed drawn per run and
 * printed); pairing, warnings and plain words on hand-made runs.
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/data/rng.ts';
import type { Difficulty } from '../../src/data/types.ts';
import { compareWithStats, formatP, mcnemarExactP, pairedBootstrapInterval, successWords, summaryWords } from '../../src/eval/paired-stats.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { testSeed } from '../fixtures/seed.ts';

/** 2 · Σ_{i ≤ min(b,c)} C(n, i) / 2^n, capped at 1, in exact integers then one division. */
function exactP(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let term = 1n;
  let sum = 0n;
  for (let i = 0; i <= Math.min(b, c); i++) {
    sum += term;
    term = (term * BigInt(n - i)) / BigInt(i + 1);
  }
  // 2·sum / 2^n: keep sum's leading 60 bits as the mantissa and put the rest in the power of two.
  const twice = 2n * sum;
  const shift = Math.max(0, twice.toString(2).length - 60);
  const mantissa = Number(twice >> BigInt(shift));
  return Math.min(1, mantissa * 2 ** (shift - n));
}

describe('mcnemarExactP', () => {
  it.each([
    // [b, c, p by hand]
    [0, 0, 1], // no discordant question: no evidence
    [3, 3, 1], // 2 · P(X ≤ 3), n = 6, is 2 · 42/64 > 1
    [1, 6, (2 * (1 + 7)) / 128], // n = 7: C(7,0) + C(7,1) = 8
    [0, 6, 2 / 64], // n = 6: 2 · 1/64 = 0.03125
    [6, 0, 2 / 64], // symmetric in b and c
    [2, 10, (2 * (1 + 12 + 66)) / 4096], // n = 12: 158/4096 ≈ 0.0386
    [0, 1, 1], // 2 · 1/2
    [0, 5, 2 / 32], // 0.0625: five wins out of five is not yet p < 0.05
  ])('b = %i, c = %i gives p = %f', (b, c, p) => {
    expect(mcnemarExactP(b, c)).toBeCloseTo(p, 12);
  });

  it('matches the exact binomial formula on large tables, where 2^-n underflows a float', () => {
    for (const [b, c] of [
      [40, 60],
      [480, 520],
      [700, 1400],
      [1, 1200],
    ]) {
      const want = exactP(b, c);
      const got = mcnemarExactP(b, c);
      if (want < 1e-300) expect(got).toBeLessThan(1e-290);
      else expect(Math.abs(got - want) / want, `b=${b} c=${c}`).toBeLessThan(1e-9);
    }
  });

  it('refuses counts that are not whole and non-negative', () => {
    expect(() => mcnemarExactP(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExactP(1.5, 2)).toThrow(RangeError);
  });
});

function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

describe('pairedBootstrapInterval', () => {
  it('covers the true mean difference at its nominal 95% rate within sampling error', () => {
    const seed = testSeed('tests/eval/paired-stats.test.ts (bootstrap coverage)');
    const rng = createRng(seed);
    const trueDiff = 0.3;
    const simulations = 400;
    const n = 60;
    let covered = 0;
    for (let s = 0; s < simulations; s++) {
      // Skewed per-question differences (a shifted exponential plus noise) with mean exactly trueDiff.
      const d = Array.from({ length: n }, () => trueDiff + (-Math.log(1 - rng.next()) - 1) * 0.5 + 0.3 * normal(rng));
      const { low, high } = pairedBootstrapInterval(d, rng, 1000);
      if (low <= trueDiff && trueDiff <= high) covered++;
    }
    const rate = covered / simulations;
    // Binomial standard error at 0.95 with 400 runs is 0.011; the percentile bootstrap at n = 60 undercovers by
    // about a point, so the window is 3 standard errors plus 0.01 on the low side.
    console.log(`coverage ${covered}/${simulations} = ${rate.toFixed(3)} (nominal 0.95)`);
    expect(rate).toBeGreaterThan(0.95 - 3 * 0.011 - 0.01);
    expect(rate).toBeLessThan(0.95 + 3 * 0.011);
  });

  it('gives one interval for one seed, and [0, 0] with nothing to resample', () => {
    const d = [0.1, -0.4, 1, 0.25, 0];
    expect(pairedBootstrapInterval(d, createRng(7))).toEqual(pairedBootstrapInterval(d, createRng(7)));
    expect(pairedBootstrapInterval([], createRng(7))).toEqual({ low: 0, high: 0 });
    const constant = pairedBootstrapInterval([0.5, 0.5, 0.5], createRng(1));
    expect(constant.low).toBeCloseTo(0.5, 12);
    expect(constant.high).toBeCloseTo(0.5, 12);
  });
});

function record(questionId: string, success: boolean, episodeReturn: number, difficulty: Difficulty = 'easy', seed = 0): EpisodeRecord {
  return {
    policy: 'p',
    dataset: 'demo',
    questionId,
    dbId: 'library',
    question: questionId,
    difficulty,
    split: 'eval',
    seed,
    success,
    episodeReturn,
    components: { correctness: success ? 1 : 0, progress: 0, operational: 0 },
    steps: 0,
    terminated: true,
    truncated: false,
    transcript: [],
  };
}

describe('compareWithStats', () => {
  // 10 questions: 1 both, 1 only A, 6 only B, 2 neither; easy q0–q4, hard q5–q9.
  const outcomes: Array<[boolean, boolean]> = [
    [true, true],
    [true, false],
    [false, true],
    [false, true],
    [false, true],
    [false, true],
    [false, true],
    [false, true],
    [false, false],
    [false, false],
  ];
  const a = outcomes.map(([x], i) => record(`q${i}`, x, x ? 1 : 0, i < 5 ? 'easy' : 'hard'));
  const b = outcomes.map(([, y], i) => record(`q${i}`, y, y ? 1 : 0, i < 5 ? 'easy' : 'hard'));

  it('counts discordant questions, tests them, and says it in plain words', () => {
    const result = compareWithStats({ records: a }, { records: b }, { seed: 3 });
    expect(result.overall).toMatchObject({ questions: 10, onlyA: 1, onlyB: 6 });
    expect(result.overall.p).toBeCloseTo(0.125, 12);
    expect(result.overall.meanReturnDiff).toBeCloseTo(0.5, 12); // (6 − 1) / 10
    expect(successWords(result.overall)).toBe('+5 of 10, p = 0.13');
    expect(summaryWords(result.overall)).toContain('6 only B solved, 1 only A');
    expect(result.byDifficulty.easy).toMatchObject({ questions: 5, onlyA: 1, onlyB: 3 });
    expect(result.byDifficulty.hard).toMatchObject({ questions: 5, onlyA: 0, onlyB: 3 });
    expect(result.byDifficulty.medium).toBeUndefined();
    expect(result.warnings).toEqual([]);
    expect(result.overall.interval.low).toBeLessThanOrEqual(0.5);
    expect(result.overall.interval.high).toBeGreaterThanOrEqual(0.5);
  });

  it('warns when the questions, the seeds or the environment versions differ', () => {
    const b2 = [...b.slice(0, 8).map((r, i) => (i === 0 ? { ...r, seed: 9 } : r)), record('other', true, 1)];
    const result = compareWithStats({ records: a, envVersion: 2 }, { records: b2, envVersion: 3 });
    expect(result.overall.questions).toBe(8);
    expect(result.warnings.join('\n')).toContain('not over the same questions: 8 are compared; 2 only A played and 1 only B played');
    expect(result.warnings.join('\n')).toContain('1 of the 8 questions with different seeds');
    expect(result.warnings.join('\n')).toContain('environment v2 and run B under v3');
  });

  it('formats p-values as people read them', () => {
    expect([formatP(0.031), formatP(0.0039), formatP(0.0004), formatP(1), formatP(0.5)]).toEqual(['p = 0.03', 'p = 0.004', 'p < 0.001', 'p = 1', 'p = 0.50']);
  });
});
