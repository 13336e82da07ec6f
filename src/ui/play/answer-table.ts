/**
 * Reading what a person typed or pasted into Play's answer box as an ANSWER the environment accepts.
 *
 * How to think about it: the environment already reads scalars, lists, JSON rows and tables (src/env/answer.ts), and
 * drops a first line only when it names the result's columns. A header with other names is data to it, adds a row,
 * and the answer is judged wrong. So this module reads a pasted table here, where the person can see and correct the
 * reading, and turns it into JSON rows of text cells (`[["Rex","3"],["Tom","5"]]`): the text of each cell is kept as
 * written, so the verifier's numeric rules (decimals as written) apply unchanged.
 *
 * What is read as a table (two or more non-blank lines):
 * - a markdown table (`| a | b |` lines; a `|---|---|` line makes the line above it the header);
 * - tab-, `|`-, comma- or semicolon-separated lines (tried in that order; the first that splits every line into the
 *   same number ≥ 2 of cells wins), CSV-quoted cells allowed: `"Smith, John"`, `"say ""hi"""`, a quoted line break;
 * - one value per line (a one-column table).
 * A first or last line of one cell above or below a wider table is a caption or a note (a table copied with its
 * "3 rows" line) and is left out, and said so. Rows of different lengths are read as they are, and flagged.
 *
 * The header: `header: true/false` is the person's choice; `null` lets the reader guess — the first line is a header
 * when its cells are the column names of a result the person saw, or when it is all words above a column of numbers.
 *
 * Everything else (one line, JSON, empty) goes to the environment as typed. Cost: linear in the text (a fixed number
 * of scans, no backtracking regular expression over the whole text); texts over `MAX_TABLE_CHARS` are not read as
 * tables at all. Pure: unit-tested in tests/ui/play-answer-table.test.ts.
 */

/** Longest text read as a table; a longer paste goes to the environment as typed. */
export const MAX_TABLE_CHARS = 200_000;

export type TableDelimiter = 'tab' | 'pipe' | 'comma' | 'semicolon' | 'markdown' | 'lines';

export interface TableReading {
  kind: 'table';
  delimiter: TableDelimiter;
  /** The header's cells, or null when the first line is data. */
  header: string[] | null;
  /** Why the first line is (or is not) taken as a header. */
  headerReason: string;
  /** What the reader would decide on its own (the default of the "first line is a header" switch). */
  headerGuess: boolean;
  rows: string[][];
  /** The widest row's cell count. */
  columns: number;
  /** Rows do not all have the same number of cells. */
  ragged: boolean;
  /** Caption or note lines left out. */
  dropped: string[];
  /** The ANSWER value to send: JSON rows of text cells. */
  answer: string;
}

export type AnswerReading =
  | { kind: 'empty' }
  | { kind: 'as-is'; why: 'one-line' | 'json' | 'too-long'; answer: string }
  | TableReading;

export interface ReadOptions {
  /** The person's choice; null or absent: guess. */
  header?: boolean | null;
  /** Column names of results the person saw in this episode (compared trimmed and case-insensitively). */
  knownColumns?: readonly string[];
}

/** Column names of the results shown in an episode's steps (for the header guess). */
export function seenColumns(steps: ReadonlyArray<{ result?: { columns: readonly string[] } }>): string[] {
  const names = new Set<string>();
  for (const step of steps) for (const c of step.result?.columns ?? []) names.add(c);
  return [...names];
}

export const DELIMITER_LABEL: Record<TableDelimiter, string> = {
  tab: 'tab-separated',
  pipe: '|-separated',
  comma: 'comma-separated',
  semicolon: 'semicolon-separated',
  markdown: 'markdown table',
  lines: 'one value per line',
};

const SPLITTERS: ReadonlyArray<[Exclude<TableDelimiter, 'markdown' | 'lines'>, string]> = [
  ['tab', '\t'],
  ['pipe', '|'],
  ['comma', ','],
  ['semicolon', ';'],
];

export function readAnswer(text: string, options: ReadOptions = {}): AnswerReading {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (trimmed.length > MAX_TABLE_CHARS) return { kind: 'as-is', why: 'too-long', answer: trimmed };
  if (isJson(trimmed)) return { kind: 'as-is', why: 'json', answer: trimmed };
  if (!trimmed.includes('\n')) return { kind: 'as-is', why: 'one-line', answer: trimmed };
  // The readers get the text untrimmed: a copied table's last row may end with a tab that is part of its shape.
  const grid = isMarkdown(trimmed) ? readMarkdown(trimmed) : readDelimited(text);
  if (grid.records.length < 2 && grid.markdownHeader === null) return { kind: 'as-is', why: 'one-line', answer: trimmed };
  return decideHeader(grid, options);
}

