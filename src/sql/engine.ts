/**
 * The in-thread SQL engine: sql.js databases keyed by name, each a private in-memory copy opened from bytes with
 * `PRAGMA query_only` on. It runs statements synchronously, so it cannot stop a runaway query by itself: run it in
 * a worker (`worker-executor.ts`) wherever a time limit matters.
 */
import type { Database, SqlJsStatic } from 'sql.js';
import { checkReadOnlySql } from './guard.ts';
import { SqlError, type ColumnInfo, type ForeignKeyInfo, type QueryResult, type SqlRow, type TableInfo } from './types.ts';

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export class SqlEngine {
  private readonly databases = new Map<string, Database>();
  private readonly sql: SqlJsStatic;

  constructor(sql: SqlJsStatic) {
    this.sql = sql;
  }

  /** Opens (or replaces) `dbKey` with a fresh copy of `bytes`; throws SqlError('sql') for a file that is not SQLite. */
  load(dbKey: string, bytes: Uint8Array): void {
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
  }

  unload(dbKey: string): void {
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

  /** Runs one guarded read-only statement and reads at most `maxRows` rows (plus one to detect truncation). */
  query(dbKey: string, sql: string, maxRows: number): QueryResult {
    const verdict = checkReadOnlySql(sql);
    if (!verdict.ok) throw new SqlError('refused', verdict.reason);
    return this.run(dbKey, verdict.sql, maxRows);
  }

  private run(dbKey: string, sql: string, maxRows: number): QueryResult {
    const db = this.db(dbKey);
    const started = performance.now();
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      throw new SqlError('sql', (e as Error).message);
    }
    try {
      const columns = stmt.getColumnNames();
      const rows: SqlRow[] = [];
      let truncated = false;
      while (stmt.step()) {
        if (rows.length === maxRows) {
          truncated = true;
          break;
        }
        rows.push(stmt.get());
      }
      return { columns, rows, truncated, elapsedMs: performance.now() - started };
    } catch (e) {
      throw new SqlError('sql', (e as Error).message);
    } finally {
      stmt.free();
    }
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

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
