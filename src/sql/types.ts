/**
 * Value and result types shared by everything that touches SQL.
 *
 * A `SqlValue` is exactly what sql.js returns for a cell: JS number for INTEGER and REAL (so 1 and 1.0 are the
 * same value, as in SQLite's own comparison), string for TEXT, null for NULL, Uint8Array for BLOB.
 */

export type SqlValue = number | string | null | Uint8Array;

export type SqlRow = SqlValue[];

/** A (possibly truncated) query result. `rows.length <= limits.maxRows`. */
export interface QueryResult {
  columns: string[];
  rows: SqlRow[];
  /** True when the statement produced more rows than `maxRows`; `rows` holds the first `maxRows`. */
  truncated: boolean;
  /** Milliseconds spent inside SQLite (prepare + step), measured in the thread that ran it. */
  elapsedMs: number;
}

export interface ExecLimits {
  /** Rows read from the statement at most; one more is read to detect truncation. */
  maxRows: number;
  /** Wall-clock limit for one statement, in milliseconds; enforced by terminating the worker. */
  timeoutMs: number;
}

export const DEFAULT_EXEC_LIMITS: ExecLimits = { maxRows: 10_000, timeoutMs: 2_000 };

export interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  /** 1-based position in the primary key, 0 when not part of it (as PRAGMA table_info reports). */
  primaryKey: number;
}

export interface ForeignKeyInfo {
  column: string;
  refTable: string;
  refColumn: string | null;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  foreignKeys: ForeignKeyInfo[];
  rowCount: number;
}

/** Why a statement did not give a result. `refused`: the guard rejected it before it ran. */
export type SqlErrorKind = 'refused' | 'sql' | 'timeout' | 'crashed' | 'no-database';

export class SqlError extends Error {
  readonly kind: SqlErrorKind;
  constructor(kind: SqlErrorKind, message: string) {
    super(message);
    this.name = 'SqlError';
    this.kind = kind;
  }
}