/** A table before the header is decided: every record, and the markdown header when a `|---|` line named it. */
interface Grid {
  delimiter: TableDelimiter;
  records: string[][];
  markdownHeader: string[] | null;
  dropped: string[];
}

function decideHeader(grid: Grid, options: ReadOptions): TableReading {
  const { records, markdownHeader } = grid;
  let guess: { header: boolean; reason: string };
  let all: string[][];
  if (markdownHeader !== null) {
    all = [markdownHeader, ...records];
    guess = { header: true, reason: 'the line above |---| is the header' };
  } else {
    all = records;
    guess = guessHeader(records, options.knownColumns ?? []);
  }
  const header = options.header ?? guess.header;
  const reason = options.header === undefined || options.header === null ? guess.reason : header ? 'you marked the first line as a header' : 'you marked the first line as data';
  const body = header && all.length > 0 ? all.slice(1) : all;
  let columns = 0;
  let min = Infinity;
  for (const row of body) {
    columns = Math.max(columns, row.length);
    min = Math.min(min, row.length);
  }
  return {
    kind: 'table',
    delimiter: grid.delimiter,
    header: header ? (all[0] ?? null) : null,
    headerReason: reason,
    headerGuess: guess.header,
    rows: body,
    columns,
    ragged: body.length > 0 && min !== columns,
    dropped: grid.dropped,
    answer: JSON.stringify(body),
  };
}

function guessHeader(records: string[][], knownColumns: readonly string[]): { header: boolean; reason: string } {
  const [first, ...body] = records;
  if (!first || body.length === 0) return { header: false, reason: 'one line only: read as data' };
  const known = new Set(knownColumns.map((c) => c.trim().toLowerCase()));
  if (known.size > 0 && first.every((c) => known.has(c.trim().toLowerCase()))) return { header: true, reason: 'its cells are the column names of a result you saw' };
  if (first.some((c) => c === '' || isNumber(c))) return { header: false, reason: 'the first line holds numbers or blanks: read as data' };
  for (let j = 0; j < first.length; j++) {
    if (body.every((row) => row[j] !== undefined && isNumber(row[j]))) return { header: true, reason: 'the first line is words above a column of numbers' };
  }
  return { header: false, reason: 'the first line looks like the others: read as data' };
}

/** A plain decimal number, as a spreadsheet or a result table writes it (1,234 thousands separators allowed). */
export function isNumber(cell: string): boolean {
  const t = cell.trim().replaceAll(',', '');
  return t !== '' && Number.isFinite(Number(t)) && /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(t);
}

function isJson(text: string): boolean {
  const c = text[0];
  if (c !== '[' && c !== '{' && c !== '"') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---- markdown -------------------------------------------------------------------------------------------------

function nonBlankLines(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t !== '') lines.push(t);
  }
  return lines;
}

/** `|---|:--:|` or `---|---`: only pipes, dashes, colons and spaces, with a dash and a pipe. */
function isSeparatorLine(line: string): boolean {
  let dash = false;
  let pipe = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '-') dash = true;
    else if (c === '|') pipe = true;
    else if (c !== ':' && c !== ' ' && c !== '\t') return false;
  }
  return dash && pipe;
}

function isMarkdown(text: string): boolean {
  const lines = nonBlankLines(text);
  return lines.some(isSeparatorLine) || lines.every((l) => l.startsWith('|') && l.endsWith('|') && l.length > 1);
}

