/**
 * Cases that kill what Stryker's full run over src/env/answer.ts left alive in its first 300 lines (the cell rules,
 * readNumber, the gold's shown value and decimals, BLOB cells, the empty gold, the shape filter and namesColumns);
 * docs/mutation.md lists each mutant with its verdict. Every expected value is worked out by hand from the rules in
 * the module's header and docs/answers.md, never by calling the module. Each case names the mutants (line:column of
 * the Stryker run) it kills.
 */
import { describe, expect, it } from 'vitest';
import type { GoldTies } from '../../src/data/types.ts';
import { answerMatches, cellMatches, namesColumns, normalizeText, readNumber, shownValue } from '../../src/env/answer.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import type { SqlValue } from '../../src/sql/types.ts';

const table = (rows: SqlValue[][], columns = rows[0]?.map((_, i) => `c${i}`) ?? ['c0']): ResultTable => ({ columns, rows });
const NOT_A_NUMBER = { num: null, decimals: 0 };

describe('readNumber', () => {
  it('reads thousands groups after three leading digits (132:41)', () => {
    expect(readNumber('123,456')).toEqual({ num: 123456, decimals: 0 });
    expect(readNumber('999,999.5')).toEqual({ num: 999999.5, decimals: 1 });
  });

  it('refuses a group separator with no digit before it (132:23)', () => {
    expect(readNumber(',123.5')).toEqual(NOT_A_NUMBER);
    expect(readNumber('-,123.5')).toEqual(NOT_A_NUMBER);
  });

  it('refuses a group of fewer than three digits, wherever the scan would land after it (134:11)', () => {
    // '1,2.3': a two-character group ('2.') would end exactly at the text's end if groups were not checked.
    expect(readNumber('1,2.3')).toEqual(NOT_A_NUMBER);
    expect(readNumber('1,23.')).toEqual(NOT_A_NUMBER);
    expect(cellMatches('1,2.3', 12.3)).toBe(false);
  });

  it('reads an exponent with an explicit plus sign (150:18, 150:20, 150:31)', () => {
    expect(readNumber('2.5e+4')).toEqual({ num: 25000, decimals: -1 });
    expect(cellMatches('2.5e+4', 25000)).toBe(true);
  });
});

describe('the gold as shown', () => {
  it('keeps integers as they are, even past 15 significant digits (165:10 twice)', () => {
    // 2^53 = 9007199254740992 has 16 digits; rounded to 15 it would be 9007199254740990, another integer.
    expect(shownValue(2 ** 53)).toBe(9007199254740992);
    // An integer gold accepts only its own value.
    expect(cellMatches('9007199254740990', 2 ** 53)).toBe(false);
    expect(cellMatches('9007199254740992', 2 ** 53)).toBe(true);
  });

  it('counts a numeric text gold decimals as written, not as its shortest form (193:12 twice, 193:30)', () => {
    // Gold text '1234567890123456.78' has 2 decimals as written, so a 1-decimal answer is refused (1 < min(2, 2)),
    // although it is within 0.5·10^-1 + ε of the gold's shown value 1234567890123460 (ε = 8·EPSILON·1.23e15 ≈ 2.19).
    expect(cellMatches('1234567890123459.5', '1234567890123456.78')).toBe(false);
    // The same number as a REAL (the double 1234567890123456.75 that the text reads as): its shortest text after
    // rounding to 15 digits is 1234567890123460 (0 decimals), so the 1-decimal answer counts:
    // |1234567890123459.5 − 1234567890123460| = 0.5 ≤ 0.05 + 2.19.
    expect(Number('1234567890123456.78')).toBe(1234567890123456.75);
    expect(cellMatches('1234567890123459.5', 1234567890123456.75)).toBe(true);
  });
});

