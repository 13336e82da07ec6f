/**
 * Cases that kill what Stryker's full run over src/env/answer.ts left alive in its second half (lines 301–466:
 * `describeReading`, `tiesMatch`, `rowsMatch`, `columnsCompatible`, `bagMatch`; docs/mutation.md lists the kept
 * ones). Each expected verdict, reading and preview is worked out by hand from the rules in the module's header and
 * docs/answers.md, never by calling the module; each case names the mutants (line:column) it kills.
 */
import { describe, expect, it } from 'vitest';
import type { GoldTies } from '../../src/data/types.ts';
import { answerMatches } from '../../src/env/answer.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import type { SqlValue } from '../../src/sql/types.ts';

const table = (rows: SqlValue[][], columns = rows[0]?.map((_, i) => `c${i}`) ?? ['c0']): ResultTable => ({ columns, rows });
/** Answer text with one pipe-separated line per row. */
const pipeLines = (rows: readonly (readonly string[])[]): string => rows.map((r) => r.join('|')).join('\n');
/** The same rows with their columns reordered: answer column j holds source column `order[j]`. */
const reorder = (rows: readonly (readonly string[])[], order: readonly number[]): string[][] => rows.map((r) => order.map((c) => r[c]));
const other = table([['x']]);

describe('describeReading: the shape', () => {
  it('describes an unmatched scalar as one row of one column, with its value', () => {
    // 304:26, 304:37 (scalar test), 304:48, 304:49 (the [[value]] table).
    expect(answerMatches('7', other, false)).toEqual({ match: false, interpretation: '1 row × 1 column (JSON)', preview: '7' });
  });

  it('describes a matched empty gold as no rows', () => {
    // 310:11.
    expect(answerMatches('[]', { columns: ['a'], rows: [] }, false)).toEqual({ match: true, interpretation: 'no rows (JSON)', preview: '' });
  });

  it('names labels and a first-line header differently', () => {
    // 312:18, 312:31 (labels), 312:44 (first line).
    const gold = table([['Alice', 30]], ['name', 'age']);
    expect(answerMatches('name: Alice\nage: 30', gold, false).interpretation).toBe('1 row × 2 columns (name: value lines, labels naming the columns)');
    expect(answerMatches('name,age\nAlice,30', gold, false).interpretation).toBe('1 row × 2 columns (comma-separated, first line as the header)');
  });
});

describe('describeReading: the preview', () => {
  it('shows NULL for a null cell', () => {
    // 315:15, 315:28.
    expect(answerMatches('null', other, false).preview).toBe('NULL');
  });

  it('collapses a run of whitespace inside a cell to one space', () => {
    // 315:66 (/\s/ keeps two spaces), 315:78 (joined with nothing).
    expect(answerMatches('"a  b"', other, false).preview).toBe('a b');
  });

  it('reads only the first 64 characters of a cell before collapsing its whitespace', () => {
    // 315:37: 'a', 63 spaces and 'b' is cut to 'a' and 63 spaces, which collapse to 'a '; the whole cell would be 'a b'.
    expect(answerMatches(JSON.stringify(`a${' '.repeat(63)}b`), other, false).preview).toBe('a ');
  });

  it('shows a cell of exactly 24 characters whole', () => {
    // 316:12 (> 24 as >= 24 would cut it to 23 characters and '…').
    const cell = 'abcdefghijklmnopqrstuvwx';
    expect(cell.length).toBe(24);
    expect(answerMatches(JSON.stringify(cell), other, false).preview).toBe(cell);
  });

  it('shows the first four values of a list, then "; …"', () => {
    // 318:17 (all five shown), 321:12 forced false, 321:13 (&&: a list has no rows), 321:30 forced false and !==,
    // 321:41, 321:88.
    expect(answerMatches('[1,2,3,4,5]', other, false)).toEqual({ match: false, interpretation: '5 values (JSON)', preview: '1; 2; 3; 4; …' });
  });

  it('adds no "; …" to exactly four values', () => {
    // 321:12 (> 4 as >= 4).
    expect(answerMatches('[1,2,3,4]', other, false).preview).toBe('1; 2; 3; 4');
  });

  it('shows the first four of five rows, then "; …"', () => {
    // 321:13 (&&: rows.length && 0 is 0 for a reading with rows).
    expect(answerMatches('[[1,2],[3,4],[5,6],[7,8],[9,10]]', other, false)).toEqual({
      match: false,
      interpretation: '5 rows × 2 columns (JSON)',
      preview: '1 | 2; 3 | 4; 5 | 6; 7 | 8; …',
    });
  });

  it('shows the first six cells of a row', () => {
    // 318:102.
    expect(answerMatches('[[1,2,3,4,5,6,7]]', other, false).preview).toBe('1 | 2 | 3 | 4 | 5 | 6');
  });

  it('keeps a preview of exactly 160 characters whole', () => {
    // 320:7 (> 160 as >= 160). Row 1: four cells of 20 letters (4·20 + 3·3 = 89 characters); row 2: four of 15
    // (69); with '; ' between them, 160.
    const a = 'a'.repeat(20);
    const b = 'b'.repeat(15);
    const expected = `${a} | ${a} | ${a} | ${a}; ${b} | ${b} | ${b} | ${b}`;
    expect(expected.length).toBe(160);
    expect(answerMatches(JSON.stringify([[a, a, a, a], [b, b, b, b]]), other, false).preview).toBe(expected);
  });
});

