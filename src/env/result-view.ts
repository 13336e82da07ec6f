/**
 * The part of a result an observation keeps as fields (`observation.result`), which step info, transcripts, saved
 * runs and the page all carry: at most `maxRows` rows, each text cell at most `maxCellChars` characters, all cells
 * together about `maxChars` characters (a wide result gets narrower cells; rows past the budget are dropped, and
 * `totalRows` still says how many there were). Cut text ends in '…'; BLOBs are kept only when they fit. So a step's JSON stays small whatever SQLite
 * returned.
 */
import { parseClipMarker } from '../sql/clip.ts';
import type { SqlValue } from '../sql/types.ts';
import type { ResultView } from './types.ts';

export interface ViewLimits {
  maxRows: number;
  maxCellChars: number;
  maxChars: number;
}

/** `text` cut to at most `max` UTF-16 units, ending in '…' when cut, never splitting a surrogate pair. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function cellSize(v: SqlValue): number {
  if (v === null || typeof v === 'number') return 8;
  return typeof v === 'string' ? Math.max(1, v.length) : 2 * v.length;
}

/**
 * A text cell cut to `max`. A value the SQL worker already cut keeps its marker's tail (`… [cut: N characters,
 * fnv1a64 …]`, src/sql/clip.ts) after a shorter start, so whoever reads the view still learns the value's whole
 * length; where the cell is too narrow for the tail, it is cut like any text.
 */
function clipTextCell(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = parseClipMarker(text);
  if (marker?.kind === 'text') {
    const tail = text.slice(marker.prefix.length);
    let end = max - tail.length;
    const code = marker.prefix.charCodeAt(end - 1);
    if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
    if (end > 0) return `${marker.prefix.slice(0, end)}${tail}`;
  }
  return clipText(text, max);
}

function clipCell(v: SqlValue, limits: ViewLimits): SqlValue {
  if (typeof v === 'string') return clipTextCell(v, limits.maxCellChars);
  if (v instanceof Uint8Array && 2 * v.length > limits.maxCellChars) return `<blob ${v.length} bytes>`;
  return v;
}

export function boundedResultView(columns: string[], rows: SqlValue[][], totalRows: number | null, limits: ViewLimits): ResultView {
  // A wide result gets narrower cells, so the header and the first row fit the budget too.
  const cellChars = Math.max(8, Math.min(limits.maxCellChars, Math.floor(limits.maxChars / (2 * Math.max(1, columns.length)))));
  const cellLimits = { ...limits, maxCellChars: cellChars };
  const header = columns.map((c) => clipText(c, cellChars));
  let used = header.reduce((n, c) => n + c.length, 0);
  const kept: SqlValue[][] = [];
  for (const row of rows.slice(0, limits.maxRows)) {
    const clipped = row.map((v) => clipCell(v, cellLimits));
    const size = clipped.reduce<number>((n, v) => n + cellSize(v), 0);
    if (used + size > limits.maxChars && kept.length > 0) break;
    kept.push(clipped);
    used += size;
  }
  // `totalRows` keeps counting every row the statement produced, so dropped rows are still stated.
  return { columns: header, rows: kept, totalRows };
}
