/**
 * Cases that kill the mutants Stryker found surviving or uncovered in src/env/verifier.ts (docs/mutation.md). The
 * expected values are the documented contract (valueKey's key format, MatchCost's row visits), hand-counted bags and
 * searches, or an independent brute force (every column permutation, rows compared as bags or lists).
 */
import { describe, expect, it } from 'vitest';
import { executionMatch, sameBag, valueKey, type MatchCost } from '../../src/env/verifier.ts';
import type { SqlValue } from '../../src/sql/types.ts';

const t = (rows: SqlValue[][]) => ({ columns: rows[0]?.map((_, i) => `c${i}`) ?? [], rows });

/** Verdict and row visits of one match. */
function match(gold: SqlValue[][], pred: SqlValue[][], orderMatters = false, maxSearchWork?: number): { result: boolean; work: number } {
  const cost: MatchCost = { searchWork: -1 };
  const result = executionMatch(t(gold), t(pred), orderMatters, cost, maxSearchWork);
  return { result, work: cost.searchWork };
}

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

  it('compares bags by count: the same keys in other multiplicities are another bag', () => {
    expect(sameBag(['x', 'x', 'y'], ['x', 'y', 'y'])).toBe(false);
    expect(sameBag(['y', 'x', 'x'], ['x', 'y', 'x'])).toBe(true);
  });

  it('refuses a gold result whose later row is wider than its first (not only a ragged prediction)', () => {
    expect(match([[1], [2, 3]], [[1], [2]]).result).toBe(false);
    expect(match([[1], [2]], [[1], [2, 3]]).result).toBe(false);
  });

  it('with ORDER BY compares whole column vectors: ids 1,12 are not ids 11,2 (no separator-less key)', () => {
    // Gold is 2 × 11 with values 0..21, interned in row-major order, so a value's id is the value. Its column 1 holds
    // ids (1, 12); the prediction swaps that column for (11, 2), whose digits run together the same way.
    const gold = [Array.from({ length: 11 }, (_, c) => c), Array.from({ length: 11 }, (_, c) => 11 + c)];
    const pred = gold.map((row) => [...row]);
    pred[0][1] = 11;
    pred[1][1] = 2;
    expect(match(gold, pred, true).result).toBe(false);
    expect(match(gold, gold.map((row) => [...row].reverse()), true).result).toBe(true);
  });
});

