/**
 * Observation text: alignment and notes on golden tables, and hard budgets: the whole text (notes included) never
 * passes maxChars, however wide, long or many the values are; upstream clip markers stay visible.
 */
import { describe, expect, it } from 'vitest';
import { formatDescribe, formatTable, type TableFormatLimits } from '../../src/env/format.ts';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { clipBlob, clipText } from '../../src/sql/clip.ts';
import { VALUE_LIMITS } from '../../src/sql/limits.ts';
import type { SqlValue } from '../../src/sql/types.ts';

const limits = { maxRows: 3, maxCellChars: 10, maxChars: 10_000 };

describe('formatTable', () => {
  it('aligns columns and counts rows', () => {
    expect(formatTable(['id', 'name'], [[1, 'Ana'], [22, null]], 2, limits)).toBe(['id | name', '---+-----', '1  | Ana', '22 | NULL', '(2 rows)'].join('\n'));
  });

  it('states truncated rows, unknown totals and cut values', () => {
    const rows = Array.from({ length: 5 }, (_, i) => [i, 'x'.repeat(20)]);
    const text = formatTable(['i', 's'], rows, 5, limits);
    expect(text).toContain('showing 3 of 5 rows; 2 more not shown');
    expect(text).toContain("values longer than 10 characters cut with '…'");
    expect(text).toContain('xxxxxxxxx…');
    expect(formatTable(['i'], [[1], [2]], null, limits)).toContain('showing 2 of more than 2 rows');
  });

  it('keeps within the character budget and says how many rows it dropped', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i, 'abcdefghij']);
    const text = formatTable(['i', 's'], rows, 100, { maxRows: 100, maxCellChars: 60, maxChars: 200 });
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toMatch(/showing \d+ of 100 rows; \d+ more not shown/);
  });

  it('renders blobs, newlines and the empty result as text', () => {
    const text = formatTable(['b', 't'], [[new Uint8Array([1, 2, 3]), 'a\nb']], 1, { ...limits, maxCellChars: 20 });
    expect(text).toContain('<blob 3 bytes>');
    expect(text).toContain('a b');
    expect(formatTable(['x'], [], 0, limits)).toContain('(0 rows)');
  });
});

const OBSERVATION: TableFormatLimits = {
  maxRows: VALUE_LIMITS.observationRows,
  maxCellChars: VALUE_LIMITS.observationCellChars,
  maxChars: VALUE_LIMITS.observationChars,
  maxColumns: VALUE_LIMITS.observationColumns,
};

