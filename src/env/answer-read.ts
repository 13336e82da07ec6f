/**
 * Reading an ANSWER's free text: every plausible reading of it as a scalar, a list or rows, primary first. Matching
 * the readings against a gold result is src/env/answer.ts; the rules are documented in docs/answers.md. Over 500
 * lines because each reader (JSON, Python literals, quote-aware tables, labels, bullets) is a hand-written scan.
 *
 * Cost: reading is linear in the text. The text may be a degenerate model output of 10^6 characters, so there is no
 * regular expression with nested or overlapping quantifiers here; fences, table rules, quoted cells and Python
 * literals are hand-written scans (tests/env/parse-linear.test.ts holds every reader to linear growth).
 *
 * Readings (`answerInterpretations`):
 * - The text is trimmed and a surrounding ``` code fence removed (with its info word alone on the first line, ```json).
 * - JSON: number, string, null → scalar (true/false → 1/0, as SQLite stores them); flat array → list; array of
 *   arrays → rows; array of objects → rows of their values; one object → one row of its values.
 * - Python / sqlite3 reprs (when JSON fails): None/True/False, '…' and "…" strings with escapes, numbers, lists and
 *   tuples nested at most 3 deep. A tuple is a row: `(6,)` and `[(6,)]` are one row of 6; `['a', 'b']` is a list.
 * - A bracketed list without quotes, `[a, b]` → list.
 * - Several records (blank lines dropped; a double-quoted CSV cell may span lines, "" is a quote inside it):
 *   a markdown table with its |---| line (the line above it is markdown's header and is always dropped) → rows;
 *   records that all split into the same number (≥ 2, or ≥ 1 between | borders) of cells by `|`, tab, `,` or `;`
 *   → rows; records that all start with a bullet (-, *, •) or are numbered 1., 2., … → list; every record as one
 *   value → list.
 * - Header candidates: a delimited or markdown table without a |---| line, and a one-value-per-line list, are also
 *   read with their first record as a header (`header`). Matching uses such a reading only when the header names
 *   the gold result's columns, so a first line is never both data and header against one gold.
 * - `name: value` lines (each line's text before its first colon is a label) → rows whose labels are a `header`
 *   that must name the gold's columns: `count(*): 6`, `Name: Smith`.
 * - One line: split by `,`, `;`, `|` or tab (when that gives ≥ 2 cells) → list.
 * - Always: the whole text as one scalar, so "Smith, John" is tried as a scalar AND as a list.
 * - Cells are split quote-aware: a cell that starts with ' or " runs to the matching quote ("Smith, John", 'x').
 */

/** One cell of an answer: text as written, or a number / null from JSON. */
export type AnswerCell = string | number | null;

export type AnswerFormat =
  | 'json'
  | 'python'
  | 'brackets'
  | 'text'
  | 'comma'
  | 'semicolon'
  | 'pipe'
  | 'tab'
  | 'newline'
  | 'markdown'
  | 'bullets'
  | 'labelled';

/** `header`: the record read as a header; the reading counts only when it names the gold's columns. */
export type ParsedAnswer =
  | { kind: 'scalar'; format: AnswerFormat; value: AnswerCell; header?: string[] }
  | { kind: 'list'; format: AnswerFormat; values: AnswerCell[]; header?: string[] }
  | { kind: 'rows'; format: AnswerFormat; rows: AnswerCell[][]; header?: string[] };

const DELIMITERS: ReadonlyArray<[string, AnswerFormat]> = [['|', 'pipe'], ['\t', 'tab'], [',', 'comma'], [';', 'semicolon']];
export const FORMAT_LABEL: Record<AnswerFormat, string> = {
  json: 'JSON', python: 'Python repr', brackets: 'bracketed list', text: 'plain text', comma: 'comma-separated',
  semicolon: 'semicolon-separated', pipe: 'pipe-separated', tab: 'tab-separated', newline: 'one per line',
  markdown: 'markdown table', bullets: 'bulleted', labelled: 'name: value lines',
};
/** A delimiter no text holds (NUL is never typed): `splitTable` by it reads one quote-aware value per record. */
const NO_DELIMITER = '\u0000';
/** Python literals nest at most this deep (a list of tuples is 2); deeper text is not read as Python. */
const MAX_PYTHON_DEPTH = 3;

