/**
 * Strict verifier (Spider test-suite `result_eq`): golden edge cases, a brute-force cross-check on small random
 * tables, and large tables that must stay fast.
 */
import initSqlJs from 'sql.js';
import { describe, it, expect } from 'vitest';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import type { SqlValue } from '../../src/sql/types.ts';
import { executionMatch, valueKey, type MatchCost, type ResultTable } from '../../src/env/verifier.ts';
import { testSeed } from '../fixtures/seed.ts';

const t = (rows: SqlValue[][], columns?: string[]): ResultTable => ({
  columns: columns ?? (rows[0] ?? []).map((_, i) => `c${i}`),
  rows,
});
const blob = (...bytes: number[]): Uint8Array => new Uint8Array(bytes);

type Case = [name: string, gold: SqlValue[][], pred: SqlValue[][], orderMatters: boolean, expected: boolean];

const CASES: Case[] = [
  // empty results
  ['both empty', [], [], false, true],
  ['both empty, order matters', [], [], true, true],
  ['empty gold, non-empty pred', [], [[1]], false, false],
  ['non-empty gold, empty pred', [[1]], [], false, false],
  // shapes
  ['1×1 equal', [[7]], [[7]], false, true],
  ['1×1 different', [[7]], [[8]], false, false],
  ['n×1 equal', [[1], [2], [3]], [[1], [2], [3]], false, true],
  ['1×n columns permuted', [[1, 'a', null]], [[null, 1, 'a']], false, true],
  ['1×n columns permuted, order matters', [[1, 'a', null]], [['a', null, 1]], true, true],
  ['n×m equal', [[1, 'a'], [2, 'b']], [[1, 'a'], [2, 'b']], false, true],
  ['different row counts', [[1], [2]], [[1]], false, false],
  ['different column counts', [[1, 2]], [[1, 2, 3]], false, false],
  ['extra column with same values', [[1]], [[1, 1]], false, false],
  // duplicates: multisets, not sets
  ['[[1],[1],[2]] vs [[1],[2],[2]]', [[1], [1], [2]], [[1], [2], [2]], false, false],
  ['[[1],[1],[2]] vs [[1],[2],[1]]', [[1], [1], [2]], [[1], [2], [1]], false, true],
  ['duplicate rows vs distinct', [[1], [1]], [[1], [2]], false, false],
  ['DISTINCT missing', [['a'], ['a'], ['b']], [['a'], ['b'], ['b']], false, false],
  // NULLs
  ['NULL equals NULL', [[null]], [[null]], false, true],
  ['NULL vs empty text', [[null]], [['']], false, false],
  ['NULL vs 0', [[null]], [[0]], false, false],
  ['NULL vs text null', [[null]], [['null']], false, false],
  ['NULLs in rows, rows permuted', [[1, null], [null, 2]], [[null, 2], [1, null]], false, true],
  // values as SQLite returns them
  ['0.1+0.2 is not 0.3', [[0.3]], [[0.1 + 0.2]], false, false],
  ["'1' is not 1", [['1']], [[1]], false, false],
  ["1 is not '1'", [[1]], [['1']], false, false],
  ['case matters', [['a']], [['A']], false, false],
  ['trailing space matters', [['a']], [['a ']], false, false],
  ['-0 equals 0', [[0]], [[-0]], false, true],
  ['2.5 vs 2', [[2.5]], [[2]], false, false],
  // blobs
  ['blob equal by bytes', [[blob(1, 2, 3)]], [[blob(1, 2, 3)]], false, true],
  ['blob different bytes', [[blob(1, 2, 3)]], [[blob(1, 2, 4)]], false, false],
  ['blob vs its text', [[blob(0x61, 0x62)]], [['ab']], false, false],
  ['blob vs its hex text', [[blob(0x61, 0x62)]], [['6162']], false, false],
  ['empty blob vs empty text', [[blob()]], [['']], false, false],
  // column order
  ['columns swapped', [[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]], false, true],
  ['columns swapped, order matters', [[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]], true, true],
  ['per-row swap is not a permutation', [[1, 2], [3, 4]], [[1, 2], [4, 3]], false, false],
  ['same sorted rows, no consistent permutation', [[1, 2], [2, 1]], [[1, 2], [1, 2]], false, false],
  [
    'sorted rows and column bags agree, yet no permutation',
    [[2, 0, 0], [2, 0, 1], [0, 2, 2]],
    [[1, 0, 2], [0, 2, 0], [2, 2, 0]],
    false,
    false,
  ],
  // row order
  ['rows permuted, no ORDER BY', [[1], [2], [3]], [[3], [1], [2]], false, true],
  ['rows permuted, ORDER BY', [[1], [2], [3]], [[3], [1], [2]], true, false],
  ['rows in order, ORDER BY', [[1], [2], [3]], [[1], [2], [3]], true, true],
  ['ties reordered under ORDER BY still differ', [[1, 'a'], [1, 'b']], [[1, 'b'], [1, 'a']], true, false],
  ['rows and columns permuted, no ORDER BY', [[1, 'x', 2.5], [2, 'y', null]], [[null, 2, 'y'], [2.5, 1, 'x']], false, true],
  ['rows and columns permuted, ORDER BY', [[1, 'x', 2.5], [2, 'y', null]], [[null, 2, 'y'], [2.5, 1, 'x']], true, false],
];