describe('numbersMatch', () => {
  it('matches an answer equal to the gold double even where rounding to 15 digits moves it far (218:7 twice)', () => {
    // The answer is the gold written digit for digit: equal numbers always match. Its shown value 1.23456789012345
    // is 4.9e-15 away, more than 0.5·10^-16 + 8·EPSILON·1.23 ≈ 2.2e-15, so only equality accepts it.
    expect(cellMatches('1.2345678901234549', 1.2345678901234549)).toBe(true);
    expect(cellMatches('1.2345678901234549e0', 1.2345678901234549)).toBe(true);
  });

  it('matches an integer answer equal to the noise-free gold (218:7 &&, 218:18)', () => {
    // A SUM of 3.0000000000000004 is 3 (header): the integer answer 3 equals it.
    expect(cellMatches('3', 3.0000000000000004)).toBe(true);
  });

  it('refuses an integer answer one away from a large integer gold (219:7)', () => {
    // Within 0.5 + ε (ε = 8·EPSILON·1e15 ≈ 1.78) of 1e15, yet an integer answer matches only an equal gold.
    expect(cellMatches('1000000000000001', 1e15)).toBe(false);
    expect(cellMatches('1000000000000000', 1e15)).toBe(true);
  });

  it('accepts either rounding at a tie, with ε scaled by |g| (220:17, 223:33)', () => {
    // Gold 20.005 rounds to 20.01 or 20.00 (either way at a tie). The double 20.01 lies 2.6e-15 beyond
    // 20.005 + 0.005, inside ε = 8·EPSILON·20.005 ≈ 3.6e-14 but outside 8·EPSILON / 20.005 and outside −ε.
    expect(Math.abs(20.01 - 20.005)).toBeGreaterThan(0.005);
    expect(cellMatches('20.01', 20.005)).toBe(true);
    expect(cellMatches('20.00', 20.005)).toBe(true);
    expect(cellMatches('20.02', 20.005)).toBe(false);
  });

  it('accepts an answer exactly 0.5·10^-d + ε from the gold (223:10)', () => {
    // 0.5 + 2^-49 written out exactly: 49 decimals, so 0.5·10^-49 vanishes beside ε = 8·EPSILON = 2^-49 and the
    // distance equals the bound. One unit in the last place further (0.5 + 17·2^-53) is outside.
    const edge = '0.5000000000000017763568394002504646778106689453125';
    const past = '0.50000000000000188737914186276611872017383575439453125';
    expect(Number(edge) - 0.5).toBe(8 * Number.EPSILON);
    expect(Number(past) - 0.5).toBe(17 * 2 ** -53);
    expect(cellMatches(edge, 0.5)).toBe(true);
    expect(cellMatches(past, 0.5)).toBe(false);
  });
});

describe('text and BLOB cells', () => {
  it('trims the spaces a pair of quotes held (103:10)', () => {
    expect(normalizeText('" Alice "')).toBe('alice');
    expect(cellMatches('" Alice "', 'Alice')).toBe(true);
    expect(cellMatches("' 5 '", 5)).toBe(true);
  });

  it('gives a BLOB that is not valid UTF-8 no text reading (198:51, 198:60)', () => {
    // 0xff never occurs in UTF-8: the BLOB matches its hex and x'ff', not the replacement character a lenient
    // decoder would make of it.
    const blob = new Uint8Array([0xff]);
    expect(cellMatches('\uFFFD', blob)).toBe(false);
    expect(cellMatches('ff', blob)).toBe(true);
    expect(cellMatches("x'FF'", blob)).toBe(true);
  });
});

describe('empty gold', () => {
  const empty: ResultTable = { columns: ['a'], rows: [] };

  it("is matched by the words 'null', 'empty' and 'no rows' (71:42, 71:50, 71:73)", () => {
    expect(answerMatches('null', empty, false).match).toBe(true);
    expect(answerMatches('Empty', empty, false).match).toBe(true);
    expect(answerMatches('No  rows', empty, false).match).toBe(true);
    expect(answerMatches('nothing', empty, false).match).toBe(false);
  });

  it('is not matched by a list with a value in it (267:134)', () => {
    expect(answerMatches('["a"]', empty, false).match).toBe(false);
    expect(answerMatches('[]', empty, false).match).toBe(true);
  });
});

