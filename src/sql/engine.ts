/**
 * The in-thread SQL engine: sql.js databases keyed by name, each a private in-memory copy opened from bytes with
 * `PRAGMA query_only` on. It runs statements synchronously, so it cannot stop a runaway query by itself: run it in
 * a worker (`worker-executor.ts`) wherever a time limit matters.
 *
 * Every result, the user's and its own metadata queries alike, is read under the value budgets (read-result.ts),
 * so what leaves the engine is bounded whatever SQLite returned. Each database may also have an empty twin
 * (empty-twin.ts), built from the database's bytes on the first `compareWithEmpty` query. A database loaded with a
 * content key (content-key.ts) shares its twin with every later load of the same content, so an environment that
 * reopens a database each episode builds its twin once; the most recent MAX_SHARED_TWINS such twins are kept.
 * Without a key the twin is dropped with the database. The bytes are kept while loaded (the caller's array).
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { buildEmptyTwin, sameRows } from './empty-twin.ts';
import { checkReadOnlySql } from './guard.ts';
import { quoteIdentifier } from './quote.ts';
import { RESULT_BUDGET, type ResultBudget } from './limits.ts';
import { readStatement, type ReadResult } from './read-result.ts';
import { SqlError, type ColumnInfo, type ForeignKeyInfo, type QueryResult, type TableInfo } from './types.ts';

export interface QueryOptions {
  /** Rows read at most; one more is stepped to detect truncation. */
  maxRows: number;
  /** Also run the statement on the empty twin and set `readsData` (see `QueryResult.readsData`). */
  compareWithEmpty?: boolean;
}

export { quoteIdentifier } from './quote.ts';

/** Shared empty twins kept at most (one per database content; Spider's dev databases are 20, each ≤ 312 KB). */
export const MAX_SHARED_TWINS = 32;

export class SqlEngine {
  private readonly databases = new Map<string, Database>();
  /** The bytes each database was opened from, and the key its twin is kept under. */
  private readonly sources = new Map<string, { bytes: Uint8Array; twinKey: string }>();
  /**
   * Empty twins by twin key (a content key, or `db:<dbKey>`), least recently used first; null when building one
   * failed (every compared query then counts as reading data).
   */
  private readonly twins = new Map<string, Database | null>();
  /** Empty twins built so far, and kept now (for tests and benchmarks). */
  readonly twinStats = { built: 0, kept: 0 };
  private readonly sql: SqlJsStatic;
  private readonly budget: ResultBudget;

  /** `budget` defaults to limits.ts; tests may pass smaller ones. */
  constructor(sql: SqlJsStatic, budget: ResultBudget = RESULT_BUDGET) {
    this.sql = sql;
    this.budget = budget;
  }

  /**
   * Opens (or replaces) `dbKey` with a fresh copy of `bytes`; throws SqlError('sql') for a file that is not SQLite.
   * `contentKey` names the bytes' content (content-key.ts): loads with one key share one empty twin.
   */
  load(dbKey: string, bytes: Uint8Array, contentKey?: string): void {
    this.unload(dbKey);
    let db: Database | undefined;
    try {
      db = new this.sql.Database(bytes);
      // Reading the schema forces SQLite to parse the header: a corrupt file fails here, not on the first query.
      db.exec('SELECT count(*) FROM sqlite_master');
      db.exec('PRAGMA query_only = 1');
    } catch (e) {
      db?.close();
      throw new SqlError('sql', `Database '${dbKey}' could not be opened: ${(e as Error).message}. Is it a SQLite 3 file?`);
    }
    this.databases.set(dbKey, db);
    this.sources.set(dbKey, { bytes, twinKey: contentKey === undefined ? `db:${dbKey}` : `content:${contentKey}` });
  }

  unload(dbKey: string): void {
    const source = this.sources.get(dbKey);
    this.sources.delete(dbKey);
    // A twin of its own goes with the database; a shared one stays for the next load of the same content.
    if (source?.twinKey.startsWith('db:')) this.dropTwin(source.twinKey);
    this.databases.get(dbKey)?.close();
    this.databases.delete(dbKey);
  }

  has(dbKey: string): boolean {
    return this.databases.has(dbKey);
  }

  private db(dbKey: string): Database {
    const db = this.databases.get(dbKey);
    if (!db) throw new SqlError('no-database', `Database '${dbKey}' is not loaded.`);
    return db;
  }

  /** Runs one guarded read-only statement and reads at most `maxRows` rows (plus one stepped to detect truncation). */
  query(dbKey: string, sql: string, options: QueryOptions): QueryResult {
    const verdict = checkReadOnlySql(sql);
    if (!verdict.ok) throw new SqlError('refused', verdict.reason);
    const result = this.run(dbKey, verdict.sql, options.maxRows);
    if (!options.compareWithEmpty) return result;
    return { ...result, readsData: this.readsData(dbKey, verdict.sql, options.maxRows, result) };
  }

