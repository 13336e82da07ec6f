/**
 * Result similarity (the progress reward's potential): golden values, bounds, 1 exactly on a strict match, and
 * sanity properties (supersets and subsets score below an exact result, more correct rows score higher, symmetry).
 */
import { describe, it, expect } from 'vitest';
import type { SqlValue } from '../../src/sql/types.ts';
import { executionMatch, type ResultTable } from '../../src/env/verifier.ts';
import { multisetF1, resultSimilarity } from '../../src/env/similarity.ts';
import { createRng } from '../../src/data/rng.ts';

const t = (rows: SqlValue[][]): ResultTable => ({ columns: (rows[0] ?? []).map((_, i) => `c${i}`), rows });

type Case = [name: string, pred: SqlValue[][], gold: SqlValue[][], orderMatters: boolean, expected: number];

const CASES: Case[] = [
  ['exact', [[1, 'a'], [2, 'b']], [[1, 'a'], [2, 'b']], false, 1],
  ['columns and rows permuted', [['b', 2], ['a', 1]], [[1, 'a'], [2, 'b']], false, 1],
  ['both empty', [], [], false, 1],
  ['empty pred, non-empty gold', [], [[1]], false, 0],
  ['non-empty pred, empty gold', [[1]], [], false, 0],
  ['nothing in common', [[3]], [[1], [2]], false, 0],
  ["'1' vs 1 share nothing", [['1']], [[1]], false, 0],
  // superset: cells 2·2/(3+2) = 0.8, rows 0.8 → 0.5·0.8 + 0.4·0.8
  ['superset', [[1], [2], [3]], [[1], [2]], false, 0.72],
  ['subset', [[1]], [[1], [2]], false, 0.5 * (2 / 3) + 0.4 * (2 / 3)],
  // every cell right, but no row right
  ['cells shuffled across rows', [[1, 'b'], [2, 'a']], [[1, 'a'], [2, 'b']], false, 0.5],
  // rows right in the wrong order: all F1 parts are 1, yet no strict match
  ['wrong order under ORDER BY', [[2], [1]], [[1], [2]], true, 0.9],
  ['per-row column swap', [[1, 2], [1, 2]], [[1, 2], [2, 1]], false, 0.9],
  // one column of two: cells 2·2/(2+4), rows 0
  ['missing a column', [[1], [2]], [[1, 'a'], [2, 'b']], false, 0.5 * (4 / 6)],
  ['duplicate lost', [[1], [2]], [[1], [1], [2]], false, 0.9 * (4 / 5)],
];

describe('resultSimilarity: golden values', () => {
  it.each(CASES)('%s', (_name, pred, gold, orderMatters, expected) => {
    expect(resultSimilarity(t(pred), t(gold), orderMatters)).toBeCloseTo(expected, 12);
  });
});

describe('multisetF1', () => {
  it.each([
    [[], [], 0],
    [['a'], [], 0],
    [['a', 'a'], ['a'], 2 / 3],
    [['a', 'b'], ['b', 'a'], 1],
  ])('%j vs %j', (a, b, expected) => {
    expect(multisetF1(a, b)).toBeCloseTo(expected, 12);
  });
});

/** Deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('resultSimilarity: properties on random tables', () => {
  const rand = rng(2024);
  const alphabet: SqlValue[] = [0, 1, 2, 'a', null];
  const table = (): SqlValue[][] => {
    const n = Math.floor(rand() * 4);
    const m = 1 + Math.floor(rand() * 3);
    return Array.from({ length: n }, () => Array.from({ length: m }, () => alphabet[Math.floor(rand() * alphabet.length)]));
  };
  const pairs = Array.from({ length: 2000 }, () => {
    const gold = table();
    // Half the predictions are the gold with its rows reversed, so strict matches occur often.
    const pred = rand() < 0.5 ? [...gold].reverse() : table();
    return { pred: t(pred), gold: t(gold), orderMatters: rand() < 0.3 };
  });

  it('stays in [0, 1] and is 1 exactly when the strict verifier matches, else at most 0.9', () => {
    let exact = 0;
    for (const { pred, gold, orderMatters } of pairs) {
      const s = resultSimilarity(pred, gold, orderMatters);
      const match = executionMatch(gold, pred, orderMatters);
      if (match) exact++;
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      if (match) expect(s).toBe(1);
      else expect(s).toBeLessThanOrEqual(0.9 + 1e-12);
    }
    expect(exact).toBeGreaterThan(200);
  });

  it('is symmetric in pred and gold when row order does not matter', () => {
    for (const { pred, gold } of pairs) {
      expect(resultSimilarity(pred, gold, false)).toBeCloseTo(resultSimilarity(gold, pred, false), 12);
    }
  });

  it('never exceeds the unordered score when order matters', () => {
    for (const { pred, gold } of pairs) {
      expect(resultSimilarity(pred, gold, true)).toBeLessThanOrEqual(resultSimilarity(pred, gold, false));
    }
  });
});

describe('resultSimilarity: sanity', () => {
  const gold: SqlValue[][] = Array.from({ length: 10 }, (_, i) => [i, `name ${i}`]);

  it('rises with each correct row added, and the exact result beats any superset', () => {
    const scores = Array.from({ length: 11 }, (_, k) => resultSimilarity(t(gold.slice(0, k)), t(gold), false));
    for (let k = 1; k < scores.length; k++) expect(scores[k]).toBeGreaterThan(scores[k - 1]);
    expect(scores[10]).toBe(1);
    const superset = resultSimilarity(t([...gold, [10, 'name 10']]), t(gold), false);
    expect(superset).toBeLessThan(1);
    expect(superset).toBeGreaterThan(scores[9] - 0.2);
  });

  it('ranks a result with the right rows above one with the right cells only', () => {
    const rightRows = resultSimilarity(t(gold.slice(0, 5)), t(gold), false);
    const rightCellsOnly = resultSimilarity(t(gold.map(([id], i) => [id, `name ${(i + 1) % 10}`])), t(gold), false);
    expect(rightCellsOnly).toBeCloseTo(0.5, 12);
    expect(rightRows).toBeCloseTo(0.9 * (10 / 15), 12);
    expect(rightRows).toBeGreaterThan(rightCellsOnly);
  });

  it('handles 10k rows', () => {
    const big: SqlValue[][] = Array.from({ length: 10_000 }, (_, i) => [i, `n${i % 97}`, i / 3, null, i % 2]);
    const s = resultSimilarity(t(big.slice(0, 9_000)), t(big), false);
    expect(s).toBeGreaterThan(0.8);
    expect(s).toBeLessThan(0.9);
  });
});

describe('resultSimilarity: hostile values', () => {
  it('scores a 90M-character control-character cell without building a bigger string', () => {
    // JSON would escape each \u0001 to six characters: 540M, past V8's string limit.
    const huge = '\u0001'.repeat(90_000_000);
    expect(resultSimilarity(t([[huge, 1]]), t([[huge, 2]]), false)).toBeCloseTo(0.5 * 0.5, 12);
  });

  it('keeps its formula on a result at the value budgets (4 KiB cells, 1 M characters)', () => {
    const rng = createRng(99);
    const cell = (i: number): string => `${String.fromCharCode(97 + (i % 26)).repeat(4_000)}${i}`;
    const gold: SqlValue[][] = Array.from({ length: 240 }, (_, i) => [cell(i), i]);
    const pred = gold.filter(() => rng.next() < 0.5);
    // pred ⊂ gold, so every pred row and cell is shared: cellF1 = rowF1 = 2·|pred| / (|pred| + |gold|).
    const f1 = (2 * pred.length) / (pred.length + gold.length);
    expect(resultSimilarity(t(pred), t(gold), false)).toBeCloseTo(0.9 * f1, 12);
  });

  it('tells cells apart whose JSON would need a separator', () => {
    expect(resultSimilarity(t([['a', 'b,c']]), t([['a,b', 'c']]), false)).toBe(0);
    expect(resultSimilarity(t([['a","b']]), t([['a', 'b']]), false)).toBe(0);
  });
});