describe('executionMatch: golden cases', () => {
  it.each(CASES)('%s', (_name, gold, pred, orderMatters, expected) => {
    expect(executionMatch(t(gold), t(pred), orderMatters)).toBe(expected);
  });

  it('ignores column names', () => {
    expect(executionMatch(t([[1]], ['count(*)']), t([[1]], ['n']), false)).toBe(true);
  });

  it('treats both-empty results as equal whatever their columns', () => {
    expect(executionMatch(t([], ['a', 'b']), t([], ['x']), false)).toBe(true);
  });

  it('refuses ragged rows instead of throwing', () => {
    expect(executionMatch(t([[1, 2], [3, 4]]), t([[1, 2], [3]]), false)).toBe(false);
  });
});

describe('INTEGER against REAL, as SQLite returns them', () => {
  it('an INTEGER 1 equals a REAL 1.0, a REAL 1.5 does not equal 1, and TEXT 1 equals neither', async () => {
    // Values come from SQLite through the engine (not JS literals, where 1 and 1.0 are one number); typeof() shows
    // that the storage classes really differ.
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    db.run("CREATE TABLE t (i INTEGER, r REAL, h REAL, x TEXT); INSERT INTO t VALUES (1, 1, 1.5, '1'), (2, 2.0, 2.5, '2');");
    const bytes = db.export();
    db.close();
    const executor = new LocalSqlExecutor(SQL);
    await executor.load('db', bytes);
    const run = async (sql: string): Promise<ResultTable> => {
      const { columns, rows } = await executor.query('db', sql);
      return { columns, rows };
    };
    expect((await run('SELECT typeof(i), typeof(r), typeof(h), typeof(x), typeof(avg(i)) FROM t')).rows[0]).toEqual(['integer', 'real', 'real', 'text', 'real']);
    const integers = await run('SELECT i FROM t');
    const reals = await run('SELECT r FROM t');
    const halves = await run('SELECT h FROM t');
    const texts = await run('SELECT x FROM t');
    expect(executionMatch(integers, reals, false)).toBe(true);
    expect(executionMatch(reals, integers, true)).toBe(true);
    expect(executionMatch(await run('SELECT count(*) FROM t'), await run('SELECT sum(r) - 1 FROM t'), false)).toBe(true); // 2 vs 2.0
    expect(executionMatch(await run('SELECT avg(i) FROM t'), await run('SELECT 1.5'), false)).toBe(true);
    expect(executionMatch(integers, halves, false)).toBe(false);
    expect(executionMatch(integers, texts, false)).toBe(false);
    expect(executionMatch(texts, reals, false)).toBe(false);
    await executor.close();
  });
});