describe('verifier.ts: the refinement counts rows, not only which prefixes occur', () => {
  it('all 24 orders of 0..3 against the same with two rows traded for two others of the same column bags', () => {
    // Gold: every permutation of (0, 1, 2, 3) once, so every row prefix occurs and gold is the same under any column
    // permutation. Prediction: (1,0,2,3) and (0,1,3,2) dropped, (0,1,2,3) and (1,0,3,2) doubled. Every row still
    // sorts to 0,1,2,3 and every column still holds each value six times, so only the counts of whole rows differ.
    const perms = (xs: number[]): number[][] => (xs.length === 0 ? [[]] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
    const gold = perms([0, 1, 2, 3]);
    const dropped = new Set(['1,0,2,3', '0,1,3,2']);
    const pred = [...gold.filter((row) => !dropped.has(row.join(','))), [0, 1, 2, 3], [1, 0, 3, 2]];
    expect(gold).toHaveLength(24);
    expect(pred).toHaveLength(24);
    expect(match(gold, pred).result).toBe(false);
    expect(match(gold, [...gold].reverse()).result).toBe(true);
  });
});

describe('verifier.ts: what the search spends (MatchCost.searchWork, row visits)', () => {
  it('the quick reject decides before the search: rows with other value bags cost no row visit', () => {
    // Column bags agree ({1, 2} everywhere), rows do not: {1, 2} twice against {1, 1} and {2, 2}.
    expect(match([[1, 2], [2, 1]], [[1, 1], [2, 2]])).toEqual({ result: false, work: 0 });
  });

  it('a gold column no predicted column can stand for ends the search before any row visit, wherever it is', () => {
    // Rows agree as bags ({1, 2, 3} twice). Gold columns (1,2), (2,1), (3,3); predicted (1,2), (2,3), (3,1): gold
    // column 2's bag {3, 3} is no predicted column's, gold columns 0 and 1 have one candidate each.
    expect(match([[1, 2, 3], [2, 1, 3]], [[1, 2, 3], [2, 3, 1]])).toEqual({ result: false, work: 0 });
  });

  /**
   * Worked by hand (ids: 1 → 0, 0 → 1; every refinement visits 2n = 6 rows). All column bags are {0, 0, 1}, so every
   * gold column has all three predicted columns as candidates; predicted columns 0 and 1 are identical.
   *   gold col 0 ← pred 0 (6): ok;  gold col 1 ← pred 1 (12): fails; ← pred 2 (18): ok;  gold col 2 ← pred 1 (24): fails
   *   gold col 0 ← pred 1: skipped, identical to the unused pred 0 (a search without that pruning spends 24 more)
   *   gold col 0 ← pred 2 (30): ok;  gold col 1 ← pred 0 (36): ok;  gold col 2 ← pred 1 (42): ok → match.
   */
  const gold = [[1, 1, 1], [0, 1, 1], [1, 0, 0]];
  const pred = [[0, 0, 1], [1, 1, 0], [1, 1, 1]];

  it('counts 2n row visits per refinement and tries one of each set of identical predicted columns', () => {
    expect(match(gold, pred)).toEqual({ result: true, work: 42 });
  });

  it('gives up with "no match" once the work passed the cap, not when it reached it', () => {
    // The last refinement starts at 36 visits: a cap of 36 lets it run, a cap of 35 stops the search before it.
    expect(match(gold, pred, false, 36)).toEqual({ result: true, work: 42 });
    expect(match(gold, pred, false, 35)).toEqual({ result: false, work: 36 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Every pair of small tables against a brute force written here.

/** All permutations of 0..m-1. */
function permutations(m: number): number[][] {
  if (m === 0) return [[]];
  return permutations(m - 1).flatMap((p) => Array.from({ length: m }, (_, i) => [...p.slice(0, i), m - 1, ...p.slice(i)]));
}

/** Spider's result_eq by brute force: some column permutation makes the rows equal as a bag (a list with ORDER BY). */
function bruteForce(gold: number[][], pred: number[][], orderMatters: boolean): boolean {
  if (gold.length === 0 && pred.length === 0) return true;
  if (gold.length !== pred.length || gold[0].length !== pred[0].length) return false;
  const key = (row: number[]) => row.join('|');
  const goldKeys = gold.map(key);
  return permutations(gold[0].length).some((perm) => {
    const predKeys = pred.map((row) => key(perm.map((j) => row[j])));
    return orderMatters ? predKeys.every((k, r) => k === goldKeys[r]) : [...predKeys].sort().join('/') === [...goldKeys].sort().join('/');
  });
}

/** Every n × m table over {0, 1}. */
function allTables(n: number, m: number): number[][][] {
  return Array.from({ length: 2 ** (n * m) }, (_, bits) => Array.from({ length: n }, (_, r) => Array.from({ length: m }, (_, c) => (bits >> (r * m + c)) & 1)));
}

describe('executionMatch: every pair of small 0/1 tables, against a brute force', () => {
  /** Runs both verdicts over the pairs and returns the disagreements (3 at most) and how many pairs matched. */
  function compare(golds: number[][][], preds: number[][][], orders: readonly boolean[]): { wrong: string[]; matches: number; pairs: number } {
    const out = { wrong: [] as string[], matches: 0, pairs: 0 };
    for (const gold of golds) {
      for (const pred of preds) {
        for (const orderMatters of orders) {
          const expected = bruteForce(gold, pred, orderMatters);
          out.pairs++;
          if (expected) out.matches++;
          if (executionMatch(t(gold), t(pred), orderMatters) !== expected && out.wrong.length < 3) out.wrong.push(JSON.stringify({ gold, pred, orderMatters, expected }));
        }
      }
    }
    return out;
  }

  it.each([
    [2, 2],
    [3, 2],
    [2, 3],
  ])('%i rows × %i columns, with and without ORDER BY', (n, m) => {
    const tables = allTables(n, m);
    const { wrong, matches, pairs } = compare(tables, tables, [false, true]);
    expect(wrong).toEqual([]);
    expect(matches, 'both verdicts occur').toBeGreaterThan(tables.length);
    expect(matches).toBeLessThan(pairs);
  });

  it('3 rows × 3 columns without ORDER BY (gold rows in sorted order: the verdict ignores their order)', () => {
    const tables = allTables(3, 3);
    const sortedRows = tables.filter((g) => g.every((row, r) => r === 0 || row.join('') >= g[r - 1].join('')));
    expect(sortedRows).toHaveLength(120); // multisets of 3 rows out of 8: C(10, 3)
    const { wrong, matches, pairs } = compare(sortedRows, tables, [false]);
    expect(wrong).toEqual([]);
    expect(matches).toBeGreaterThan(sortedRows.length);
    expect(matches).toBeLessThan(pairs);
  });
});