describe('ties: pool rows of another width', () => {
  it('refuses when any segment has a row of another width, even if another segment has none', () => {
    // 339:7 (some segment → every segment): the second segment's one-cell row would match the answer's first cell.
    const ties: GoldTies = { segments: [{ take: 1, pool: [['x', 'q']] }, { take: 1, pool: [['y']] }] };
    expect(answerMatches('x|q\ny|z', table([['a', 'b'], ['c', 'd']]), false, ties).match).toBe(false);
  });

  it('refuses when one row of a pool has another width', () => {
    // 339:28 (some row → every row).
    const ties: GoldTies = { segments: [{ take: 1, pool: [['p', 'q'], ['x']] }] };
    expect(answerMatches('x|w', table([['a', 'b']]), false, ties).match).toBe(false);
  });
});

describe('ties: the column permutations', () => {
  // No column pruning in the tie search: permutations come in lexicographic order (pool column i ↔ answer column
  // perm[i]), the 720 starting with perm[0] = 0 first. Seven distinct values: one permutation fits.
  const pool = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const gold = table([Array<SqlValue>(7).fill('z')]);
  const ties: GoldTies = { segments: [{ take: 1, pool: [pool] }] };

  it('accepts the answer whose columns need the 720th permutation, [0, 6, 5, 4, 3, 2, 1]', () => {
    // 353:25 (<= as <).
    expect(answerMatches(pipeLines(reorder([pool], [0, 6, 5, 4, 3, 2, 1])), gold, false, ties).match).toBe(true);
  });

  it('refuses the answer that needs the 721st, [1, 0, 2, 3, 4, 5, 6] (MAX_COLUMN_PERMUTATIONS is 720)', () => {
    // 353:25 forced true and --tried (no count, so no cap).
    expect(answerMatches(pipeLines(reorder([pool], [1, 0, 2, 3, 4, 5, 6])), gold, false, ties).match).toBe(false);
  });

  it('goes on to the next column after a failed permutation', () => {
    // 360:11 forced true and < (gives up after the first failure).
    expect(answerMatches('b|a', table([['z', 'z']]), false, { segments: [{ take: 1, pool: [['a', 'b']] }] }).match).toBe(true);
  });
});

