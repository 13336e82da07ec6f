/**
 * The sampler's counter-based RNG (src/gpu/kernels/sample-rng.ts) and the chi-square helpers of the GPU checks
 * (src/gpu-tests/stats.ts): golden pcg3d words (the GPU check compares its draws with these functions bit for bit),
 * uniformity of the draws along the step and along the sequence (chi-square, false-failure rate 1e-6 each), no
 * correlation between neighbouring keys, chi-square table values, and the sampler's parameter and key checks.
 */
import { describe, expect, it } from 'vitest';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { checkSamplingParams, packSampleKeys } from '../../src/gpu/kernels/sample.ts';
import { pcg3d, sampleUniform } from '../../src/gpu/kernels/sample-rng.ts';
import { referenceDistribution } from '../../src/gpu-tests/sample-ref.ts';
import { chiSquareCritical, chiSquareSurvival, chiSquareTest } from '../../src/gpu-tests/stats.ts';

describe('pcg3d sampler keys', () => {
  it('gives fixed words for fixed keys (golden), wrapping like u32', () => {
    // The GPU check (sample-vocab) finds the WGSL pcg3d's draws equal to sampleUniform's bit for bit.
    expect(pcg3d(1, 2, 3)).toEqual([0xfa9f79a6, 0x48f2f44c, 0x596f5ab1]);
    expect(pcg3d(0xffffffff, 0, 7)).toEqual([0x3cc3de4a, 0xc605f1cd, 0xa4d284e3]);
    expect(sampleUniform({ seed: 1, sequence: 2, step: 3 })).toBe((0xfa9f79a6 >>> 8) / 2 ** 24);
    for (const x of pcg3d(0xffffffff, 0xffffffff, 0xffffffff)) expect(Number.isInteger(x) && x >= 0 && x <= 0xffffffff).toBe(true);
  });

  for (const axis of ['step', 'sequence', 'seed'] as const) {
    it(`draws are uniform along the ${axis} (100,000 draws, 64 bins, chi-square at α = 1e-6)`, () => {
      const bins = new Array<number>(64).fill(0);
      const n = 100_000;
      for (let i = 0; i < n; i++) {
        const key = { seed: 42, sequence: 3, step: 9, [axis]: i };
        const u = sampleUniform(key);
        expect(u >= 0 && u < 1).toBe(true);
        bins[Math.floor(u * 64)]++;
      }
      const r = chiSquareTest(bins, new Array<number>(64).fill(1 / 64), 1e-6);
      expect(r.pass, `X² = ${r.statistic} ≥ ${r.critical}`).toBe(true);
    });
  }

  it('neighbouring steps are uncorrelated (|r| < 0.02 over 100,000 pairs)', () => {
    let sx = 0;
    let sxy = 0;
    let sxx = 0;
    const n = 100_000;
    let prev = sampleUniform({ seed: 1, sequence: 0, step: 0 });
    for (let i = 1; i <= n; i++) {
      const u = sampleUniform({ seed: 1, sequence: 0, step: i });
      sx += u;
      sxx += u * u;
      sxy += u * prev;
      prev = u;
    }
    const mean = sx / n;
    const r = (sxy / n - mean * mean) / (sxx / n - mean * mean);
    expect(Math.abs(r)).toBeLessThan(0.02);
  });
});

describe('chi-square helpers', () => {
  it('matches table values', () => {
    expect(chiSquareCritical(1, 0.05)).toBeCloseTo(3.841, 3);
    expect(chiSquareCritical(9, 0.01)).toBeCloseTo(21.666, 3);
    expect(chiSquareCritical(3, 1e-6)).toBeCloseTo(30.66, 2);
    expect(chiSquareSurvival(44.81, 9)).toBeCloseTo(1e-6, 7);
    expect(chiSquareSurvival(0, 4)).toBe(1);
  });

  it('merges bins that expect fewer than 5 draws and skips probability-0 bins', () => {
    const r = chiSquareTest([50, 30, 15, 3, 2, 0], [0.5, 0.3, 0.15, 0.03, 0.02, 0], 1e-6);
    expect(r.bins).toBe(4);
    expect(r.df).toBe(3);
    expect(r.statistic).toBeCloseTo(0, 10);
  });
});

describe('sampler parameters and the reference distribution', () => {
  it('rejects bad parameters and keys by name', () => {
    expect(() => checkSamplingParams({ temperature: -1 })).toThrow(GpuShapeError);
    expect(() => checkSamplingParams({ temperature: 1, topP: 0 })).toThrow(/topP/);
    expect(() => checkSamplingParams({ temperature: 1, topK: 1.5 })).toThrow(/topK/);
    expect(checkSamplingParams({ temperature: 0.7 })).toEqual({ temperature: 0.7, topP: 1, topK: 0 });
    expect(() => packSampleKeys([{ seed: -1, sequence: 0, step: 0 }])).toThrow(/seed/);
    expect([...packSampleKeys([{ seed: 5, sequence: 6, step: 7 }])]).toEqual([5, 6, 7, 0]);
  });

  it('cuts top-k and top-p as documented (ties at the cut kept)', () => {
    const logits = [3, 1, 2, 2, 0];
    expect(referenceDistribution(logits, { temperature: 0 }).q[0]).toBe(1);
    expect(referenceDistribution(logits, { temperature: 1, topK: 2 }).kept).toBe(3); // 3, and both 2s tie at the cut
    const p = referenceDistribution(logits, { temperature: 1, topP: 0.5 });
    expect(p.kept).toBe(1); // e^3 / Σ ≈ 0.61 ≥ 0.5
    expect(p.q[0]).toBe(1);
    const all = referenceDistribution(logits, { temperature: 2 });
    const z = logits.map((x) => Math.exp(x / 2));
    const s = z.reduce((a, b) => a + b);
    all.q.forEach((q, v) => expect(q).toBeCloseTo(z[v] / s, 12));
  });
});
