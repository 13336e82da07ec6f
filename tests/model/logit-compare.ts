/** Comparing logits between runtimes (the ONNX export tests): the largest difference, and the top token's margin. */
import { expect } from 'vitest';

/** Largest |a[i] − b[i]| (the lengths must agree). */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Index of the largest value and its margin over the second largest. */
export function top2(logits: ArrayLike<number>): { index: number; margin: number } {
  let a = -Infinity;
  let b = -Infinity;
  let index = 0;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i] > a) [b, a, index] = [a, logits[i], i];
    else if (logits[i] > b) b = logits[i];
  }
  return { index, margin: a - b };
}