describe('valueKey', () => {
  it('is type-tagged and canonical', () => {
    expect(valueKey(-0)).toBe(valueKey(0));
    const distinct = [valueKey(1), valueKey('1'), valueKey(null), valueKey('null'), valueKey(blob(0x31)), valueKey('31'), valueKey('')];
    expect(new Set(distinct).size).toBe(distinct.length);
    expect(valueKey(blob(0, 255, 16))).toBe('b:00ff10');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Cross-check against a brute-force reference on small random tables.

/** Deterministic generator (mulberry32) so every run sees the same tables. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function permutations(m: number): number[][] {
  if (m === 0) return [[]];
  return permutations(m - 1).flatMap((p) => Array.from({ length: m }, (_, i) => [...p.slice(0, i), m - 1, ...p.slice(i)]));
}

/** Literal reading of result_eq: try every column permutation, compare rows as a sorted list or as a list. */
function reference(gold: SqlValue[][], pred: SqlValue[][], orderMatters: boolean): boolean {
  if (gold.length === 0 && pred.length === 0) return true;
  if (gold.length !== pred.length || gold[0].length !== pred[0].length) return false;
  const rowKeys = (rows: SqlValue[][]): string[] => {
    const keys = rows.map((r) => JSON.stringify(r.map(valueKey)));
    return orderMatters ? keys : keys.sort();
  };
  const g = rowKeys(gold).join('\n');
  return permutations(gold[0].length).some((perm) => rowKeys(pred.map((r) => perm.map((j) => r[j]))).join('\n') === g);
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('executionMatch: agrees with a brute-force reference', () => {
  it('on 3000 random small tables (half of them shuffled copies, some perturbed)', () => {
    const seed = testSeed('tests/env/verifier.test.ts (brute force)');
    const rand = rng(seed);
    const alphabet: SqlValue[] = [0, 1, 2, '1', null];
    let matches = 0;
    for (let k = 0; k < 3000; k++) {
      const n = 1 + Math.floor(rand() * 4);
      const m = 1 + Math.floor(rand() * 4);
      const cell = (): SqlValue => alphabet[Math.floor(rand() * alphabet.length)];
      const gold = Array.from({ length: n }, () => Array.from({ length: m }, cell));
      let pred: SqlValue[][];
      if (k % 2 === 0) {
        const perm = shuffle([...Array(m).keys()], rand);
        pred = shuffle(gold, rand).map((r) => perm.map((j) => r[j]));
        if (k % 4 === 0) pred[Math.floor(rand() * n)][Math.floor(rand() * m)] = cell();
      } else {
        pred = Array.from({ length: n }, () => Array.from({ length: m }, cell));
      }
      for (const orderMatters of [false, true]) {
        const expected = reference(gold, pred, orderMatters);
        if (expected) matches++;
        expect(executionMatch(t(gold), t(pred), orderMatters), JSON.stringify({ seed, gold, pred, orderMatters })).toBe(expected);
      }
    }
    expect(matches).toBeGreaterThan(500); // the sample exercises both verdicts
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Large tables: the permutation search must stay fast.

function bigTable(rows: number, cols: number, seed: number, cell: (r: number, c: number, rand: () => number) => SqlValue): SqlValue[][] {
  const rand = rng(seed);
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => cell(r, c, rand)));
}

function permuted(rows: SqlValue[][], seed: number, keepRowOrder = false): SqlValue[][] {
  const rand = rng(seed);
  const perm = shuffle([...Array(rows[0].length).keys()], rand);
  return (keepRowOrder ? rows : shuffle(rows, rand)).map((r) => perm.map((j) => r[j]));
}

describe('executionMatch: 10k rows × 8 columns', () => {
  const mixed = bigTable(10_000, 8, 7, (r, c, rand) =>
    c % 4 === 0 ? Math.floor(rand() * 50) : c % 4 === 1 ? `name${Math.floor(rand() * 30)}` : c % 4 === 2 ? rand() < 0.1 ? null : rand() : r,
  );
  // Every column holds the same multiset (0..99 repeated), so per-column pruning alone cannot tell them apart.
  const sameBags = bigTable(10_000, 8, 8, (r, c) => (r * (2 * c + 1) + c) % 100);
  // Ten copies of one column: every permutation is valid, so the search must not enumerate 10! of them.
  const identical = bigTable(10_000, 10, 9, (r) => r % 37);

  /**
   * The search must stay polynomial without a wall-clock limit: its row visits are counted. Refinement tries at most
   * m candidates per column at 2n visits each, so 2·n·m² bounds a search that never backtracks past a column; an
   * enumeration of permutations runs into MAX_SEARCH_WORK (20M, ten times this bound for 10k × 10) and answers "no".
   */
  const matched = (gold: SqlValue[][], pred: SqlValue[][], orderMatters: boolean): { result: boolean; work: number; bound: number } => {
    const cost: MatchCost = { searchWork: -1 };
    const result = executionMatch(t(gold), t(pred), orderMatters, cost);
    const [n, m] = [gold.length, gold[0].length];
    return { result, work: cost.searchWork, bound: 2 * n * m * m };
  };

  it.each([
    ['mixed types, rows and columns shuffled', mixed, permuted(mixed, 1), false, true],
    ['mixed types, columns shuffled, ORDER BY', mixed, permuted(mixed, 2, true), true, true],
    ['mixed types, rows shuffled, ORDER BY', mixed, permuted(mixed, 3), true, false],
    ['equal column bags, rows and columns shuffled', sameBags, permuted(sameBags, 4), false, true],
    ['10 identical columns', identical, permuted(identical, 6), false, true],
    ['10 identical columns vs one column off', identical, identical.map((r, i) => (i === 0 ? [...r.slice(1), 36] : r)), false, false],
  ] as Array<[string, SqlValue[][], SqlValue[][], boolean, boolean]>)('%s', (name, gold, pred, orderMatters, expected) => {
    const { result, work, bound } = matched(gold, pred, orderMatters);
    console.log(`${name}: ${work} row visits of the search (bound ${bound})`);
    expect(result).toBe(expected);
    expect(work, 'the cost was written').toBeGreaterThanOrEqual(0);
    expect(work).toBeLessThanOrEqual(bound);
  });

  it('one changed cell breaks the match', () => {
    const pred = permuted(sameBags, 5).map((r) => [...r]);
    const [a, b] = [pred[17][3], pred[4242][3]];
    pred[17][3] = b; // swap two cells of one column: column bags and row count stay the same
    pred[4242][3] = a;
    const { result, work, bound } = matched(sameBags, pred, false);
    expect(a).not.toBe(b);
    expect(result).toBe(false);
    expect(work).toBeLessThanOrEqual(bound);
  });
});
