/**
 * How much of a database value the page shows at once. Values come from any database (a free-play file, a query
 * like `printf('%.*c', 100000000, 'x')`), so the page never hands a whole value or a whole table to the DOM: a cell
 * shows its first `cellChars` characters with '…' and a control for more; an opened value shows `fullChars` at
 * most (Copy still takes all of it); a table shows `rows` rows and `columns` columns, stating how many more there
 * are. The SQL worker clips values too (long text to 4,096 characters, with a marker giving the whole length, which
 * the cell's note repeats); these caps hold the page safe on their own.
 *
 * Pure functions: no React, no DOM, so they are unit-tested in Node. Lengths are UTF-16 code units (`.length`, O(1)),
 * never `Array.from(text)`, which on a 100 MB string costs seconds and gigabytes.
 */
import { parseClipMarker } from '../../sql/clip.ts';
import type { SqlValue } from '../../sql/types.ts';

export interface DisplayLimits {
  /** Characters of a table cell (or header) shown before '…' and a "Show all" control. */
  cellChars: number;
  /** Characters of an opened value shown at most; Copy takes the whole value. */
  fullChars: number;
  /** Rows of a result table shown at most. */
  rows: number;
  /** Columns of a result table shown at most. */
  columns: number;
}

export const DISPLAY_LIMITS: DisplayLimits = { cellChars: 200, fullChars: 100_000, rows: 100, columns: 50 };

/** Characters of an action line (`QUERY …`) and of an observation or error text shown before "Show all". */
export const TEXT_CHARS = { action: 1_000, block: 10_000 } as const;

/** A value as text, whole: NULL for null, a byte count for a blob, numbers as JavaScript writes them. */
export function cellText(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (value instanceof Uint8Array) return `<blob ${value.length} bytes>`;
  return String(value);
}

/**
 * What a value the SQL worker already cut says about the whole (src/sql/clip.ts: `<start>… [cut: N characters,
 * fnv1a64 …]`), for the cell's note: `100,000,000 characters in the database`. Null for an ordinary value.
 */
export function workerCutNote(value: SqlValue): string | null {
  if (typeof value !== 'string') return null;
  const marker = parseClipMarker(value);
  return marker?.kind === 'text' ? `${count(marker.chars)} characters in the database` : null;
}

export interface Clipped {
  /** The first characters (at most `max`), never ending in half of a surrogate pair. */
  shown: string;
  /** Whether characters were left out. */
  cut: boolean;
}

export function clipText(text: string, max: number): Clipped {
  if (text.length <= max) return { shown: text, cut: false };
  // Do not split a surrogate pair: a lone high surrogate would render as a replacement character.
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return { shown: text.slice(0, end), cut: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** `12345678` → `12,345,678`: counts in the page's notes. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export interface TableView {
  /** Columns shown (the first `limits.columns`). */
  columns: number;
  /** Rows shown (the first `limits.rows`). */
  rows: number;
  /** What the table's note says: rows shown of how many, columns left out. */
  note: string;
}

/**
 * What part of a result to show and how to say what is left out. `rowCount`: rows the page holds; `totalRows`: rows
 * the statement produced, or null when there were more than were read (undefined: all of them are held).
 */
export function tableView(columnCount: number, rowCount: number, totalRows: number | null | undefined, limits: DisplayLimits = DISPLAY_LIMITS): TableView {
  const rows = Math.min(rowCount, limits.rows);
  const columns = Math.min(columnCount, limits.columns);
  const total = totalRows === undefined ? rowCount : totalRows;
  const notes: string[] = [];
  if (total === null) notes.push(`showing ${count(rows)} of more than ${count(rowCount)} rows`);
  else if (rows < total) notes.push(`showing ${count(rows)} of ${count(total)} rows (${count(total - rows)} more not shown)`);
  else notes.push(`${count(total)} row${total === 1 ? '' : 's'}`);
  if (columns < columnCount) notes.push(`showing ${count(columns)} of ${count(columnCount)} columns (${count(columnCount - columns)} more not shown)`);
  return { columns, rows, note: notes.join('; ') };
}

/**
 * A result as tab-separated text, header first: what a result table's "Copy table" puts on the clipboard, which
 * Play's answer box reads back (src/ui/play/answer-table.ts) with the header recognised. A cell holding a tab, a line
 * break or a quote is quoted CSV-style (`"a""b"`); NULL is written NULL; values are whole (not the clipped display).
 */
export function tableTsv(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): string {
  const cell = (text: string): string => (/[\t\n\r"]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  return [columns.map(cell).join('\t'), ...rows.map((row) => row.map((v) => cell(cellText(v))).join('\t'))].join('\n');
}
