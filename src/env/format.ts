/**
 * Observation text: compact aligned tables that a person can read and a language model can parse, with every
 * truncation stated (rows and columns not shown, values cut, characters over budget) so nothing is silently lost.
 *
 * Budgets are hard: `formatTable`'s whole text, notes included, is at most `maxChars` UTF-16 units, and so is
 * `formatDescribe`'s. A wide table first gets narrower cells (down to MIN_CELL_CHARS), then fewer columns, so the
 * header, its rule and at least one row fit. Values clipped upstream by the SQL engine (src/sql/clip.ts) keep
 * their marker visible in short form — `<start>… [cut: N characters]` or `<blob N bytes>` — however narrow the cell.
 * Work is bounded by what is shown: no cell is scanned past the characters it can show.
 */
import { parseClipMarker } from '../sql/clip.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';
import type { SqlValue, TableInfo, TruncationReason } from '../sql/types.ts';

export interface TableFormatLimits {
  /** Rows shown at most. */
  maxRows: number;
  /** Characters shown of one cell (and of one column name) at most; longer values end in '…'. */
  maxCellChars: number;
  /** Characters of the whole table text at most, notes included. */
  maxChars: number;
  /** Columns shown at most; default `VALUE_LIMITS.observationColumns`. The rest are counted in a note. */
  maxColumns?: number;
}

/** What the SQL engine said about the result, so the notes can state it (fields of `QueryResult`). */
export interface ResultOrigin {
  clippedCells?: number;
  truncatedBy?: TruncationReason | null;
}

/** Cells are narrowed down to this many characters before columns are dropped. */
const MIN_CELL_CHARS = 12;

export function formatCell(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (value instanceof Uint8Array) return `<blob ${value.length} bytes>`;
  // Newlines and tabs would break the table's alignment.
  return String(value).replace(/[\r\n\t]+/g, ' ');
}

/** The first `max` code points of `text`, scanning no further. */
function take(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n === max) return { text: out, cut: true };
    out += ch;
    n++;
  }
  return { text: out, cut: false };
}

/** `text` (ordinary, not a marker) at most `max` code points, ending in '…' when cut; scans at most ~2·max units. */
function cut(text: string, max: number): { text: string; cut: boolean } {
  // Runs of newlines and tabs collapse to one space, so a prefix of 4·max + 4 units shows the same first max chars
  // unless it is all separators; that case is cut anyway.
  // Other control characters show as '\uFFFD': invisible, they would still take width and confuse a reader.
  // eslint-disable-next-line no-control-regex
  const clean = (text.length > 4 * max + 4 ? text.slice(0, 4 * max + 4) : text).replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');
  const whole = text.length <= 4 * max + 4;
  const kept = take(clean, max);
  if (!kept.cut && whole) return kept;
  return { text: `${take(clean, Math.max(1, max - 1)).text}…`, cut: true };
}