describe('rows: the column permutations', () => {
  // A staircase: row r holds 'b' in the columns before r, 'a' elsewhere (8 rows, 7 columns). Every column holds both
  // values, so no pair of columns is pruned and the permutations come in lexicographic order; the columns' counts
  // of 'b' differ, so exactly one permutation matches the bag of rows.
  const stairs = Array.from({ length: 8 }, (_, r) => Array.from({ length: 7 }, (_, c) => (c < r ? 'b' : 'a')));
  const gold = table(stairs);

  it('accepts the answer whose columns need the 720th permutation', () => {
    // 383:25 (<= as <). Answer column perm[i] holds gold column i: columns g0, g6, g5, …, g1.
    expect(answerMatches(pipeLines(reorder(stairs, [0, 6, 5, 4, 3, 2, 1])), gold, false).match).toBe(true);
  });

  it('refuses the answer that needs the 721st', () => {
    // 383:25 forced true and --tried. Columns 0 and 1 swapped: perm [1, 0, 2, …, 6].
    expect(answerMatches(pipeLines(reorder(stairs, [1, 0, 2, 3, 4, 5, 6])), gold, false).match).toBe(false);
  });

  it('goes on to the next column after a failed permutation', () => {
    // 390:11 forced true and <. Both columns hold a and b; only swapping them turns 'b a' into 'a b'.
    const g = table([['a', 'b'], ['b', 'b'], ['a', 'a']]);
    expect(answerMatches('b|a\nb|b\na|a', g, false).match).toBe(true);
  });
});

describe('columnsCompatible: pruning', () => {
  it('prunes columns whose values differ, so a swap of two of seven columns is found at once', () => {
    // 401:7 forced true and <=, 403:5 forced true: without pruning the one matching permutation (columns 0 and 1
    // swapped) is the 721st and the cap refuses it; with pruning it is the only one tried.
    const rows = [0, 1].map((r) => Array.from({ length: 7 }, (_, c) => `v${c}r${r}`));
    expect(answerMatches(pipeLines(reorder(rows, [1, 0, 2, 3, 4, 5, 6])), table(rows), false).match).toBe(true);
  });

  it('prunes exactly 500 × 500 distinct values (the cap is "more than 250,000 pairs")', () => {
    // 401:7 (> as >=): each of 7 columns has 500 distinct values of its own; columns 0 and 1 swapped.
    const rows = Array.from({ length: 500 }, (_, r) => Array.from({ length: 7 }, (_, c) => `v${c}r${r}`));
    expect(answerMatches(JSON.stringify(reorder(rows, [1, 0, 2, 3, 4, 5, 6])), table(rows), false).match).toBe(true);
  });

  it('needs every answer value of a column to have a partner in the gold column', () => {
    // 404:10 (the answer side forced true, || for &&, some for every, [] for the values). Gold columns 0–5 are NULL,
    // column 6 is the text 'none' (both rows). Answer column 0 is 'none' (matches NULL and the text 'none'); columns
    // 1–6 are 'null' then 'none' (match NULL, but 'null' is not the text 'none'). So gold column 6 can only take
    // answer column 0; a check of the gold side alone would also let it take 1–6, and the 720 permutations that
    // start with gold 0 → answer 0 would all be tried (and fail) before the match.
    const gold = table([
      [...Array<SqlValue>(6).fill(null), 'none'],
      [...Array<SqlValue>(6).fill(null), 'none'],
    ]);
    const answer = JSON.stringify([
      ['none', ...Array<string>(6).fill('null')],
      ['none', ...Array<string>(6).fill('none')],
    ]);
    expect(answerMatches(answer, gold, false).match).toBe(true);
  });

  it('needs every gold value of a column to have a partner in the answer column', () => {
    // 404:63 (the gold side: some for every, [] for the values). Gold columns 0–5 are NULL; column 6 is NULL then the
    // text 'none'. Answer column 0 is JSON null (matches NULL and the text 'none'); columns 1–6 are the text 'null'
    // (matches NULL, not the text 'none'). Checking only the answer side would let gold column 6 take answer
    // columns 1–6 and gold 0 take answer 0: 720 failed permutations before the match.
    const gold = table([
      [...Array<SqlValue>(6).fill(null), null],
      [...Array<SqlValue>(6).fill(null), 'none'],
    ]);
    const answer = JSON.stringify([
      [null, ...Array<string>(6).fill('null')],
      [null, ...Array<string>(6).fill('null')],
    ]);
    expect(answerMatches(answer, gold, false).match).toBe(true);
  });
});

