/**
 * The empty twin of a database: the same schema and no rows. Running a statement on both tells whether its result
 * depends on the database's rows at all: `SELECT 5`, `SELECT (SELECT 5)` or `SELECT * FROM sqlite_master` give the
 * same result on the twin; `SELECT count(*) FROM t` or `SELECT 6 FROM t LIMIT 1` do not (when t has rows).
 *
 * Built as a copy of the database file with every table emptied (DELETE, repeated while triggers refill any),
 * rather than by re-running sqlite_master's `sql` in a new database: a rebuilt schema gets new root page numbers
 * whenever the original's pages interleave (Spider's world_1 does), so `SELECT * FROM sqlite_master` would differ.
 * The copy keeps sqlite_master identical, views, indexes and triggers included. Internal tables (sqlite_sequence,
 * sqlite_stat1) are emptied too: what they hold describes the rows. A table that cannot be emptied (a virtual
 * table whose module sql.js lacks) cannot be read on the source either.
 *
 * Results are compared on their clipped values: same number of columns, and the same rows as a multiset of
 * type-tagged value keys (1 and '1' differ; row order is ignored).
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { quoteIdentifier } from './quote.ts';
import type { SqlRow, SqlValue } from './types.ts';

/** Passes of DELETE over all tables at most: a trigger on one table may insert into another already emptied. */
const MAX_EMPTYING_PASSES = 4;

function tableNames(db: Database): string[] {
  return (db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")[0]?.values ?? []).map((r) => String(r[0]));
}

function isEmpty(db: Database, table: string): boolean {
  try {
    return db.exec(`SELECT EXISTS (SELECT 1 FROM ${quoteIdentifier(table)})`)[0]?.values[0]?.[0] === 0;
  } catch {
    return true; // unreadable (a virtual table without its module): unreadable on the source too
  }
}

/** Builds the empty twin of the database stored in `bytes`, read-only like every database the engine opens. */
export function buildEmptyTwin(sql: SqlJsStatic, bytes: Uint8Array): Database {
  const twin = new sql.Database(bytes);
  try {
    const tables = tableNames(twin);
    for (let pass = 0; pass < MAX_EMPTYING_PASSES; pass++) {
      const full = tables.filter((t) => !isEmpty(twin, t));
      if (full.length === 0) break;
      for (const table of full) {
        try {
          twin.run(`DELETE FROM ${quoteIdentifier(table)}`);
        } catch {
          // Left as it is; see the header.
        }
      }
    }
    twin.run('PRAGMA query_only = 1');
  } catch (e) {
    twin.close();
    throw e;
  }
  return twin;
}

/** Type-tagged key of one clipped value: `null` | `n:<number>` | `s:<text>` | `b:<hex>`. */
function valueKey(value: SqlValue): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `n:${String(value)}`;
  if (typeof value === 'string') return `s:${value}`;
  let hex = '';
  for (const byte of value) hex += byte.toString(16).padStart(2, '0');
  return `b:${hex}`;
}

/** A row's key: its value keys in column order, each prefixed by its length so no separator can collide. */
function rowKey(row: SqlRow): string {
  return row.map((v) => {
    const key = valueKey(v);
    return `${key.length}:${key}`;
  }).join('');
}

/** Whether two results have as many columns and the same rows as a multiset (row order ignored). */
export function sameRows(a: { columns: string[]; rows: SqlRow[] }, b: { columns: string[]; rows: SqlRow[] }): boolean {
  if (a.columns.length !== b.columns.length || a.rows.length !== b.rows.length) return false;
  const counts = new Map<string, number>();
  for (const row of a.rows) {
    const key = rowKey(row);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const row of b.rows) {
    const key = rowKey(row);
    const count = counts.get(key);
    if (!count) return false;
    counts.set(key, count - 1);
  }
  return true;
}
