/** Counts in words (src/ui/components/plural.ts): only one is singular, thousands get separators. */
import { describe, expect, it } from 'vitest';
import { plural } from '../../src/ui/components/plural.ts';

describe('plural', () => {
  it.each([
    [0, 'row', undefined, '0 rows'],
    [1, 'row', undefined, '1 row'],
    [2, 'step', undefined, '2 steps'],
    [-1, 'step', undefined, '-1 step'],
    [1.5, 'step', undefined, '1.5 steps'],
    [1200, 'question', undefined, '1,200 questions'],
    [1, 'micro-batch', 'micro-batches', '1 micro-batch'],
    [3, 'micro-batch', 'micro-batches', '3 micro-batches'],
  ])('plural(%d, %s, %s) is "%s"', (n, one, many, expected) => {
    expect(plural(n, one, many)).toBe(expected);
  });
});
