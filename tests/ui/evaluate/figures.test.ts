/**
 * The Evaluate view's pure helpers: histogram bins (nice widths, edges, every value counted once), durations and
 * the time-left estimate.
 */
import { describe, expect, it } from 'vitest';
import { binDigits, duration, histogram, percent, remainingMs } from '../../../src/ui/evaluate/figures.ts';

describe('histogram', () => {
  it('counts every value once, in bins of a nice width with edges on its multiples', () => {
    const values = [-0.07, 0, 0.02, 0.1, 0.3, 1.04, 1.25, 1.25];
    const bins = histogram(values, 20);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(values.length);
    expect(bins[1].from - bins[0].from).toBeCloseTo(0.1, 12);
    expect(bins[0].from).toBe(-0.1);
    expect(bins.at(-1)?.to).toBe(1.3);
    expect(bins.find((b) => b.from === 0.1)?.count).toBe(1);
    expect(bins.find((b) => b.from === 0.3)?.count).toBe(1);
    expect(bins.find((b) => b.from === 1.2)?.count).toBe(2);
  });

  it.each([
    [[], 0],
    [[0.5], 1],
    [[1, 1, 1], 1],
  ])('handles %j', (values, bins) => {
    const result = histogram(values);
    expect(result).toHaveLength(bins);
    expect(result.reduce((n, b) => n + b.count, 0)).toBe(values.length);
  });

  it('keeps bins at least minWidth wide, with enough decimals to tell edges apart', () => {
    const oracle = [1.24, 1.24, 1.26, 1.28, 1.3];
    const bins = histogram(oracle, 16, 0.01);
    expect(bins.map((b) => b.from)).toEqual([1.24, 1.25, 1.26, 1.27, 1.28, 1.29, 1.3]);
    expect(binDigits(bins)).toBe(2);
    expect(binDigits(histogram([0, 1], 10))).toBe(1);
    expect(binDigits(histogram([0, 0.05], 10))).toBe(3);
  });

  it('never makes more bins than asked', () => {
    const values = Array.from({ length: 100 }, (_, i) => i * 0.037 - 1);
    for (const maxBins of [5, 10, 20]) expect(histogram(values, maxBins).length).toBeLessThanOrEqual(maxBins + 1);
  });
});

describe('formats', () => {
  it.each([
    [0, '0%'],
    [1, '100%'],
    [0.05, '5.0%'],
    [2 / 3, '66.7%'],
  ])('percent(%s) = %s', (rate, text) => expect(percent(rate)).toBe(text));

  it.each([
    [850, '850 ms'],
    [12_345, '12.3 s'],
    [245_000, '4 min 05 s'],
  ])('duration(%s) = %s', (ms, text) => expect(duration(ms)).toBe(text));
});

describe('remainingMs', () => {
  it('extrapolates the pace so far and counts down between reports', () => {
    expect(remainingMs(0, 20, 0, 0, 500)).toBeNull();
    expect(remainingMs(5, 20, 0, 1000, 1000)).toBe(3000);
    expect(remainingMs(5, 20, 0, 1000, 1500)).toBe(2500);
    expect(remainingMs(5, 20, 0, 1000, 9000)).toBe(0);
    expect(remainingMs(20, 20, 0, 4000, 4000)).toBe(0);
  });
});