describe('bagMatch: large bags', () => {
  it('pairs 1001 rows identical to gold rows (the rest, none, is under the 1000-row remainder)', () => {
    // 426:54 (no row keys), 427:9 forced false and 427:17 (<= 0): no row is paired, 1001 rows remain, over the cap.
    const gold = table(Array.from({ length: 1001 }, (_, i) => [i]));
    expect(answerMatches(JSON.stringify(Array.from({ length: 1001 }, (_, i) => 1000 - i)), gold, false).match).toBe(true);
  });

  it('keeps an answer row whose key has run out of gold rows for the exact match', () => {
    // 427:17 forced true and >= 0 (the row is dropped). Gold: 200 × 6 and 6.004; answer: 201 × '6.00', which
    // matches 6 (equal) and 6.004 (2 decimals, within 0.005): the 201st '6.00' must still meet 6.004.
    const gold = table([...Array.from({ length: 200 }, (): SqlValue[] => [6]), [6.004]]);
    expect(answerMatches(JSON.stringify(Array<string>(201).fill('6.00')), gold, false).match).toBe(true);
  });

  it('fails when more than 1000 rows are left after pairing identical ones', () => {
    // 415:7 forced true and 431:10 forced true. 1001 NULLs against 1001 'none': each pair matches, no key is shared.
    const gold = table(Array.from({ length: 1001 }, (): SqlValue[] => [null]));
    expect(answerMatches(JSON.stringify(Array<string>(1001).fill('none')), gold, false).match).toBe(false);
  });

  it('matches exactly 1000 rows left after pairing', () => {
    // 431:10 (<= as <). Gold BLOBs holding the UTF-8 of 'r0'…'r999' against the texts: each pair matches, no key is
    // shared (a BLOB's key is its hex), and each answer row matches one gold row only.
    const encoder = new TextEncoder();
    const gold = table(Array.from({ length: 1000 }, (_, i): SqlValue[] => [encoder.encode(`r${i}`)]));
    expect(answerMatches(JSON.stringify(Array.from({ length: 1000 }, (_, i) => `r${999 - i}`)), gold, false).match).toBe(true);
  });

  // Pairing rows by key first is not exact: '6.00' and '6' share the key of 6, and '6.00' may take the gold 6 that
  // '6' needed. Gold [6, x], [6.004, x], [6, y]; answer ['6.00', x], ['6', x], ['6.00', y] matches as a bag
  // ('6.00' x ↔ 6.004 x, '6' x ↔ 6 x, '6.00' y ↔ 6 y), which the exact match of ≤ 200 rows finds.
  const core = { gold: [[6, 'x'], [6.004, 'x'], [6, 'y']] as SqlValue[][], answer: [['6.00', 'x'], ['6', 'x'], ['6.00', 'y']] };

  it('matches up to 200 rows exactly, without pairing by key first (3 rows)', () => {
    // 415:7 forced false and > (key pairing for small bags).
    expect(answerMatches(JSON.stringify(core.answer), table(core.gold), false).match).toBe(true);
  });

  it('matches exactly 200 rows exactly', () => {
    // 415:7 (<= as <). The three rows above and 197 rows that are the same on both sides.
    const filler = Array.from({ length: 197 }, (_, i) => [100 + i, `f${i}`]);
    const gold = table([...core.gold, ...filler]);
    const answer = JSON.stringify([...core.answer, ...filler.map(([n, f]) => [String(n), f])]);
    expect(answerMatches(answer, gold, false).match).toBe(true);
  });

  it('pairs only rows whose cells are the same text: 200 × x + y is not 199 × x + 2 × y (201 rows)', () => {
    // exactKey's `p.num !== null` forced true and its `t:${text}` emptied (added after the re-run): either gives every
    // text cell one key, so the pairing step would pair all 201 rows and call the bag a match. (The same values in
    // both columns: the column pruning lets it through to the bag match.)
    const gold = table([...Array.from({ length: 199 }, () => ['x']), ['y'], ['y']]);
    expect(answerMatches([...Array.from({ length: 200 }, () => 'x'), 'y'].join('\n'), gold, false).match).toBe(false);
    expect(answerMatches([...Array.from({ length: 199 }, () => 'x'), 'y', 'y'].join('\n'), gold, false).match).toBe(true);
  });
});