/** A markdown row's cells: outer pipes removed, split on unescaped pipes, `\|` read as a pipe. */
function markdownCells(line: string): string[] {
  const start = line.startsWith('|') ? 1 : 0;
  let end = line.length;
  if (end > start && line.endsWith('|') && !line.endsWith('\\|')) end -= 1;
  const cells: string[] = [];
  let cell = '';
  for (let i = start; i < end; i++) {
    const c = line[i];
    if (c === '\\' && line[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

function readMarkdown(text: string): Grid {
  const lines = nonBlankLines(text);
  const separator = lines.findIndex(isSeparatorLine);
  const dropped: string[] = [];
  let header: string[] | null = null;
  const records: string[][] = [];
  lines.forEach((line, i) => {
    if (isSeparatorLine(line)) return;
    if (!line.includes('|')) {
      dropped.push(line); // a caption or note around the table
      return;
    }
    if (i === separator - 1) header = markdownCells(line);
    else records.push(markdownCells(line));
  });
  return { delimiter: 'markdown', records, markdownHeader: header, dropped };
}

// ---- delimited ------------------------------------------------------------------------------------------------

/**
 * Splits the text into records of cells by `delim`, in one pass. A cell whose first non-space character is `"`
 * is quoted: it runs to the next lone `"` (`""` is a quote), delimiters and line breaks included. `quotes: false`
 * reads quotes as ordinary characters (the fallback when a quote is never closed). Blank lines are skipped;
 * unquoted cells are trimmed.
 */
export function splitRecords(text: string, delim: string, quotes = true): string[][] | null {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  /** The cell so far is only spaces (so a quote here opens a quoted cell); kept as a flag so no scan repeats. */
  let blank = true;
  let i = 0;
  const n = text.length;
  const endRecord = () => {
    record.push(quoted ? cell : cell.trim());
    if (!(record.length === 1 && record[0] === '' && !quoted)) records.push(record);
    record = [];
    cell = '';
    quoted = false;
    blank = true;
  };
  while (i < n) {
    const c = text[i];
    if (quotes && c === '"' && blank && !quoted) {
      // A quoted cell: read to its closing quote.
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < n) {
        const d = text[j];
        if (d === '"') {
          if (text[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          j++;
          break;
        }
        value += d;
        j++;
      }
      if (!closed) return null;
      cell = value;
      quoted = true;
      blank = false;
      // Anything between the closing quote and the next delimiter is kept (trimmed), as spreadsheets do.
      while (j < n && text[j] !== delim && text[j] !== '\n' && text[j] !== '\r') {
        if (text[j] !== ' ' && text[j] !== '\t') cell += text[j];
        j++;
      }
      i = j;
      continue;
    }
    if (c === delim) {
      record.push(quoted ? cell : cell.trim());
      cell = '';
      quoted = false;
      blank = true;
    } else if (c === '\n' || c === '\r') {
      endRecord();
      if (c === '\r' && text[i + 1] === '\n') i++;
    } else {
      cell += c;
      if (c !== ' ' && c !== '\t') blank = false;
    }
    i++;
  }
  endRecord();
  return records;
}

/** Splits with quotes, or without them when a quote is never closed. */
function recordsBy(text: string, delim: string): string[][] {
  return splitRecords(text, delim, true) ?? splitRecords(text, delim, false) ?? [];
}

/** The records with a one-cell first or last line around a wider, even table left out (caption, "3 rows" note). */
function withoutEdgeLines(records: string[][]): { records: string[][]; dropped: string[] } | null {
  let start = 0;
  let end = records.length;
  const dropped: string[] = [];
  if (records.length >= 3 && records[0].length === 1 && records[1].length >= 2) {
    dropped.push(records[0][0]);
    start = 1;
  }
  if (end - start >= 2 && records[end - 1].length === 1 && records[end - 2].length >= 2) {
    dropped.push(records[end - 1][0]);
    end -= 1;
  }
  if (dropped.length === 0) return null;
  const inner = records.slice(start, end);
  return isEven(inner) ? { records: inner, dropped } : null;
}

/** Every record has the same number (≥ 2) of cells. */
function isEven(records: string[][]): boolean {
  const width = records[0]?.length ?? 0;
  return width >= 2 && records.every((r) => r.length === width);
}

/** Drops a last (or first) column that is empty in every record: rows copied with a trailing tab. */
function withoutEmptyEdgeColumns(records: string[][]): string[][] {
  let out = records;
  if (out.length > 0 && out.every((r) => r.length >= 2 && r[r.length - 1] === '')) out = out.map((r) => r.slice(0, -1));
  if (out.length > 0 && out.every((r) => r.length >= 2 && r[0] === '')) out = out.map((r) => r.slice(1));
  return out;
}

function readDelimited(text: string): Grid {
  // Only the delimiters the text holds are tried (a scan each), so a paste is split as few times as possible.
  const tried = SPLITTERS.filter(([, delim]) => text.includes(delim)).map(([delimiter, delim]) => ({ delimiter, records: withoutEmptyEdgeColumns(recordsBy(text, delim)) }));
  for (const { delimiter, records } of tried) if (isEven(records)) return { delimiter, records, markdownHeader: null, dropped: [] };
  for (const { delimiter, records } of tried) {
    const trimmed = withoutEdgeLines(records);
    if (trimmed) return { delimiter, records: trimmed.records, markdownHeader: null, dropped: trimmed.dropped };
  }
  // Ragged: the delimiter that splits the most lines into two or more cells.
  let best: { delimiter: TableDelimiter; records: string[][]; split: number } | null = null;
  for (const { delimiter, records } of tried) {
    const split = records.filter((r) => r.length >= 2).length;
    if (split > 0 && (best === null || split > best.split)) best = { delimiter, records, split };
  }
  if (best) return { delimiter: best.delimiter, records: best.records, markdownHeader: null, dropped: [] };
  // No delimiter splits a line (or each only appears inside quotes): one value per line, quotes read.
  return { delimiter: 'lines', records: tried.find((t) => t.delimiter === 'tab')?.records ?? recordsBy(text, '\t'), markdownHeader: null, dropped: [] };
}
