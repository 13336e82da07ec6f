/**
 * Reading a prepared statement's rows under the value budgets (limits.ts), inside the thread that runs SQLite, so
 * nothing larger than the budgets ever leaves it:
 *
 * - each text cell over `cap` code units and each BLOB over `blobCap` bytes becomes a marker (clip.ts);
 *   cap = min(cellChars, resultChars / columns − MAX_MARKER_CHARS), so even one row of 2,000 wide columns fits;
 * - column names over `columnNameChars` become markers too (they count apart from `resultChars`);
 * - rows stop at `maxRows` (`truncatedBy: 'rows'`, detected by stepping once more without reading the row) or
 *   before the row that would take the cells' total past `resultChars` (`truncatedBy: 'chars'`);
 * - a value sql.js cannot turn into a JS value at all (longer than V8's ~2^29-character string limit, or out of
 *   memory while copying) fails the statement with SqlError('too-large'), and the statement is freed.
 */
import type { Statement } from 'sql.js';
import { clipBlob, clipText, MAX_MARKER_CHARS } from './clip.ts';
import type { ResultBudget } from './limits.ts';
import { SqlError, type QueryResult, type SqlRow, type SqlValue } from './types.ts';
import { asWasmTrap } from './wasm-trap.ts';

/** What reading gives; the engine adds timing. */
export type ReadResult = Omit<QueryResult, 'elapsedMs'>;

/** What one kept cell costs against `resultChars`: its characters, BLOBs as hex (2 per byte), at least 1. */
export function cellCost(value: SqlValue): number {
  if (value === null) return 1;
  if (typeof value === 'number') return String(value).length;
  if (typeof value === 'string') return Math.max(1, value.length);
  return Math.max(1, 2 * value.length);
}

/** Text characters kept per cell for a result `columns` wide. */
export function cellCapFor(budget: ResultBudget, columns: number): number {
  return Math.max(1, Math.min(budget.cellChars, Math.floor(budget.resultChars / Math.max(1, columns)) - MAX_MARKER_CHARS));
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** sql.js's errors when a value cannot become a JS string or array (V8 limits, allocation failure). */
function isMaterialiseFailure(e: unknown): boolean {
  return e instanceof RangeError || /string longer than|invalid (string|array) length|allocation failed|out of memory/i.test(messageOf(e));
}

/** One row as sql.js gives it, with a failure to materialise turned into a clear SqlError. */
function getRow(stmt: Statement, rowIndex: number): SqlRow {
  try {
    return stmt.get();
  } catch (e) {
    const trap = asWasmTrap(e);
    if (trap) throw trap;
    if (!isMaterialiseFailure(e)) throw new SqlError('sql', messageOf(e));
    throw new SqlError(
      'too-large',
      `Row ${rowIndex + 1} of the result holds a value too large to read (${messageOf(e)}). Return less of it: substr(x, 1, 1000), length(x) or hex(substr(x, 1, 100)).`,
    );
  }
}

/** Reads `stmt` (prepared, not yet stepped) under `budget`; the caller frees it. */
export function readStatement(stmt: Statement, maxRows: number, budget: ResultBudget): ReadResult {
  const columns = stmt.getColumnNames().map((name) => clipText(name, budget.columnNameChars).value);
  const cap = cellCapFor(budget, columns.length);
  const blobCap = Math.min(budget.blobBytes, Math.floor(cap / 2));
  const rows: SqlRow[] = [];
  let chars = 0;
  let clippedCells = 0;
  let truncatedBy: QueryResult['truncatedBy'] = null;
  for (;;) {
    let more: boolean;
    try {
      more = stmt.step();
    } catch (e) {
      // A trap is not SQLite's answer: it goes up as a WasmTrapError, so the worker is replaced (wasm-trap.ts).
      const trap = asWasmTrap(e);
      if (trap) throw trap;
      // SQLite's own failures (syntax found late, out of memory, string or blob too big) keep its message.
      throw new SqlError('sql', messageOf(e));
    }
    if (!more) break;
    if (rows.length === maxRows) {
      truncatedBy = 'rows';
      break;
    }
    let rowChars = 0;
    let rowClipped = 0;
    const row = getRow(stmt, rows.length).map((raw): SqlValue => {
      const kept = typeof raw === 'string' ? clipText(raw, cap) : raw instanceof Uint8Array ? clipBlob(raw, blobCap) : { value: raw, clipped: false };
      if (kept.clipped) rowClipped++;
      rowChars += cellCost(kept.value);
      return kept.value;
    });
    if (rows.length > 0 && chars + rowChars > budget.resultChars) {
      truncatedBy = 'chars';
      break;
    }
    rows.push(row);
    chars += rowChars;
    clippedCells += rowClipped;
  }
  return { columns, rows, truncated: truncatedBy !== null, truncatedBy, clippedCells };
}
