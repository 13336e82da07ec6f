/**
 * The split's answer keys (src/data/answer-key.ts) against the lenient ANSWER verifier itself (src/env/answer.ts):
 * whenever the verifier accepts one gold cell or result, written as an answer, for another, their key sets meet
 * (soundness, which the split's "no straddling answers" rests on); and keys stay fine enough that distinct integers
 * and distinct texts do not merge. Random cases are seeded anew each run and the seed printed.
 */
import { describe, expect, it } from 'vitest';
import { cellKeys, GRID, MAX_KEY_VARIANTS, NEAR, numberKeys, resultKeys, textNumber } from '../../src/data/answer-key.ts';
import { createRng, type Rng } from '../../src/data/rng.ts';
import { answerMatches, cellMatches } from '../../src/env/answer.ts';
import type { SqlValue } from '../../src/sql/types.ts';

const meet = (a: readonly string[], b: readonly string[]): boolean => a.some((k) => b.includes(k));

/** A gold cell as an answer cell: what its JSON rendering reads back as (BLOBs are not rendered here). */
function asAnswer(v: SqlValue): string | number | null {
  if (v instanceof Uint8Array) throw new Error('no BLOB answers in these cases');
  return v;
}

/** The verifier's relation on two gold cells, either way round. */
function sameCell(a: SqlValue, b: SqlValue): boolean {
  return cellMatches(asAnswer(a), b) || cellMatches(asAnswer(b), a);
}

/** The verifier's relation on two gold results: one written as JSON rows (or a flat list) accepted for the other. */
function sameResult(a: SqlValue[][], b: SqlValue[][]): boolean {
  const texts = (rows: SqlValue[][]): string[] => [JSON.stringify(rows), ...(rows.length === 1 || rows[0].length === 1 ? [JSON.stringify(rows.flat())] : [])];
  const accepts = (x: SqlValue[][], y: SqlValue[][]): boolean => texts(x).some((t) => answerMatches(t, { columns: [], rows: y }, false).match);
  return accepts(a, b) || accepts(b, a);
}

describe('cellKeys against the lenient verifier', () => {
  it.each([
    ['9 and the text 9', 9, '9'],
    ['6 and the text 6.0', 6, '6.0'],
    ['6 and 6.000000000000001 (binary noise)', 6, 6.000000000000001],
    ['text case and spacing', 'New  York ', 'new york'],
    ['quoted text', "'Rex'", 'rex'],
    ['NULL and the text None', null, 'None'],
    ['NULL and the empty text', null, ''],
    ['a rounding to two decimals', 3.33, 3.3333333333333335],
    ['a rounding across a cell boundary', 3.325, 3.3246],
    ['a rounding to two decimals near a cell boundary', 3.32, 3.3248],
    ['a rounding at a tie, across a cell boundary', 3.32, 3.325],
    ['thousands separators', '1,234', 1234],
    ['a numeric text with trailing zeros and a rounding', '6.00', 6.001],
  ] as Array<[string, SqlValue, SqlValue]>)('%s: the verifier equates them and their keys meet', (_name, a, b) => {
    expect(sameCell(a, b)).toBe(true);
    expect(meet(cellKeys(a), cellKeys(b))).toBe(true);
  });

  it.each([
    ['9 and 10', 9, 10],
    ['two texts', 'Rex', 'Tom'],
    ['a number and a text', 9, 'nine'],
    ['two averages 0.044 apart', 5.111111111111111, 5.066666666666666],
    ['NULL and zero', null, 0],
  ] as Array<[string, SqlValue, SqlValue]>)('%s: neither the verifier nor the keys equate them', (_name, a, b) => {
    expect(sameCell(a, b)).toBe(false);
    expect(meet(cellKeys(a), cellKeys(b))).toBe(false);
  });

  it('gives every integer and every one-decimal value one key of its own', () => {
    for (let i = -300; i <= 300; i++) {
      expect(numberKeys(i)).toHaveLength(1);
      expect(numberKeys(i / 10)).toHaveLength(1);
      expect(numberKeys(i / 10)[0]).not.toBe(numberKeys((i + 1) / 10)[0]);
    }
  });

  it('reads numbers as the verifier does', () => {
    for (const t of ['12', '-12', '+.5', '12.', '1e3', '2.5e+4', '1,234', '12,345,678.9']) expect(textNumber(t), t).not.toBeNull();
    for (const t of ['', '.', 'e5', '1,23', '1234,567', '1,234.', '1,234e3', '0x10', 'infinity', '12 34', '1.2.3']) expect(textNumber(t), t).toBeNull();
    expect(textNumber('1,234.5')).toBe(1234.5);
  });

  it('holds on random cells: whenever the verifier equates two, their keys meet', () => {
    const seed = Date.now() >>> 0;
    console.log(`answer-key random cells: seed ${seed}`);
    const rng = createRng(seed);
    const int = (n: number): number => Math.floor(rng.next() * n);
    let equated = 0;
    for (let k = 0; k < 20_000; k++) {
      const [a, b] = randomPair(rng, int);
      if (!sameCell(a, b)) continue;
      equated++;
      expect(meet(cellKeys(a), cellKeys(b)), `seed ${seed}: ${String(a)} / ${String(b)}`).toBe(true);
    }
    expect(equated).toBeGreaterThan(2000);
  });
});

