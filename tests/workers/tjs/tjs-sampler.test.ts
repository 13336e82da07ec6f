/**
 * The seeded token choice of the transformers.js backend, on random logits (seeded anew each run, seed printed):
 * greedy is the argmax with its float64 log-softmax; one seed gives one sequence of picks; top-p keeps the smallest
 * nucleus (a tiny top-p is greedy); and at temperature T the picks follow softmax(x/T) (a frequency check against
 * the float64 probabilities).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/data/rng.ts';
import { pickToken } from '../../../src/workers/tjs/tjs-sampler.ts';
import { testSeed } from '../../fixtures/seed.ts';

const seed = testSeed('tests/workers/tjs/tjs-sampler.test.ts');

function randomLogits(n: number, s: number): Float32Array {
  const rng = createRng(s);
  return Float32Array.from({ length: n }, () => (rng.next() - 0.5) * 8);
}

/** float64 softmax(x / t). */
function softmax(x: ArrayLike<number>, t: number): number[] {
  const xs = Array.from(x, (v) => v / t);
  const m = Math.max(...xs);
  const e = xs.map((v) => Math.exp(v - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

describe('pickToken', () => {
  it('is the argmax at temperature 0, with its log-softmax', () => {
    const logits = randomLogits(500, seed);
    let arg = 0;
    logits.forEach((v, i) => {
      if (v > logits[arg]) arg = i;
    });
    const p = pickToken(logits, 0, 0.8, createRng(1));
    expect(p.token).toBe(arg);
    expect(p.logProb).toBeCloseTo(Math.log(softmax(logits, 1)[arg]), 5);
  });

  it('gives the same picks for the same seed', () => {
    const logits = randomLogits(300, seed + 1);
    const run = (s: number) => {
      const rng = createRng(s);
      return Array.from({ length: 20 }, () => pickToken(logits, 0.9, 0.95, rng).token);
    };
    expect(run(seed)).toEqual(run(seed));
  });

  it('keeps only the nucleus: a tiny top-p always takes the most likely token', () => {
    const logits = randomLogits(200, seed + 2);
    const top = pickToken(logits, 0, 1, createRng(0)).token;
    const rng = createRng(seed);
    for (let i = 0; i < 50; i++) expect(pickToken(logits, 1, 1e-6, rng).token).toBe(top);
  });

  it('samples softmax(x / T): frequencies match the float64 probabilities', () => {
    const logits = randomLogits(6, seed + 3);
    const T = 0.7;
    const probs = softmax(logits, T);
    const rng = createRng(seed);
    const N = 20000;
    const counts = new Array<number>(6).fill(0);
    for (let i = 0; i < N; i++) {
      const p = pickToken(logits, T, 1, rng);
      counts[p.token]++;
      expect(p.logProb).toBeCloseTo(Math.log(probs[p.token]), 4);
    }
    // Each frequency within 5 standard deviations of its binomial expectation.
    counts.forEach((c, i) => expect(Math.abs(c - N * probs[i])).toBeLessThan(5 * Math.sqrt(N * probs[i] * (1 - probs[i])) + 1));
  });
});
