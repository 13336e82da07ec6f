/**
 * The asynchronous face of the SQL engine that the environment, data import and evaluation use. Two
 * implementations: `LocalSqlExecutor` (same thread, no time limit; for trusted SQL and benchmarks) and
 * `WorkerSqlExecutor` (a worker that is terminated and restarted when a statement runs past its time limit).
 * Failures reject with `SqlError`.
 */
import type { SqlJsStatic } from 'sql.js';
import { SqlEngine } from './engine.ts';
import { DEFAULT_EXEC_LIMITS, type CopiesRun, type ExecLimits, type QueryResult, type TableInfo } from './types.ts';
import { contentKeyOf } from './content-key.ts';

export interface SqlExecutor {
  /**
   * Opens `bytes` read-only under `dbKey`, replacing any earlier load. Keys loaded from the same array may share one
   * connection (nothing a query can run changes it: see SqlEngine.share).
   */
  load(dbKey: string, bytes: Uint8Array): Promise<void>;
  query(dbKey: string, sql: string, limits?: Partial<ExecLimits>): Promise<QueryResult>;
  /**
   * Runs `sql` and `goldSql` on the perturbed copies of `dbKey` (perturbed-copies.ts; built on first use, shared by
   * every load of the same content, gold runs cached). Under one time limit for all copies; a statement refused by
   * the guard rejects as `query` does.
   */
  runOnCopies(dbKey: string, sql: string, goldSql: string, limits?: Partial<ExecLimits>): Promise<CopiesRun>;
  tables(dbKey: string): Promise<string[]>;
  describe(dbKey: string, table: string): Promise<TableInfo>;
  sample(dbKey: string, table: string, rows: number): Promise<QueryResult>;
  close(): Promise<void>;
}

export class LocalSqlExecutor implements SqlExecutor {
  readonly engine: SqlEngine;
  private readonly maxRows: number;

  constructor(sql: SqlJsStatic, maxRows = DEFAULT_EXEC_LIMITS.maxRows) {
    this.engine = new SqlEngine(sql);
    this.maxRows = maxRows;
  }

  async load(dbKey: string, bytes: Uint8Array): Promise<void> {
    this.engine.load(dbKey, bytes, contentKeyOf(bytes));
  }
  async query(dbKey: string, sql: string, limits?: Partial<ExecLimits>): Promise<QueryResult> {
    return this.engine.query(dbKey, sql, { maxRows: limits?.maxRows ?? this.maxRows });
  }
  async runOnCopies(dbKey: string, sql: string, goldSql: string, limits?: Partial<ExecLimits>): Promise<CopiesRun> {
    return this.engine.runOnCopies(dbKey, sql, goldSql, limits?.maxRows ?? this.maxRows);
  }
  async tables(dbKey: string): Promise<string[]> {
    return this.engine.tables(dbKey);
  }
  async describe(dbKey: string, table: string): Promise<TableInfo> {
    return this.engine.describe(dbKey, table);
  }
  async sample(dbKey: string, table: string, rows: number): Promise<QueryResult> {
    return this.engine.sample(dbKey, table, rows);
  }
  async close(): Promise<void> {
    this.engine.close();
  }
}