function width(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

interface Shown {
  text: string;
  /** Cut here, with '…'. */
  cut: boolean;
  /** Clipped upstream: a marker from the SQL engine. */
  clipped: boolean;
}

/** A cell (or column name) as shown, at most `max` code points; a marker keeps its size visible. */
function show(value: SqlValue, max: number): Shown {
  if (typeof value !== 'string') return { ...cut(formatCell(value), max), clipped: false };
  const marker = parseClipMarker(value);
  if (!marker) return { ...cut(value, max), clipped: false };
  if (marker.kind === 'blob') return { ...cut(`<blob ${marker.bytes} bytes>`, max), clipped: true };
  for (const tail of [`… [cut: ${marker.chars} characters]`, `…[${marker.chars} chars]`]) {
    if (tail.length > max) continue;
    const start = max - tail.length > 0 ? cut(marker.prefix, max - tail.length).text.replace(/…$/, '') : '';
    return { text: start + tail, cut: false, clipped: true };
  }
  return { ...cut(marker.prefix, max), clipped: true };
}

interface NoteFacts {
  shown: number;
  rowsGiven: number;
  totalRows: number | null;
  columnsHidden: number;
  cap: number;
  cellsCut: boolean;
  clipped: boolean;
  clippedCells: number;
  truncatedBy: TruncationReason | null;
}

/** The notes line under a table: rows, hidden columns, cut values, clipping upstream, a stop at the char budget. */
function notesLine(f: NoteFacts): string {
  const parts: string[] = [];
  if (f.totalRows === null) parts.push(`showing ${f.shown} of more than ${f.rowsGiven} rows`);
  else if (f.shown < f.totalRows) parts.push(`showing ${f.shown} of ${f.totalRows} rows; ${f.totalRows - f.shown} more not shown`);
  else parts.push(`${f.totalRows} row${f.totalRows === 1 ? '' : 's'}`);
  if (f.columnsHidden > 0) parts.push(`${f.columnsHidden} more column${f.columnsHidden === 1 ? '' : 's'} not shown`);
  if (f.cellsCut) parts.push(`values longer than ${f.cap} characters cut with '…'`);
  if (f.clipped) {
    const count = f.clippedCells > 0 ? `${f.clippedCells} value${f.clippedCells === 1 ? '' : 's'}` : 'values';
    parts.push(`${count} too long to keep were clipped when read; '[cut: N characters]' gives the full length`);
  }
  if (f.truncatedBy === 'chars') parts.push(`the result stopped at the ${VALUE_LIMITS.resultChars} characters a result may hold`);
  return `(${parts.join('; ')})`;
}

/** `text` cut to `max` UTF-16 units with '…', never splitting a surrogate pair: the last resort of every budget. */
function hardCut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * `totalRows`: rows the statement produced, or null when more than `rows.length` exist but were not counted.
 * `origin`: what the engine reported about clipping and truncation, stated in the notes when given.
 */
export function formatTable(columns: string[], rows: SqlValue[][], totalRows: number | null, limits: TableFormatLimits, origin: ResultOrigin = {}): string {
  const maxColumns = Math.max(1, limits.maxColumns ?? VALUE_LIMITS.observationColumns);
  const considered = rows.slice(0, Math.max(0, limits.maxRows));
  const allColumns = Math.max(columns.length, ...considered.map((r) => r.length));
  let k = Math.min(allColumns, maxColumns);

  // Widest shown width of each column at the full cell budget: min(width, maxCellChars) over header and rows.
  const fullWidths = Array.from({ length: k }, (_, i) => Math.max(width(show(columns[i] ?? '', limits.maxCellChars).text), ...considered.map((r) => width(show(r[i] ?? null, limits.maxCellChars).text))));
  const clippedUpstream = (origin.clippedCells ?? 0) > 0 || considered.some((r) => r.some((v) => typeof v === 'string' && parseClipMarker(v) !== null));
  const facts: NoteFacts = {
    shown: 0,
    rowsGiven: rows.length,
    totalRows,
    columnsHidden: allColumns - k,
    cap: limits.maxCellChars,
    cellsCut: false,
    clipped: clippedUpstream,
    clippedCells: origin.clippedCells ?? 0,
    truncatedBy: origin.truncatedBy ?? null,
  };
  // Room for the notes whatever the layout turns out to be: every optional part that could appear, widest counts.
  const worst = { ...facts, columnsHidden: Math.max(1, allColumns - 1), cellsCut: true };
  const reserve = Math.max(notesLine(worst).length, notesLine({ ...worst, shown: considered.length }).length) + 1;
  const fits = (cols: number, cap: number): boolean => {
    const line = fullWidths.slice(0, cols).reduce((n, w) => n + Math.min(w, cap), 0) + 3 * (cols - 1);
    return 3 * (line + 1) + reserve <= limits.maxChars;
  };
  let cap = limits.maxCellChars;
  if (!fits(k, cap)) {
    // The largest cap in [MIN_CELL_CHARS, maxCellChars] that fits, else fewer columns at that floor.
    const floor = Math.min(MIN_CELL_CHARS, limits.maxCellChars);
    let lo = floor;
    let hi = cap;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(k, mid)) lo = mid;
      else hi = mid - 1;
    }
    cap = lo;
    while (k > 1 && !fits(k, cap)) k--;
    if (!fits(k, cap)) cap = Math.max(1, Math.floor((limits.maxChars - reserve) / 3) - 1);
  }

  let cellsCut = false;
  const cell = (value: SqlValue): string => {
    const s = show(value, cap);
    cellsCut ||= s.cut;
    return s.text;
  };
  const header = Array.from({ length: k }, (_, i) => cell(columns[i] ?? ''));
  const body = considered.map((row) => Array.from({ length: k }, (_, i) => cell(row[i] ?? null)));
  const widths = header.map((h, i) => Math.max(width(h), ...body.map((r) => width(r[i]))));
  const line = (cells: string[]): string => cells.map((c, i) => c + ' '.repeat(widths[i] - width(c))).join(' | ').trimEnd();
  const head = [line(header), widths.map((w) => '-'.repeat(w)).join('-+-')];
  const bodyLines = body.map(line);

  const notes = (shown: number): string => notesLine({ ...facts, shown, columnsHidden: allColumns - k, cap, cellsCut });
  // Rows while the text, notes included, stays within budget.
  let used = head.join('\n').length;
  let shown = 0;
  while (shown < bodyLines.length && used + bodyLines[shown].length + 1 + notes(shown + 1).length + 1 <= limits.maxChars) {
    used += bodyLines[shown].length + 1;
    shown++;
  }
  return hardCut([...head, ...bodyLines.slice(0, shown), notes(shown)].join('\n'), limits.maxChars);
}

