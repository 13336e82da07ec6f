/**
 * The in-thread SQL engine: sql.js databases keyed by name, each a private in-memory copy opened from bytes with
 * `PRAGMA query_only` on. It runs statements synchronously, so it cannot stop a runaway query by itself: run it in
 * a worker (`worker-executor.ts`) wherever a time limit matters.
 *
 * Every result, the user's and its own metadata queries alike, is read under the value budgets (read-result.ts),
 * so what leaves the engine is bounded whatever SQLite returned. Each database content also has perturbed copies
 * (perturbed-copies.ts), built on the first `runOnCopies` (or `buildCopies`) and shared by every later load of the
 * same content (content-key.ts); the most recent MAX_SHARED_COPY_SETS sets are kept. A load without a content key
 * has copies of its own, dropped with it. Gold results on the copies are cached per content, copy and SQL (the
 * most recent MAX_GOLD_RUNS). The bytes are kept while loaded (the caller's array).
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { checkReadOnlySql } from './guard.ts';
import { withoutLegacyFunctions } from './legacy-functions.ts';
import { buildPerturbedCopies, goldTextLiterals, rewriteGoldLiterals, type PerturbedCopy } from './perturbed-copies.ts';
import { quoteIdentifier } from './quote.ts';
import { RESULT_BUDGET, type ResultBudget } from './limits.ts';
import { readStatement, type ReadResult } from './read-result.ts';
import { SqlError, type ColumnInfo, type CopiesRun, type CopyRun, type ForeignKeyInfo, type QueryResult, type TableInfo } from './types.ts';
import { asWasmTrap } from './wasm-trap.ts';

/** One open connection, the bytes it was opened from, and how many loaded keys use it. */
interface SharedConnection {
  db: Database;
  bytes: Uint8Array;
  users: number;
}

export interface QueryOptions {
  /** Rows read at most; one more is stepped to detect truncation. */
  maxRows: number;
}

export { quoteIdentifier } from './quote.ts';

/** Sets of perturbed copies kept at most (one per database content; Spider's dev databases are 20, each ≤ 312 KB). */
export const MAX_SHARED_COPY_SETS = 32;
/** Gold results on copies kept at most (each within the result budget; Spider's are a few rows). */
export const MAX_GOLD_RUNS = 4_096;

export class SqlEngine {
  /** The connection each loaded key reads (several keys share one when loaded with one content key). */
  private readonly databases = new Map<string, Database>();
  /** Open connections by connection key (`content:<contentKey>`, or `db:<dbKey>` for a load without one). */
  private readonly connections = new Map<string, SharedConnection>();
  /** The connection key of each loaded key. */
  private readonly connectionKeys = new Map<string, string>();
  /** The bytes each database was opened from, and the key its copies are kept under. */
  private readonly sources = new Map<string, { bytes: Uint8Array; copiesKey: string }>();
  /**
   * Perturbed copies by copies key (a content key, or `db:<dbKey>`), least recently used first; a copy SQLite
   * could not build is null.
   */
  private readonly copySets = new Map<string, Array<PerturbedCopy | null>>();
  /** Gold results on copies by `copiesKey|copy|maxRows|sql`, least recently used first; null: SQLite failed there. */
  private readonly goldRuns = new Map<string, ReadResult | null>();
  /** Lower-cased table, view and column names by copies key (so by content: reloads reuse them). */
  private readonly names = new Map<string, Set<string>>();
  /** Copy sets built so far, kept now and built with a copy missing; gold runs computed (for tests and benchmarks). */
  readonly copyStats = { built: 0, kept: 0, incomplete: 0, goldRuns: 0 };
  private readonly sql: SqlJsStatic;
  private readonly budget: ResultBudget;

  /** `budget` defaults to limits.ts; tests may pass smaller ones. */
  constructor(sql: SqlJsStatic, budget: ResultBudget = RESULT_BUDGET) {
    // Every database this engine opens (copies included) lacks sql.js's unsafe legacy functions (legacy-functions.ts).
    this.sql = withoutLegacyFunctions(sql);
    this.budget = budget;
  }

  /**
   * Opens (or replaces) `dbKey` on `bytes`; throws SqlError('sql') for a file that is not SQLite. `contentKey` names
   * the bytes' content (content-key.ts): loads with one key share one read-only connection (see `share`) and one
   * set of perturbed copies. Without a key, `dbKey` gets a connection of its own.
   */
  load(dbKey: string, bytes: Uint8Array, contentKey?: string): void {
    const connectionKey = contentKey === undefined ? `db:${dbKey}` : `content:${contentKey}`;
    // Replacing a key by the content it already has must not close the connection and open it again.
    if (contentKey === undefined || this.connections.get(connectionKey) === undefined) this.unload(dbKey);
    let connection = this.connections.get(connectionKey);
    if (!connection) {
      try {
        connection = { db: this.open(dbKey, bytes), bytes, users: 0 };
      } catch (e) {
        this.unload(dbKey);
        throw e;
      }
      this.connections.set(connectionKey, connection);
    }
    this.attach(dbKey, connectionKey, connection);
  }

