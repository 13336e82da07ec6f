/**
 * What the page shows of database values (src/ui/components/cell-display.ts): clipping keeps the first characters
 * without splitting a surrogate pair, and is quick on a 100 MB string; tables state the rows and columns left out.
 */
import { describe, expect, it } from 'vitest';
import { cellText, clipText, DISPLAY_LIMITS, tableTsv, tableView, workerCutNote } from '../../../src/ui/components/cell-display.ts';
import { readAnswer } from '../../../src/ui/play/answer-table.ts';

describe('cellText', () => {
  it.each([
    [null, 'NULL'],
    [42, '42'],
    [-0.5, '-0.5'],
    ['a\nb', 'a\nb'],
    ['<b>x</b>', '<b>x</b>'],
    [new Uint8Array(3), '<blob 3 bytes>'],
  ])('%j → %j', (value, expected) => {
    expect(cellText(value)).toBe(expected);
  });
});

describe('clipText', () => {
  it.each([
    ['short', 10, { shown: 'short', cut: false }],
    ['exactly10!', 10, { shown: 'exactly10!', cut: false }],
    ['eleven char', 10, { shown: 'eleven cha', cut: true }],
    ['abc😀def', 4, { shown: 'abc', cut: true }], // the emoji's two halves stay together
    ['abc😀def', 5, { shown: 'abc😀', cut: true }],
  ])('%j at %i → %j', (text, max, expected) => {
    expect(clipText(text, max)).toEqual(expected);
  });

  it('clips a 100 MB value to the cell cap without walking it', () => {
    const big = 'x'.repeat(100_000_000);
    const clip = clipText(big, DISPLAY_LIMITS.cellChars);
    expect(clip).toEqual({ shown: 'x'.repeat(DISPLAY_LIMITS.cellChars), cut: true });
  });
});

describe('tableView', () => {
  const limits = { ...DISPLAY_LIMITS, rows: 3, columns: 2 };
  it.each([
    [2, 1, undefined, { columns: 2, rows: 1, note: '1 row' }],
    [2, 3, 3, { columns: 2, rows: 3, note: '3 rows' }],
    [2, 3, 10, { columns: 2, rows: 3, note: 'showing 3 of 10 rows (7 more not shown)' }],
    [2, 5, undefined, { columns: 2, rows: 3, note: 'showing 3 of 5 rows (2 more not shown)' }],
    [2, 5, null, { columns: 2, rows: 3, note: 'showing 3 of more than 5 rows' }],
    [2, 2, null, { columns: 2, rows: 2, note: 'showing 2 of more than 2 rows' }],
    [5, 0, 0, { columns: 2, rows: 0, note: '0 rows; showing 2 of 5 columns (3 more not shown)' }],
    [2001, 4000, 1234567, { columns: 2, rows: 3, note: 'showing 3 of 1,234,567 rows (1,234,564 more not shown); showing 2 of 2,001 columns (1,999 more not shown)' }],
  ])('%i columns, %i rows held, total %j → %j', (columnCount, rowCount, totalRows, expected) => {
    expect(tableView(columnCount, rowCount, totalRows, limits)).toEqual(expected);
  });
});

describe('workerCutNote', () => {
  it.each([
    ['x'.repeat(4096) + '… [cut: 100000000 characters, fnv1a64 0123456789abcdef]', '100,000,000 characters in the database'],
    ['plain text', null],
    ['[blob: 5000 bytes, fnv1a64 0123456789abcdef]', null], // short and self-describing: shown as it is
    [42, null],
    [null, null],
  ])('%j → %j', (value, expected) => {
    expect(workerCutNote(value)).toBe(expected);
  });
});

describe('tableTsv', () => {
  it('writes the header and rows tab-separated, quoting cells with tabs, line breaks or quotes', () => {
    expect(tableTsv(['name', 'n'], [['Rex', 3], [null, 1.5], ['a\tb', 0], ['say "hi"\nthere', -1]])).toBe('name\tn\nRex\t3\nNULL\t1.5\n"a\tb"\t0\n"say ""hi""\nthere"\t-1');
  });
  it('is read back by the answer box as the same rows, header recognised', () => {
    const rows = [['Rex', 3], ['a\tb', 0], ['say "hi"\nthere', -1]];
    const reading = readAnswer(tableTsv(['name', 'n'], rows), { knownColumns: ['name', 'n'] });
    expect(reading).toMatchObject({ kind: 'table', header: ['name', 'n'], rows: rows.map((r) => r.map(String)) });
  });
});