/** The primary reading of an answer (the first of `answerInterpretations`). */
export function parseAnswer(text: string): ParsedAnswer {
  return answerInterpretations(text)[0];
}

/** Every plausible reading of an answer, primary first, without duplicates; never empty. */
export function answerInterpretations(text: string): ParsedAnswer[] {
  const body = stripFence(trimKeepingTabs(text));
  const out: ParsedAnswer[] = [];
  const json = readJson(body);
  if (json) out.push(json);
  const python = json ? undefined : readPython(body);
  if (python) out.push(python);
  if ((!json || json.kind === 'scalar') && (!python || python.kind === 'scalar')) {
    const bracketed = readBracketed(body);
    if (bracketed) out.push(bracketed);
    out.push(...readText(body));
  }
  out.push({ kind: 'scalar', format: 'text', value: body });
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = p.kind + JSON.stringify([p.kind === 'scalar' ? [p.value] : p.kind === 'list' ? p.values : p.rows, p.header ?? null]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `s` without surrounding white space other than tabs: a tab at the end of a line is a TSV cell (an empty one, as
 * Python's csv module writes NULL), not padding. Linear.
 */
function trimKeepingTabs(s: string): string {
  let from = 0;
  let to = s.length;
  while (from < to && s[from] !== '\t' && isSpace(s[from])) from++;
  while (to > from && s[to - 1] !== '\t' && isSpace(s[to - 1])) to--;
  return s.slice(from, to);
}

/**
 * `s` (trimmed) without a surrounding ``` fence: the text between the opening and closing ``` (which may not overlap),
 * trimmed. When the fence spans lines and its first line is one word (```json, ```sql), that word is the info
 * string and is dropped; a one-line fence (```42```) keeps all of its text. String operations only, linear.
 */
function stripFence(s: string): string {
  if (s.length < 6 || !s.startsWith('```') || !s.endsWith('```')) return s;
  const inner = s.slice(3, -3);
  const newline = inner.indexOf('\n');
  if (newline !== -1 && isInfoWord(inner.slice(0, newline).trim())) return inner.slice(newline + 1).trim();
  return inner.trim();
}

/** A fence's info string: empty, or one word of letters, digits, `_` and `-`. */
function isInfoWord(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isWordCode(s.charCodeAt(i)) && s[i] !== '-') return false;
  return true;
}

function isWordCode(c: number): boolean {
  return isDigitCode(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

export function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether `c` is one character of white space (what `trim` removes, the same set as a regex's \s). */
function isSpace(c: string): boolean {
  return c !== '' && c.trim() === '';
}

// ---------------------------------------------------------------------------------------------------------------
// JSON and Python literals

/** A literal read from JSON or Python: a cell, a list, or a tuple (a row). */
type Literal = AnswerCell | { tuple: boolean; items: Literal[] };

function readJson(body: string): ParsedAnswer | undefined {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return undefined;
  }
  const scalar = jsonCell(v);
  if (scalar !== undefined) return { kind: 'scalar', format: 'json', value: scalar };
  if (Array.isArray(v)) {
    const values = v.map(jsonCell);
    if (values.every((c) => c !== undefined)) return { kind: 'list', format: 'json', values };
    const rows = v.map(jsonRow);
    if (rows.every((r) => r !== undefined)) return { kind: 'rows', format: 'json', rows };
    return undefined;
  }
  const row = jsonRow(v);
  return row ? { kind: 'rows', format: 'json', rows: [row] } : undefined;
}

function jsonCell(v: unknown): AnswerCell | undefined {
  if (v === null || typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** An array of cells, or a plain object's values, as one row. */
function jsonRow(v: unknown): AnswerCell[] | undefined {
  const items: unknown[] | undefined = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : undefined;
  if (!items) return undefined;
  const cells = items.map(jsonCell);
  return cells.every((c) => c !== undefined) ? cells : undefined;
}

/** A Python literal's reading: a tuple is one row; a list of cells a list; a list of tuples/lists rows. */
function readPython(body: string): ParsedAnswer | undefined {
  const lit = parsePythonLiteral(body);
  if (lit === undefined) return undefined;
  if (lit === null || typeof lit !== 'object') return { kind: 'scalar', format: 'python', value: lit };
  const cells = lit.items.map(cellOf);
  if (cells.every((c) => c !== undefined)) {
    return lit.tuple ? { kind: 'rows', format: 'python', rows: [cells] } : { kind: 'list', format: 'python', values: cells };
  }
  const rows = lit.items.map((item) => (item !== null && typeof item === 'object' ? item.items.map(cellOf) : undefined));
  if (!rows.every((r): r is AnswerCell[] => r !== undefined && r.every((c) => c !== undefined))) return undefined;
  return { kind: 'rows', format: 'python', rows };
}

function cellOf(l: Literal): AnswerCell | undefined {
  return l !== null && typeof l === 'object' ? undefined : l;
}

const PY_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

/**
 * The Python literal `s` (the whole text), or undefined. Numbers (a digit after at most a sign and a point: not
 * `-Infinity`) stay as written, for the verifier's decimals rule. One pass with a cursor; nesting ≤ MAX_PYTHON_DEPTH.
 */
export function parsePythonLiteral(s: string): Literal | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < s.length && isSpace(s[i])) i++;
  };
  const value = (depth: number): Literal | undefined => {
    ws();
    const c = s[i];
    if (c === '[' || c === '(') {
      if (depth >= MAX_PYTHON_DEPTH) return undefined;
      const close = c === '[' ? ']' : ')';
      i++;
      const items: Literal[] = [];
      let comma = false;
      for (;;) {
        ws();
        if (s[i] === close) break;
        const item = value(depth + 1);
        if (item === undefined) return undefined;
        items.push(item);
        ws();
        if (s[i] === ',') {
          comma = true;
          i++;
        } else if (s[i] !== close) return undefined;
      }
      i++;
      // (x) is x in Python; (x,) and () are tuples.
      if (c === '(' && items.length === 1 && !comma) return items[0];
      return { tuple: c === '(', items };
    }
    if (c === "'" || c === '"') {
      // Runs between escapes are appended as slices: one string operation per escape, not per character.
      let out = '';
      let from = ++i;
      for (; i < s.length && s[i] !== c; i++) {
        if (s[i] === '\n') return undefined;
        if (s[i] !== '\\') continue;
        out += s.slice(from, i);
        const e = s[++i];
        if (e === 'x' || e === 'u') {
          const len = e === 'x' ? 2 : 4;
          const hex = s.slice(i + 1, i + 1 + len);
          if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
          out += String.fromCharCode(parseInt(hex, 16));
          i += len;
        } else out += PY_ESCAPES[e] ?? `\\${e}`;
        from = i + 1;
      }
      if (i >= s.length) return undefined;
      out += s.slice(from, i);
      i++;
      return out;
    }
    const start = i;
    while (i < s.length && (isWordCode(s.charCodeAt(i)) || s[i] === '.' || s[i] === '+' || s[i] === '-')) i++;
    const word = s.slice(start, i);
    if (word === 'None') return null;
    if (word === 'True' || word === 'False') return word === 'True' ? 1 : 0;
    if (word === '' || !(isDigitCode(word.charCodeAt(0)) || ((word[0] === '-' || word[0] === '+' || word[0] === '.') && (isDigitCode(word.charCodeAt(1)) || word[1] === '.')))) return undefined;
    return Number.isNaN(Number(word)) ? undefined : word;
  };
  const lit = value(0);
  ws();
  return i === s.length ? lit : undefined;
}

/** `[a, b]` without quotes around the items: a list (items split quote-aware, so "[x, 'y, z']" has two). */
function readBracketed(body: string): ParsedAnswer | undefined {
  if (!body.startsWith('[') || !body.endsWith(']') || body.length < 2) return undefined;
  const inner = body.slice(1, -1);
  if (inner.includes('[') || inner.includes('\n') || inner.trim() === '') return undefined;
  return { kind: 'list', format: 'brackets', values: splitCells(inner, ',') };
}

// ---------------------------------------------------------------------------------------------------------------
// Plain text: delimited records, markdown, bullets, lines

function readText(body: string): ParsedAnswer[] {
  const lines = body.split('\n').map(trimKeepingTabs).filter((l) => l !== ''); // trim drops a CRLF's \r
  const out: ParsedAnswer[] = [];
  if (lines.length <= 1) {
    const line = lines[0] ?? '';
    for (const [delim, format] of DELIMITERS) {
      const cells = line.includes(delim) ? splitCells(line, delim) : [];
      if (cells.length >= 2) out.push({ kind: 'list', format, values: cells });
    }
    // One markdown row between borders, `| 6 |`.
    if (line.length >= 2 && line.startsWith('|') && line.endsWith('|')) out.push({ kind: 'list', format: 'markdown', values: splitCells(line, '|') });
    const labelled = readLabelled(lines);
    if (labelled) out.push(labelled);
    return out;
  }
  for (const [delim, format] of DELIMITERS) out.push(...readDelimited(body, delim, format));
  const labelled = readLabelled(lines);
  if (labelled) out.push(labelled);
  if (lines.every(isBulleted)) out.push({ kind: 'list', format: 'bullets', values: lines.map((l) => l.slice(1).trim()) });
  if (lines.every((l, i) => l.startsWith(`${i + 1}.`) || l.startsWith(`${i + 1})`))) {
    out.push({ kind: 'list', format: 'bullets', values: lines.map((l, i) => l.slice(String(i + 1).length + 1).trim()) });
  }
  // One value per record; with a double quote in the text, CSV quoting applies (a quoted value may span lines).
  const values = body.includes('"') ? splitTable(body, NO_DELIMITER).map((r) => r.cells[0]) : lines;
  out.push({ kind: 'list', format: 'newline', values });
  if (values.length >= 2) out.push({ kind: 'list', format: 'newline', values: values.slice(1), header: [values[0]] });
  return out;
}

/**
 * Rows of `body` split into records and cells by `delim`: without a header, and (when there is no |---| line)
 * with the first record as a header candidate. A |---| line after the first record makes it a markdown header,
 * always dropped; a |---| line first is dropped.
 */
function readDelimited(body: string, delim: string, format: AnswerFormat): ParsedAnswer[] {
  if (!body.includes(delim)) return [];
  const records = splitTable(body, delim);
  // One record over several lines (a quoted cell holds a line break): a list, as one line would be.
  if (records.length === 1) return records[0].cells.length >= 2 ? [{ kind: 'list', format, values: records[0].cells }] : [];
  if (records.length === 0) return [];
  if (delim === '|' && !isTableRule(records[0].text) && isTableRule(records[1].text)) {
    const rows = records.slice(2).map((r) => r.cells);
    return sameWidth(rows, 1) ? [{ kind: 'rows', format: 'markdown', rows }] : [];
  }
  const data = delim === '|' && isTableRule(records[0].text) ? records.slice(1) : records;
  const bordered = delim === '|' && data.every((r) => r.text.startsWith('|') && r.text.endsWith('|') && r.text.length >= 2);
  const rows = data.map((r) => r.cells);
  if (!sameWidth(rows, bordered ? 1 : 2)) return [];
  const out: ParsedAnswer[] = [{ kind: 'rows', format: bordered ? 'markdown' : format, rows }];
  if (rows.length >= 2 && data === records) out.push({ kind: 'rows', format: bordered ? 'markdown' : format, rows: rows.slice(1), header: rows[0] });
  return out;
}

function sameWidth(rows: string[][], min: number): boolean {
  return rows.length > 0 && rows.every((r) => r.length >= min && r.length === rows[0].length);
}

/** One record of a delimited text: its trimmed text, and its cells (quotes of a double-quoted cell removed). */
export interface TextRecord {
  text: string;
  cells: string[];
}

/**
 * The non-blank records of `body`, split into cells by `delim`, in one pass. Records end at line breaks that are not
 * inside a quoted cell. A cell whose first non-space character is `"` runs to its closing quote: a `"` followed by
 * spaces and then `delim`, a line break or the end, that is not the second quote of a `""` pair (a quote inside the
 * cell); the cell may span lines. A cell that starts with `'` runs to such a `'` on the same line. Precomputed tables
 * (closing quotes, runs of quotes, line ends) make every lookup O(1), so the whole pass is linear.
 * For `|`, one leading and one trailing pipe of a record (markdown borders) are not cell separators.
 * An empty delimiter is refused: it would match at every position without moving past it.
 */
export function splitTable(body: string, delim: string): TextRecord[] {
  if (delim === '') throw new RangeError('splitTable: the delimiter must not be empty (it would match everywhere)');
  const q = quoteTables(body, delim);
  const records: TextRecord[] = [];
  let cells: string[] = [];
  let recordStart = 0;
  let cellFrom = 0;
  let i = 0;
  let atCellStart = true;
  const endCell = (to: number): void => {
    cells.push(cellText(body.slice(cellFrom, to)));
  };
  const endRecord = (to: number): void => {
    endCell(to);
    const text = delim === '\t' ? trimKeepingTabs(body.slice(recordStart, to)) : body.slice(recordStart, to).trim();
    if (text !== '') {
      // A leading `|` is always a separator with only white space before it (no quote opens before it), so its first
      // cell is '' and there is a second; a trailing one leaves a last cell of '' — unless the record is `|` alone.
      if (delim === '|' && text.startsWith('|')) cells.shift();
      if (delim === '|' && text.endsWith('|') && cells.length > 1) cells.pop();
      records.push({ text, cells });
    }
    cells = [];
  };
  while (i < body.length) {
    const c = body[i];
    if (atCellStart && (c === ' ' || (c === '\t' && delim !== '\t'))) {
      i++;
      continue;
    }
    if (atCellStart && (c === '"' || c === "'")) {
      atCellStart = false;
      const k = c === '"' ? closingDouble(q, i) : q.nextSingle[i + 1];
      if (k !== -1 && (c === '"' || k < q.lineEnd[i])) {
        i = k + 1;
        continue;
      }
    }
    atCellStart = false;
    if (c === '\n') {
      endRecord(i);
      recordStart = cellFrom = i + 1;
      atCellStart = true;
    } else if (body.startsWith(delim, i)) {
      endCell(i);
      cellFrom = i + delim.length;
      atCellStart = true;
      i += delim.length;
      continue;
    }
    i++;
  }
  endRecord(body.length);
  return records;
}

/** A cell's text, trimmed; a double-quoted cell without its quotes and with `""` read as `"`. */
function cellText(raw: string): string {
  const c = raw.trim();
  return c.length >= 2 && c.startsWith('"') && c.endsWith('"') ? c.slice(1, -1).split('""').join('"') : c;
}

interface QuoteTables {
  /** First position ≥ k of a `"` in closing context whose run of quotes (up to it) has odd length; -1 if none. */
  nextOddDouble: Int32Array;
  /** Position of the last quote of the run of `"` that starts at k (k itself when s[k] is no quote). */
  runEnd: Int32Array;
  /** Whether the `"` at k is in closing context (followed by spaces, then the delimiter, a line break or the end). */
  closes: Uint8Array;
  /** First position ≥ k of a `'` in closing context; -1 if none. */
  nextSingle: Int32Array;
  /** Position of the first line break at or after k (the length when none). */
  lineEnd: Int32Array;
}

function quoteTables(s: string, delim: string): QuoteTables {
  const n = s.length;
  const t: QuoteTables = {
    nextOddDouble: new Int32Array(n + 1).fill(-1),
    runEnd: new Int32Array(n + 1),
    closes: new Uint8Array(n + 1),
    nextSingle: new Int32Array(n + 1).fill(-1),
    lineEnd: new Int32Array(n + 1).fill(n),
  };
  const runStart = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) runStart[k] = s[k] === '"' && k > 0 && s[k - 1] === '"' ? runStart[k - 1] : k;
  let afterSpaces = n;
  for (let k = n - 1; k >= 0; k--) {
    t.nextOddDouble[k] = t.nextOddDouble[k + 1];
    t.nextSingle[k] = t.nextSingle[k + 1];
    t.lineEnd[k] = s[k] === '\n' ? k : t.lineEnd[k + 1];
    t.runEnd[k] = s[k] === '"' && s[k + 1] === '"' ? t.runEnd[k + 1] : k;
    const next = s[afterSpaces];
    const context = afterSpaces === n || next === '\n' || next === '\r' || s.startsWith(delim, afterSpaces);
    if (context && s[k] === '"') {
      t.closes[k] = 1;
      if ((k - runStart[k] + 1) % 2 === 1) t.nextOddDouble[k] = k;
    }
    if (context && s[k] === "'") t.nextSingle[k] = k;
    if (s[k] !== ' ' && !(s[k] === '\t' && delim !== '\t')) afterSpaces = k;
  }
  return t;
}

/**
 * The closing quote of a cell opened by the `"` at `open`: inside, quotes come in `""` pairs, so the closer ends a run
 * of quotes whose length after the opener is odd. Within the opener's own run that is checked directly; after it,
 * `nextOddDouble` knows.
 */
function closingDouble(t: QuoteTables, open: number): number {
  const end = t.runEnd[open];
  if (end > open && t.closes[end] && (end - open) % 2 === 1) return end;
  return end + 1 < t.nextOddDouble.length ? t.nextOddDouble[end + 1] : -1;
}

/**
 * Lines `label: value` (the label before the first colon, non-empty, with no bracket or brace) → rows: one row of
 * the distinct labels' values, or several when the labels repeat in the same groups (`name: a`, `name: b` is a
 * column). The labels are the reading's header: it counts only when they name the gold's columns.
 */
function readLabelled(lines: string[]): ParsedAnswer | undefined {
  if (lines.length === 0) return undefined;
  const labels: string[] = [];
  const values: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const label = line.slice(0, colon).trim();
    if (label === '' || /[[\]{}]/.test(label)) return undefined;
    labels.push(label);
    values.push(line.slice(colon + 1).trim());
  }
  const width = new Set(labels.map((l) => l.toLowerCase())).size;
  if (lines.length % width !== 0) return undefined;
  const rows: string[][] = [];
  for (let r = 0; r < lines.length; r += width) {
    const group = labels.slice(r, r + width).map((l) => l.toLowerCase());
    if (new Set(group).size !== width || group.some((l, j) => l !== labels[j].toLowerCase())) return undefined;
    rows.push(values.slice(r, r + width));
  }
  return { kind: 'rows', format: 'labelled', rows, header: labels.slice(0, width) };
}

/** A markdown table's rule line, e.g. `|---|:--:|` or `--- | ---`: cells of ≥ 2 dashes with optional colons. */
export function isTableRule(line: string): boolean {
  let s = line;
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  if (s === '') return false;
  return s.split('|').every((cell) => {
    const c = cell.trim();
    const from = c.startsWith(':') ? 1 : 0;
    const to = c.length > from && c.endsWith(':') ? c.length - 1 : c.length;
    if (to - from < 2) return false;
    for (let i = from; i < to; i++) if (c[i] !== '-') return false;
    return true;
  });
}

/** A trimmed line that starts with a bullet (-, *, •) and white space. */
function isBulleted(line: string): boolean {
  return (line[0] === '-' || line[0] === '*' || line[0] === '•') && line.length > 1 && isSpace(line[1]);
}

/**
 * Split one line into trimmed cells at `delim`. A cell that starts with ' or " runs to the same quote followed by
 * the delimiter or the end (CSV-like), so "Smith, John" stays one cell; O'Brien has no opening quote and is plain.
 * For `|`, one leading and one trailing pipe (markdown table borders) are dropped first.
 */
export function splitCells(line: string, delim: string): string[] {
  let s = delim === '\t' ? trimKeepingTabs(line) : line.trim();
  if (delim === '|') {
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|')) s = s.slice(0, -1);
  }
  const closing = closingQuotes(s, delim);
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ' ' || (s[i] === '\t' && delim !== '\t'))) i++;
    let end = -1;
    const q = s[i];
    if (q === '"' || q === "'") {
      const k = (q === '"' ? closing.double : closing.single)[i + 1];
      if (k !== -1) end = k + 1;
    }
    const next = s.indexOf(delim, end === -1 ? i : end);
    cells.push(s.slice(i, next === -1 ? s.length : next).trim());
    if (next === -1) return cells;
    i = next + delim.length;
  }
}

/**
 * For each position i of `s`, the first k ≥ i where a double (resp. single) quote closes a cell: the quote is
 * followed by spaces (tabs too, unless the delimiter is a tab, as in `splitTable`) and then the delimiter or the end.
 * One backward pass, so quoted cells cost O(length) in all.
 * Arrays have length + 1 entries; -1 means none.
 */
function closingQuotes(s: string, delim: string): { double: Int32Array; single: Int32Array } {
  const n = s.length;
  const double = new Int32Array(n + 1).fill(-1);
  const single = new Int32Array(n + 1).fill(-1);
  let afterSpaces = n; // first position ≥ k + 1 that is not a space (nor a tab, unless the delimiter is one)
  for (let k = n - 1; k >= 0; k--) {
    double[k] = double[k + 1];
    single[k] = single[k + 1];
    const closes = afterSpaces === n || s.startsWith(delim, afterSpaces);
    if (closes && s[k] === '"') double[k] = k;
    if (closes && s[k] === "'") single[k] = k;
    if (s[k] !== ' ' && !(s[k] === '\t' && delim !== '\t')) afterSpaces = k;
  }
  return { double, single };
}
