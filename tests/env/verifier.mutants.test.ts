/**
 * Cases that kill the mutants Stryker found surviving or uncovered in src/env/verifier.ts (docs/mutation.md). The
 * expected values are the documented contract (valueKey's key format) or hand-counted bags.
 */
import { describe, expect, it } from 'vitest';
import { sameBag, valueKey } from '../../src/env/verifier.ts';

describe('verifier.ts, mutation survivors', () => {
  it("keys NULL as 'null', its documented key, apart from the text 'null' and the empty text", () => {
    expect(valueKey(null)).toBe('null');
    expect(valueKey('null')).toBe('s:null');
    expect(valueKey('')).toBe('s:');
  });

  it('compares bags by count: a longer list is never the same bag as its prefix', () => {
    expect(sameBag(['x', 'y'], ['x'])).toBe(false);
    expect(sameBag(['x'], ['x', 'x'])).toBe(false);
    expect(sameBag(['x', 'y', 'x'], ['x', 'x', 'y'])).toBe(true);
  });
});