  /** `sql` as the guard passes it to SQLite (for a later `readsData` of the same statement). */
  guarded(sql: string): string {
    const verdict = checkReadOnlySql(sql);
    if (!verdict.ok) throw new SqlError('refused', verdict.reason);
    return verdict.sql;
  }

  /** Whether `result` differs from what `sql` gives on the empty twin; a failure or a truncation there counts as yes. */
  readsData(dbKey: string, sql: string, maxRows: number, result: QueryResult): boolean {
    const twin = this.twin(dbKey);
    if (!twin) return true;
    let empty: ReadResult;
    try {
      empty = read(twin, sql, maxRows, this.budget);
    } catch (e) {
      // SQLite failing on the twin (a virtual table whose module is missing, a run-time error) counts as reading; anything else
      // (an abort inside WASM) must still reach the worker host, which replaces the worker.
      if (e instanceof SqlError) return true;
      throw e;
    }
    return empty.truncated || !sameRows(result, empty);
  }

  private twin(dbKey: string): Database | null {
    this.db(dbKey);
    const source = this.sources.get(dbKey);
    if (!source) return null;
    const key = source.twinKey;
    if (this.twins.has(key)) {
      // Most recently used last.
      const twin = this.twins.get(key) ?? null;
      this.twins.delete(key);
      this.twins.set(key, twin);
      return twin;
    }
    let twin: Database | null;
    try {
      twin = buildEmptyTwin(this.sql, source.bytes);
    } catch {
      twin = null;
    }
    this.twins.set(key, twin);
    this.twinStats.built++;
    const shared = [...this.twins.keys()].filter((k) => k.startsWith('content:'));
    for (const old of shared.slice(0, Math.max(0, shared.length - MAX_SHARED_TWINS))) this.dropTwin(old);
    this.twinStats.kept = this.twins.size;
    return twin;
  }

  private dropTwin(key: string): void {
    this.twins.get(key)?.close();
    this.twins.delete(key);
    this.twinStats.kept = this.twins.size;
  }

  private run(dbKey: string, sql: string, maxRows: number): QueryResult {
    const db = this.db(dbKey);
    const started = performance.now();
    const result = read(db, sql, maxRows, this.budget);
    return { ...result, readsData: true, elapsedMs: performance.now() - started };
  }

  tables(dbKey: string): string[] {
    const result = this.run(dbKey, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid", 100_000);
    return result.rows.map((r) => String(r[0]));
  }

  /** The table's real name as stored, matched case-insensitively (as SQLite matches identifiers), or null. */
  resolveTable(dbKey: string, table: string): string | null {
    const wanted = table.toLowerCase();
    return this.tables(dbKey).find((t) => t.toLowerCase() === wanted) ?? null;
  }

  describe(dbKey: string, table: string): TableInfo {
    const name = this.resolveTable(dbKey, table);
    if (name === null) throw new SqlError('sql', `No table named '${table}'.`);
    const q = quoteIdentifier(name);
    const columns: ColumnInfo[] = this.run(dbKey, `SELECT name, type, "notnull", pk FROM pragma_table_info(${sqlString(name)})`, 10_000).rows.map((r) => ({
      name: String(r[0]),
      type: String(r[1] ?? ''),
      notNull: r[2] === 1,
      primaryKey: Number(r[3]),
    }));
    const foreignKeys: ForeignKeyInfo[] = this.run(dbKey, `SELECT "from", "table", "to" FROM pragma_foreign_key_list(${sqlString(name)})`, 10_000).rows.map((r) => ({
      column: String(r[0]),
      refTable: String(r[1]),
      refColumn: r[2] === null ? null : String(r[2]),
    }));
    const rowCount = Number(this.run(dbKey, `SELECT count(*) FROM ${q}`, 1).rows[0][0]);
    return { name, columns, foreignKeys, rowCount };
  }

  sample(dbKey: string, table: string, rows: number): QueryResult {
    const name = this.resolveTable(dbKey, table);
    if (name === null) throw new SqlError('sql', `No table named '${table}'.`);
    return this.run(dbKey, `SELECT * FROM ${quoteIdentifier(name)} LIMIT ${Math.max(0, Math.floor(rows))}`, rows);
  }

  close(): void {
    for (const key of [...this.databases.keys()]) this.unload(key);
  }
}

/** Prepares `sql` on `db` and reads it under `budget`; SQLite's failures become SqlError('sql'). */
function read(db: Database, sql: string, maxRows: number, budget: ResultBudget): ReadResult {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (e) {
    throw new SqlError('sql', e instanceof Error ? e.message : String(e));
  }
  try {
    return readStatement(stmt, maxRows, budget);
  } finally {
    stmt.free();
  }
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