  /**
   * Opens `dbKey` on the connection already open for `contentKey`, without its bytes (the worker executor sends
   * them only when the worker has no load of that content); false, and nothing changed, when there is none.
   *
   * Sharing one connection between sessions is safe because nothing a session can run changes it: every connection
   * is `query_only`, the guard lets through one SELECT/WITH statement only (no PRAGMA, ATTACH, temp objects or
   * transactions), and each statement is prepared and freed within its own request (tests/sql/shared-connections).
   */
  share(dbKey: string, contentKey: string): boolean {
    const connectionKey = `content:${contentKey}`;
    const connection = this.connections.get(connectionKey);
    if (!connection) return false;
    this.attach(dbKey, connectionKey, connection);
    return true;
  }

  /** Opens a read-only database on `bytes`, refusing a file that is not SQLite; may throw a WasmTrapError. */
  private open(dbKey: string, bytes: Uint8Array): Database {
    let db: Database | undefined;
    try {
      db = new this.sql.Database(bytes);
      // Reading the schema forces SQLite to parse the header: a corrupt file fails here, not on the first query.
      db.exec('SELECT count(*) FROM sqlite_master');
      db.exec('PRAGMA query_only = 1');
      return db;
    } catch (e) {
      const trap = asWasmTrap(e);
      if (trap) throw trap;
      db?.close();
      throw new SqlError('sql', `Database '${dbKey}' could not be opened: ${(e as Error).message}. Is it a SQLite 3 file?`);
    }
  }

  private attach(dbKey: string, connectionKey: string, connection: SharedConnection): void {
    // A key moving to another connection lets go of its old one; one staying on the same connection keeps its count.
    if (this.connectionKeys.get(dbKey) !== connectionKey) {
      this.unload(dbKey);
      connection.users++;
    }
    this.connectionKeys.set(dbKey, connectionKey);
    this.databases.set(dbKey, connection.db);
    this.sources.set(dbKey, { bytes: connection.bytes, copiesKey: connectionKey });
  }

  /** Forgets `dbKey`; its connection closes when no other key uses it (memory goes back with the last one). */
  unload(dbKey: string): void {
    const source = this.sources.get(dbKey);
    this.sources.delete(dbKey);
    // Copies of its own go with the database; shared ones stay for the next load of the same content.
    if (source?.copiesKey.startsWith('db:')) this.dropCopies(source.copiesKey);
    this.databases.delete(dbKey);
    const connectionKey = this.connectionKeys.get(dbKey);
    this.connectionKeys.delete(dbKey);
    const connection = connectionKey === undefined ? undefined : this.connections.get(connectionKey);
    if (connectionKey === undefined || !connection || --connection.users > 0) return;
    connection.db.close();
    this.connections.delete(connectionKey);
  }

  /** Connections open now (each shared by every key loaded with its content), for tests and benchmarks. */
  get openConnections(): number {
    return this.connections.size;
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
    return this.run(dbKey, guard(sql), options.maxRows);
  }

  /** Builds the database's perturbed copies if they are not kept yet; returns how many could be built. */
  buildCopies(dbKey: string): number {
    return this.copies(dbKey).filter((c) => c !== null).length;
  }

  /**
   * Runs `sql` and `goldSql` on each perturbed copy of `dbKey` (the gold's runs cached). A failure of SQLite on a copy is a null result there; `sql` refused by the guard
   * throws, as `query` does. When any copy of the database could not be built, no copy judges (an empty run, which
   * closeness.ts scores 0): with a copy missing, a guess that only that copy would expose could be paid, so the
   * engine fails closed rather than judging with the copies it has (logged once per copy set, in `copies`).
   */
  runOnCopies(dbKey: string, sql: string, goldSql: string, maxRows: number): CopiesRun {
    const statement = guard(sql);
    const gold = guard(goldSql);
    const db = this.db(dbKey);
    const source = this.sources.get(dbKey);
    const copiesKey = source?.copiesKey ?? `db:${dbKey}`;
    const copies: CopyRun[] = [];
    const built = this.copies(dbKey);
    if (built.some((copy) => copy === null)) return { copies };
    const names = this.schemaNames(copiesKey, db);
    const literals = goldTextLiterals(gold, names);
    built.forEach((copy, index) => {
      if (!copy) return;
      // On a copy whose values changed, the gold's own literals are spelled as the copy spells them (perturbed-copies.ts).
      const spell = (text: string) => (copy.plan.changeValues ? rewriteGoldLiterals(text, literals, names, copy.seeds) : text);
      const goldRun = this.goldRun(copiesKey, index, copy.db, spell(gold), maxRows);
      // The gold itself (an Oracle's first query) needs no second run.
      copies.push({ result: statement === gold ? goldRun : this.tryRead(copy.db, spell(statement), maxRows), gold: goldRun });
    });
    return { copies };
  }

