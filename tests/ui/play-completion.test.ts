/**
 * The SQL editor's completion (src/ui/play/completion.ts), checked through CodeMirror's own machinery: the editor's
 * language extensions are put in an EditorState and every `autocomplete` source of the language data is asked, as
 * the autocompletion plugin asks them. A bare word must offer columns, and SAVEPOINT/SCROLL must rank below names.
 */
import { CompletionContext, type Completion, type CompletionResult, type CompletionSource } from '@codemirror/autocomplete';
import { SQLite, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { bareWordSource, COMPLETION_BOOST, completionSchema, keywordOption } from '../../src/ui/play/completion.ts';
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
  {
    name: 'shelf',
    rowCount: 1,
    columns: [
      { name: 'id', type: 'INTEGER', notNull: true, primaryKey: 1 },
      { name: 'savings', type: 'REAL', notNull: false, primaryKey: 0 },
    ],
    foreignKeys: [],
  },
];

/** Every option CodeMirror's sources give at the end of `doc` (the editor's extensions, as SqlEditor builds them). */
async function optionsAt(doc: string): Promise<Completion[]> {
  const state = EditorState.create({
    doc,
    extensions: [sql({ dialect: SQLite, schema: completionSchema(tables), upperCaseKeywords: true, keywordCompletion: keywordOption }), SQLite.language.data.of({ autocomplete: bareWordSource(tables) })],
  });
  const pos = doc.length;
  const sources = state.languageDataAt<CompletionSource>('autocomplete', pos);
  const results = await Promise.all(sources.map(async (source) => source(new CompletionContext(state, pos, false))));
  return results.filter((r): r is CompletionResult => r !== null).flatMap((r) => [...r.options]);
}

const boost = (o: Completion) => o.boost ?? 0;

describe('SQL completion', () => {
  it('offers every column name for a bare word, saying which tables hold it', async () => {
    const options = await optionsAt('SELECT ti');
    const title = options.find((o) => o.label === 'title');
    expect(title?.detail).toBe('column · books');
    expect(options.find((o) => o.label === 'id')?.detail).toBe('column · books, shelf');
    expect(options.map((o) => o.label)).toContain('books');
  });

  it('ranks SAVEPOINT and SCROLL below every table and column name, and SELECT above them', async () => {
    const options = await optionsAt('SELECT s');
    const names = options.filter((o) => ['books', 'shelf', 'savings', 'title', 'id'].includes(o.label));
    expect(names.length).toBe(5);
    const lowestName = Math.min(...names.map(boost));
    for (const word of ['SAVEPOINT', 'SCROLL']) {
      const option = options.find((o) => o.label === word);
      expect(option, word).toBeDefined();
      expect(boost(option!)).toBeLessThan(lowestName);
    }
    expect(boost(options.find((o) => o.label === 'SELECT')!)).toBeGreaterThan(boost(options.find((o) => o.label === 'SAVEPOINT')!));
  });

  it('after `table.` offers that table’s columns only: no keywords, no other table’s columns', async () => {
    const labels = (await optionsAt('SELECT shelf.')).map((o) => o.label).sort();
    expect(labels).toEqual(['id', 'savings']);
  });

  it('says row counts with the right plural and is empty before the schema arrives', () => {
    const schema = completionSchema(tables) as Record<string, SQLNamespace>;
    expect(schema.books).toMatchObject({ self: { detail: 'table · 80 rows' } });
    expect(schema.shelf).toMatchObject({ self: { detail: 'table · 1 row' } });
    expect(completionSchema(null)).toEqual({});
  });

  it('keeps the query words up and sinks the rest of the dialect', () => {
    expect(keywordOption('WHERE', 'keyword').boost).toBe(COMPLETION_BOOST.queryWord);
    expect(keywordOption('VACUUM', 'keyword').boost).toBe(COMPLETION_BOOST.otherWord);
  });
});