describe('rows as a bag, in any order (bug fixed: the column pruning kept one cell per exactKey)', () => {
  // Bags of up to 200 rows are matched exactly (header), so the order of the rows never changes the verdict. Before
  // the fix, columnsCompatible kept only the last of the cells sharing an exactKey ('3.0' and '3.00' are both n:3)
  // and refused a column whose other cell was the one needed.
  it('matches the same number written with different decimals in either order', () => {
    // '3.00' matches 3.004 (2 decimals, |3.00 − 3.004| ≤ 0.005) and 3 (equal); '3.0' matches 3 only (1 decimal is
    // fewer than min(2, 3), 3.004's decimals). Pairing '3.00' ↔ 3.004 and '3.0' ↔ 3 matches the bags.
    const gold = table([[3.004], [3]]);
    expect(answerMatches('3.0\n3.00', gold, false).match).toBe(true);
    expect(answerMatches('3.00\n3.0', gold, false).match).toBe(true);
    expect(answerMatches('3.0\n3.0', gold, false).match).toBe(false);
  });

  it('matches a BLOB and the text of its hex in one gold column, in either order', () => {
    // "x'ab'" matches the BLOB only, 'ab' both; '6' matches the text '06' (the number 6) only, '06' both.
    const ab = new Uint8Array([0xab]);
    expect(answerMatches(`["x'ab'", "ab"]`, table([['ab'], [ab]]), false).match).toBe(true);
    expect(answerMatches(`["x'ab'", "ab"]`, table([[ab], ['ab']]), false).match).toBe(true);
    const six = new Uint8Array([0x06]);
    expect(answerMatches('["6", "06"]', table([['06'], [six]]), false).match).toBe(true);
    expect(answerMatches('["06", "6"]', table([[six], ['06']]), false).match).toBe(true);
  });

  it('pairs rows holding one number, however written, before the exact match of a large bag (233:27)', () => {
    // 1001 rows (past the 200-row exact match): '0.0' … '1000.0' are the numbers 0 … 1000 of the gold, so every row
    // pairs as identical and none is left. Paired by their text instead, all 1001 would be left: more than 1000.
    const n = 1001;
    const gold = table(Array.from({ length: n }, (_, i) => [i]));
    expect(answerMatches(Array.from({ length: n }, (_, i) => `${n - 1 - i}.0`).join('\n'), gold, false).match).toBe(true);
  });
});

describe('shapes come before ties', () => {
  // A reading whose shape cannot fit the gold is rejected before anything else (header: "Shapes first"), so even a
  // tie set that would accept its rows is never consulted. These tie sets do not fit their gold's shape (a
  // generated one always does: its takes add up to the gold's rows, its pool rows have the gold's width), which is
  // what makes the order observable.
  const ties = (take: number, pool: string[][]): GoldTies => ({ segments: [{ take, pool }] });
  const twoByOne = table([['a'], ['b']]);
  const oneByTwo = table([['a', 'b']]);
  const twoByTwo = table([
    ['a', 'b'],
    ['c', 'd'],
  ]);

  it('a scalar fits only a 1×1 gold (273:30, 273:41)', () => {
    expect(answerMatches('x', twoByOne, false, ties(1, [['x']])).match).toBe(false);
    expect(answerMatches('x', oneByTwo, false, ties(1, [['x']])).match).toBe(false);
  });

  it('a list fits a gold column only with one value per row (274:28, 274:39)', () => {
    expect(answerMatches('["x", "y"]', twoByTwo, false, ties(2, [['x'], ['y']])).match).toBe(false);
    expect(answerMatches('["x", "y", "z"]', twoByOne, false, ties(3, [['x'], ['y'], ['z']])).match).toBe(false);
  });

  it('a list fits a gold row only with one value per column (275:28, 275:39)', () => {
    expect(answerMatches('["x", "y"]', twoByTwo, false, ties(1, [['x', 'y']])).match).toBe(false);
    expect(answerMatches('["x", "y", "z"]', oneByTwo, false, ties(1, [['x', 'y', 'z']])).match).toBe(false);
  });

  it("rows fit only with the gold's row count and every row its width (276:28, 276:51, 276:71)", () => {
    expect(answerMatches('[["x", "y"], ["z", "w"]]', oneByTwo, false, ties(2, [['x', 'y'], ['z', 'w']])).match).toBe(false);
    // The first row has the gold's width, the second one cell more.
    expect(answerMatches('[["x", "y"], ["z", "w", "v"]]', twoByTwo, false, ties(2, [['x', 'y'], ['z', 'w']])).match).toBe(false);
    // Every row one cell wider than the gold.
    expect(answerMatches('[["x", "y", "q"], ["z", "w", "r"]]', twoByTwo, false, ties(2, [['x', 'y', 'q'], ['z', 'w', 'r']])).match).toBe(false);
  });

  it('while a tie set of the right shape is consulted', () => {
    expect(answerMatches('["x", "y"]', twoByOne, false, ties(2, [['x'], ['y'], ['z']])).match).toBe(true);
  });
});

describe('namesColumns', () => {
  it('takes a word-character prefix before the dot as a table qualifier', () => {
    expect(namesColumns(['name'], ['T1.name'])).toBe(true);
    expect(namesColumns(['name'], ['t_1.name'])).toBe(true);
  });

  it('finds no qualifier before a leading dot (296:23 twice)', () => {
    expect(namesColumns(['name'], ['.name'])).toBe(false);
    expect(namesColumns(['.name'], ['.name'])).toBe(true);
  });

  it('finds no qualifier in a prefix with a character that is not a word character (296:54 twice)', () => {
    expect(namesColumns(['name'], ['a-b.name'])).toBe(false);
    expect(namesColumns(['name'], ['"t1".name'])).toBe(false);
  });
});
