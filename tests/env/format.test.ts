import { describe, expect, it } from 'vitest';
import { formatDescribe, formatTable } from '../../src/env/format.ts';

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
    expect(text.length).toBeLessThan(300);
    expect(text).toMatch(/showing \d+ of 100 rows; \d+ more not shown/);
  });

  it('renders blobs, newlines and the empty result as text', () => {
    const text = formatTable(['b', 't'], [[new Uint8Array([1, 2, 3]), 'a\nb']], 1, { ...limits, maxCellChars: 20 });
    expect(text).toContain('<blob 3 bytes>');
    expect(text).toContain('a b');
    expect(formatTable(['x'], [], 0, limits)).toContain('(0 rows)');
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
