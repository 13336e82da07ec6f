/**
 * Value and result types shared by everything that touches SQL.
 *
 * A `SqlValue` is what sql.js returns for a cell: JS number for INTEGER and REAL (so 1 and 1.0 are the same value,
 * as in SQLite's own comparison), string for TEXT, null for NULL, Uint8Array for BLOB. A value over the budgets of
 * limits.ts arrives as a marker string instead (clip.ts): TEXT cut with its length and hash, a BLOB as its size
 * and hash.
 */
import { VALUE_LIMITS } from './limits.ts';

export type SqlValue = number | string | null | Uint8Array;

export type SqlRow = SqlValue[];

/** Why a result holds fewer rows than the statement produced. */
export type TruncationReason = 'rows' | 'chars';

/**
 * A (possibly truncated) query result, already within the budgets of limits.ts: `rows.length <= maxRows`, the
 * cells' total cost at most `resultChars`, each cell and column name clipped to its budget.
 */
export interface QueryResult {
  /** Column names; a name over `columnNameChars` is a text marker. */
  columns: string[];
  rows: SqlRow[];
  /** True when the statement produced more rows than `rows` holds; `truncatedBy` says which budget stopped it. */
  truncated: boolean;
  /** 'rows': more than `maxRows` rows; 'chars': the next row would pass `resultChars`; null when not truncated. */
  truncatedBy: TruncationReason | null;
  /** Cells of `rows` replaced by a marker because they were over `cellChars` (text) or `blobBytes` (BLOB). */
  clippedCells: number;
  /** Milliseconds spent inside SQLite (prepare + step + reading), measured in the thread that ran it. */
  elapsedMs: number;
}

export interface ExecLimits {
  /** Rows read from the statement at most; one more is stepped (not read) to detect truncation. */
  maxRows: number;
  /** Wall-clock limit for one statement, in milliseconds; enforced by terminating the worker. */
  timeoutMs: number;
}

export const DEFAULT_EXEC_LIMITS: ExecLimits = { maxRows: VALUE_LIMITS.rows, timeoutMs: 2_000 };

/** A result as read on a perturbed copy (no timing: the copies are judged, not timed). */
export type CopyResult = Omit<QueryResult, 'elapsedMs'>;

/** One perturbed copy's answers (perturbed-copies.ts): null where SQLite failed on that copy. */
export interface CopyRun {
  result: CopyResult | null;
  gold: CopyResult | null;
}

/** A statement and the gold SQL run on every perturbed copy of a database that could be built. */
export interface CopiesRun {
  copies: CopyRun[];
}

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

/**
 * Why a statement did not give a result. `refused`: the guard rejected it before it ran. `too-large`: a value in
 * the result was too large to turn into a JavaScript value at all (before any clipping could apply).
 */
export type SqlErrorKind = 'refused' | 'sql' | 'timeout' | 'crashed' | 'no-database' | 'too-large';

/** `text` cut to `VALUE_LIMITS.errorChars`: SQLite quotes parts of the statement back, and statements can be huge. */
function boundedMessage(text: string): string {
  const max = VALUE_LIMITS.errorChars;
  return text.length <= max ? text : `${text.slice(0, max - 40)}… [message cut: ${text.length} characters]`;
}

export class SqlError extends Error {
  readonly kind: SqlErrorKind;
  constructor(kind: SqlErrorKind, message: string) {
    super(boundedMessage(message));
    this.name = 'SqlError';
    this.kind = kind;
  }
}