export interface DescribeFormatLimits {
  /** Characters of the whole text at most; default `VALUE_LIMITS.describeChars`. */
  maxChars?: number;
  /** Characters of a name or type at most; default `VALUE_LIMITS.observationCellChars`. */
  maxCellChars?: number;
}

export function formatDescribe(info: TableInfo, limits: DescribeFormatLimits = {}): string {
  const maxChars = limits.maxChars ?? VALUE_LIMITS.describeChars;
  const cell = (text: string): string => show(text, limits.maxCellChars ?? VALUE_LIMITS.observationCellChars).text;
  const columns = info.columns.map((c) => [cell(c.name), cell(c.type || '(no type)'), [c.primaryKey > 0 ? 'PRIMARY KEY' : '', c.notNull ? 'NOT NULL' : ''].filter(Boolean).join(' ')]);
  const widths = [0, 1].map((i) => Math.max(0, ...columns.map((c) => width(c[i]))));
  const lines = [`Table ${cell(info.name)} (${info.rowCount} row${info.rowCount === 1 ? '' : 's'}), columns:`];
  for (const [name, type, flags] of columns) {
    lines.push(`  ${name + ' '.repeat(widths[0] - width(name))}  ${type + ' '.repeat(widths[1] - width(type))}  ${flags}`.trimEnd());
  }
  if (info.foreignKeys.length > 0) {
    lines.push('Foreign keys:');
    for (const fk of info.foreignKeys) lines.push(`  ${cell(fk.column)} -> ${cell(fk.refTable)}.${fk.refColumn === null ? '(primary key)' : cell(fk.refColumn)}`);
  }
  const whole = lines.join('\n');
  if (whole.length <= maxChars) return whole;
  // Whole lines while they fit, with room kept for the note that says how many were left out.
  const note = (left: number): string => `(${left} more line${left === 1 ? '' : 's'} not shown: the description is over ${maxChars} characters)`;
  let used = note(lines.length).length;
  let kept = 0;
  while (kept < lines.length && used + lines[kept].length + 1 <= maxChars) {
    used += lines[kept].length + 1;
    kept++;
  }
  return hardCut([...lines.slice(0, kept), note(lines.length - kept)].join('\n'), maxChars);
}
