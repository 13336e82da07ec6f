/** The SQL editor's completion schema (src/ui/play/completion.ts): tables with row counts, columns with types. */
import { describe, expect, it } from 'vitest';
import { completionSchema } from '../../src/ui/play/completion.ts';
import type { TableInfo } from '../../src/sql/types.ts';

const tables: TableInfo[] = [
  {
    name: 'books',
    rowCount: 80,
    columns: [
      { name: 'id', type: 'INTEGER', notNull: true, primaryKey: 1 },
      { name: 'title', type: '', notNull: false, primaryKey: 0 },
    ],
    foreignKeys: [],
  },
];

describe('completionSchema', () => {
  it('maps each table to its columns, with details', () => {
    expect(completionSchema(tables)).toEqual({
      books: {
        self: { label: 'books', type: 'type', detail: 'table · 80 rows' },
        children: [
          { label: 'id', type: 'property', detail: 'INTEGER' },
          { label: 'title', type: 'property', detail: 'any' },
        ],
      },
    });
  });
  it('is empty before the schema arrives', () => {
    expect(completionSchema(null)).toEqual({});
  });
});