/** Two cells that are often lenient-equal: a value and a rounding, respelling or re-typing of it. */
function randomPair(rng: Rng, int: (n: number) => number): [SqlValue, SqlValue] {
  const g = (rng.next() - 0.5) * 10 ** int(7);
  switch (int(5)) {
    case 0: {
      // A rounding to d decimals, as a number or as text.
      const d = 1 + int(5);
      const a = Number(g.toFixed(d));
      return [rng.next() < 0.5 ? a : g.toFixed(d), g];
    }
    case 1: {
      // An integer and its text, with decimals of zeros.
      const n = Math.round(g);
      return [n, `${n}${rng.next() < 0.5 ? '' : '.' + '0'.repeat(1 + int(3))}`];
    }
    case 2: {
      // Two numbers a few thousandths apart, one of them with few decimals.
      const a = Number(g.toFixed(2 + int(3)));
      return [a, a + (rng.next() - 0.5) * 0.012];
    }
    case 3: {
      const words = ['Rex', 'rex', ' REX ', "'Rex'", 'Tom', 'null', 'None', '', 'NULL'];
      return [words[int(words.length)], words[int(words.length)]];
    }
    default:
      return [null, [null, 'none', 'null', '', 0][int(5)]];
  }
}

describe('resultKeys against the lenient verifier', () => {
  it.each([
    ['a count and its text', [[9]], [['9']]],
    ['a column and a row with the same cells', [['a'], ['b']], [['B', 'A']]],
    ['columns reordered and text case', [['Rex', 3], ['Tom', 5]], [[5, 'tom'], [3, 'rex']]],
    ['averages and their roundings', [['Asia', 3.3333333333333335], ['Europe', 7.666666666666667]], [['europe', 7.67], ['asia', 3.33]]],
  ] as Array<[string, SqlValue[][], SqlValue[][]]>)('%s: the verifier equates them and they share a key', (_name, a, b) => {
    expect(sameResult(a, b)).toBe(true);
    expect(meet(resultKeys(a).keys, resultKeys(b).keys)).toBe(true);
  });

  it.each([
    ['row count', [[1]], [[1], [1]]],
    ['multiplicity', [[1], [1], [2]], [[1], [2], [2]]],
    ['one wide row against a 2x2 result', [['a', 'b', 'c', 'd']], [['a', 'b'], ['c', 'd']]],
    ['other values', [['Rex', 3]], [['Rex', 4]]],
  ] as Array<[string, SqlValue[][], SqlValue[][]]>)('%s: neither equates them', (_name, a, b) => {
    expect(sameResult(a, b)).toBe(false);
    expect(meet(resultKeys(a).keys, resultKeys(b).keys)).toBe(false);
  });

  it('enumerates one key per choice of cell keys, and caps the product at MAX_KEY_VARIANTS', () => {
    // 0.025 + 0.05·j are the boundaries; a value within NEAR of one has two keys.
    const nearBoundary = (j: number): number => GRID / 2 + GRID * j + NEAR / 2;
    expect(numberKeys(nearBoundary(3))).toHaveLength(2);
    expect(resultKeys([[nearBoundary(1), nearBoundary(2)]]).keys).toHaveLength(4);
    const wide = [Array.from({ length: 7 }, (_, j) => nearBoundary(j))];
    expect(2 ** 7).toBeGreaterThan(MAX_KEY_VARIANTS);
    expect(resultKeys(wide)).toEqual({ keys: [expect.any(String)], capped: true });
  });
});