describe('formatTable budgets', () => {
  it('shows at most maxColumns of 2,000 one-character columns and counts the rest', () => {
    const columns = Array.from({ length: 2_000 }, (_, i) => String.fromCharCode(97 + (i % 26)));
    const text = formatTable(columns, [columns.map(() => 'x')], 1, OBSERVATION);
    expect(text.length).toBeLessThanOrEqual(VALUE_LIMITS.observationChars);
    expect(text).toContain(`${2_000 - VALUE_LIMITS.observationColumns} more columns not shown`);
    expect(text.split('\n')[2].split('|')).toHaveLength(VALUE_LIMITS.observationColumns);
  });

  it('cuts a 100k-character column name to the table budget, even when cells may be that wide', () => {
    for (const maxCellChars of [VALUE_LIMITS.observationCellChars, 100_000]) {
      const text = formatTable(['n'.repeat(100_000), 'id'], [[1, 2]], 1, { ...OBSERVATION, maxCellChars });
      expect(text.length).toBeLessThanOrEqual(VALUE_LIMITS.observationChars);
      expect(text.split('\n')[0]).toMatch(/^n+… \| id$/);
      expect(text).toContain('(1 row;');
    }
  });

  it('fits one 4k-character cell in a table whose cells may be wider than the whole budget', () => {
    const text = formatTable(['v'], [['q'.repeat(4_096)]], 1, { maxRows: 20, maxCellChars: 10_000, maxChars: 2_000 });
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text).toMatch(/q+…/);
    expect(text).toContain('(1 row; values longer than');
  });

  it('keeps the marker of a value clipped upstream visible, with its full length', () => {
    const cell = clipText('z'.repeat(90_000), VALUE_LIMITS.cellChars).value;
    const blob = clipBlob(new Uint8Array(50_000), VALUE_LIMITS.blobBytes).value;
    const text = formatTable(['v', 'b'], [[cell, blob]], 1, OBSERVATION, { clippedCells: 2 });
    expect(text.length).toBeLessThanOrEqual(VALUE_LIMITS.observationChars);
    expect(text).toMatch(/z+… \[cut: 90000 characters\]/);
    expect(text).toContain('<blob 50000 bytes>');
    expect(text).toContain("2 values too long to keep were clipped when read; '[cut: N characters]' gives the full length");
  });

  it('keeps the marker visible in narrow cells, and states a stop at the character budget', () => {
    const cell = clipText('z'.repeat(90_000), VALUE_LIMITS.cellChars).value;
    const text = formatTable(['v'], [[cell]], null, { maxRows: 5, maxCellChars: 20, maxChars: 2_000 }, { truncatedBy: 'chars' });
    expect(text).toContain('…[90000 chars]');
    expect(text).toContain(`the result stopped at the ${VALUE_LIMITS.resultChars} characters a result may hold`);
  });

  it('narrows the cells of a wide table before dropping columns', () => {
    const columns = Array.from({ length: 24 }, (_, i) => `column_${i}`);
    const rows = Array.from({ length: 3 }, () => columns.map(() => 'a fairly long value of sixty characters, more or less, here'));
    const text = formatTable(columns, rows, 3, OBSERVATION);
    expect(text.length).toBeLessThanOrEqual(VALUE_LIMITS.observationChars);
    expect(text).not.toContain('more column');
    expect(text).toContain('3 rows');
  });

  it('never passes maxChars on seeded random tables and budgets', () => {
    const rng = createRng(20_240_601);
    const pieces = ['a', 'é', '😀', '\n', '\t', ' ', 'longer word ', '…', '|'];
    const text = (r: Rng, n: number): string => Array.from({ length: n }, () => pieces[randomInt(r, pieces.length)]).join('');
    const value = (r: Rng): SqlValue => {
      switch (randomInt(r, 6)) {
        case 0: return null;
        case 1: return randomInt(r, 1e9) / 7;
        case 2: return new Uint8Array(randomInt(r, 100));
        case 3: return clipText(text(r, 400), randomInt(r, 300)).value;
        default: return text(r, randomInt(r, 200));
      }
    };
    for (let trial = 0; trial < 300; trial++) {
      const columns = Array.from({ length: randomInt(rng, 60) }, () => text(rng, randomInt(rng, 80)));
      const rows = Array.from({ length: randomInt(rng, 30) }, () => columns.map(() => value(rng)));
      const limits = { maxRows: 1 + randomInt(rng, 25), maxCellChars: 1 + randomInt(rng, 120), maxChars: 40 + randomInt(rng, 3_000), maxColumns: 1 + randomInt(rng, 30) };
      const out = formatTable(columns, rows, randomInt(rng, 2) === 0 ? null : rows.length, limits);
      expect(out.length).toBeLessThanOrEqual(limits.maxChars);
      if (limits.maxChars >= 400) expect(out).toMatch(/\((showing|\d+ rows?)[^\n]*\)$/);
    }
  });
});

describe('formatDescribe', () => {
  it('lists columns with types, keys and foreign keys', () => {
    const text = formatDescribe({
      name: 'performs',
      rowCount: 1,
      columns: [
        { name: 'id', type: 'INTEGER', notNull: false, primaryKey: 1 },
        { name: 'singer_id', type: 'INTEGER', notNull: true, primaryKey: 0 },
      ],
      foreignKeys: [{ column: 'singer_id', refTable: 'singer', refColumn: 'singer_id' }],
    });
    expect(text).toContain('Table performs (1 row), columns:');
    expect(text).toMatch(/id\s+INTEGER\s+PRIMARY KEY/);
    expect(text).toMatch(/singer_id\s+INTEGER\s+NOT NULL/);
    expect(text).toContain('singer_id -> singer.singer_id');
  });
});

describe('formatDescribe budgets', () => {
  it('keeps a 2,000-column table with long names within its budget and counts the lines left out', () => {
    const text = formatDescribe({
      name: 't'.repeat(10_000),
      rowCount: 3,
      columns: Array.from({ length: 2_000 }, (_, i) => ({ name: `${'c'.repeat(4_000)}${i}`, type: 'TEXT', notNull: false, primaryKey: 0 })),
      foreignKeys: [],
    });
    expect(text.length).toBeLessThanOrEqual(VALUE_LIMITS.describeChars);
    expect(text).toMatch(/\(\d+ more lines not shown: the description is over 8000 characters\)$/);
  });
});