  private schemaNames(copiesKey: string, db: Database): Set<string> {
    let names = this.names.get(copiesKey);
    if (!names) {
      const rows = db.exec(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') UNION SELECT p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type IN ('table', 'view')",
      )[0]?.values ?? [];
      names = new Set(rows.map((r) => String(r[0]).toLowerCase()));
      this.names.set(copiesKey, names);
    }
    return names;
  }

  /** `read`, with SQLite's failures (SqlError) as null; anything else (a trap inside WASM) is thrown on. */
  private tryRead(db: Database, sql: string, maxRows: number): ReadResult | null {
    try {
      return read(db, sql, maxRows, this.budget);
    } catch (e) {
      if (e instanceof SqlError) return null;
      throw e;
    }
  }

  private goldRun(copiesKey: string, index: number, copy: Database, sql: string, maxRows: number): ReadResult | null {
    const key = `${copiesKey}|${index}|${maxRows}|${sql}`;
    if (this.goldRuns.has(key)) {
      const kept = this.goldRuns.get(key) ?? null;
      this.goldRuns.delete(key);
      this.goldRuns.set(key, kept);
      return kept;
    }
    const run = this.tryRead(copy, sql, maxRows);
    this.goldRuns.set(key, run);
    this.copyStats.goldRuns++;
    if (this.goldRuns.size > MAX_GOLD_RUNS) this.goldRuns.delete(this.goldRuns.keys().next().value as string);
    return run;
  }

  private copies(dbKey: string): Array<PerturbedCopy | null> {
    this.db(dbKey);
    const source = this.sources.get(dbKey);
    if (!source) return [];
    const key = source.copiesKey;
    const kept = this.copySets.get(key);
    if (kept) {
      // Most recently used last.
      this.copySets.delete(key);
      this.copySets.set(key, kept);
      return kept;
    }
    const built = buildPerturbedCopies(this.sql, source.bytes);
    this.copySets.set(key, built);
    this.copyStats.built++;
    const missing = built.flatMap((copy, index) => (copy === null ? [index] : []));
    if (missing.length > 0) {
      this.copyStats.incomplete++;
      console.warn(`SQLite could not build perturbed cop${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')} of '${dbKey}': no statement on it earns closeness (progress), since what those copies would expose cannot be checked.`);
    }
    const shared = [...this.copySets.keys()].filter((k) => k.startsWith('content:'));
    for (const old of shared.slice(0, Math.max(0, shared.length - MAX_SHARED_COPY_SETS))) this.dropCopies(old);
    this.copyStats.kept = this.copySets.size;
    return built;
  }

  private dropCopies(key: string): void {
    for (const copy of this.copySets.get(key) ?? []) copy?.db.close();
    this.copySets.delete(key);
    this.names.delete(key);
    for (const runKey of [...this.goldRuns.keys()]) if (runKey.startsWith(`${key}|`)) this.goldRuns.delete(runKey);
    this.copyStats.kept = this.copySets.size;
  }

  private run(dbKey: string, sql: string, maxRows: number): QueryResult {
    const db = this.db(dbKey);
    const started = performance.now();
    const result = read(db, sql, maxRows, this.budget);
    return { ...result, elapsedMs: performance.now() - started };
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
    for (const key of [...this.copySets.keys()]) this.dropCopies(key);
  }
}

/** Prepares `sql` on `db` and reads it under `budget`; SQLite's failures become SqlError('sql'). */
function read(db: Database, sql: string, maxRows: number, budget: ResultBudget): ReadResult {
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (e) {
    const trap = asWasmTrap(e);
    if (trap) throw trap;
    throw new SqlError('sql', e instanceof Error ? e.message : String(e));
  }
  try {
    return readStatement(stmt, maxRows, budget);
  } finally {
    stmt.free();
  }
}

/** `sql` as the guard passes it to SQLite; SqlError('refused') when it is not one read-only statement. */
function guard(sql: string): string {
  const verdict = checkReadOnlySql(sql);
  if (!verdict.ok) throw new SqlError('refused', verdict.reason);
  return verdict.sql;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
