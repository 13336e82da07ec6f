/**
 * Lenient verifier for ANSWER values: reads free text from a person or a model in every plausible way and matches
 * it against the gold result. Over 300 lines because parsing and matching are one contract, kept together.
 *
 * Cost: reading is linear in the text. The text may be a degenerate model output of 10^6 characters, so there is no
 * regular expression with nested or overlapping quantifiers here; fences, numbers, table rules and quoted cells are
 * hand-written scans (tests/env/parse-linear.test.ts holds every reader to linear growth).
 *
 * Reading (`answerInterpretations`, primary first; `parseAnswer` returns the primary one):
 * - The text is trimmed and a surrounding ``` code fence removed (with its info word alone on the first line, ```json).
 * - JSON: number, string, null → scalar (true/false → 1/0, as SQLite stores them); flat array → list; array of
 *   arrays → rows; array of objects → rows of their values; one object → one row of its values.
 * - Several lines (blank ones dropped): a markdown table (header and |---| line dropped; a header line without the
 *   |---| line is read as data, so it adds a row) → rows; lines that all split
 *   into the same number (≥ 2) of cells by `|`, tab, `,` or `;` → rows; lines that all start with a bullet (-, *, •)
 *   or are numbered 1., 2., … → list without the markers; every line as one value → list.
 * - One line: split by `,`, `;`, `|` or tab (when that gives ≥ 2 cells) → list.
 * - Always: the whole text as one scalar, so "Smith, John" is tried as a scalar AND as a list.
 * - Cells are split quote-aware: a cell that starts with ' or " runs to the matching quote ("Smith, John", 'x').
 * The answer matches when ANY interpretation matches.
 *
 * Matching an interpretation against gold (n rows, m columns):
 * - scalar ↔ gold 1×1. list ↔ gold n×1 (values as a multiset, in order when order matters) or gold 1×m (values
 *   against the row's cells in any order). rows ↔ gold n×m with the strict verifier's shape rules: some column
 *   permutation, rows as a multiset (a list when order matters), with lenient cells.
 * - Empty gold (no rows) matches an empty JSON list, or a scalar '', 'none', 'null', 'empty', 'no results', 'no rows'.
 *
 * Lenient cell equality (answer cell a, gold cell g):
 * - Text is trimmed, Unicode-NFC, stripped of one pair of surrounding quotes (' " `), whitespace-collapsed and lower-
 *   cased on both sides, then compared for equality.
 * - When both sides read as numbers (plain, signed, decimal, exponent, or with 1,234 thousands separators), the
 *   answer must be exact as far as it is written (a JSON number is written as String(n)):
 *   · equal numbers always match (6, 6.0 and 6.00 are one number; text gold '6.50' matches 6.5);
 *   · an integer answer (no point, no exponent) matches only an equal gold: 20001 does not match 20000;
 *   · an answer with d ≥ 1 decimals matches when |a − g| ≤ 0.5·10^-d + ε (g rounded to d places, either way at a tie;
 *     truncation does not count: 2.66 does not match 2.6666) AND d ≥ min(2, decimals(g)), where decimals(g) counts
 *     the decimals of g's shortest text (String(g) for a number, as written for numeric text). So 3.33 matches
 *     3.3333333 but 3.3 and 3 do not; 15.5 matches 15.5 but 16 does not;
 *   · an answer with an exponent matches when equal; for a non-integer gold, within ε (1.6514113e7 matches 16514113);
 *   ε = 8·Number.EPSILON·max(1, |g|), the float error of parsing the decimal, not a tolerance;
 *   · gold numbers lose binary noise first (non-integers rounded to 15 significant digits: a SUM of 3.0000000000000004
 *     is 3, 0.30000000000000004 is 0.3 with one decimal).
 *   So an integer gold accepts only its own value, and a non-integer gold only its roundings to d ≥ max(1, min(2,
 *   decimals(g))) places. Why this is safe on Spider (scripts/near-miss.ts, `goldNumberReport`): no answer the rule
 *   accepts for one number of a gold result is accepted for a distinct neighbouring number of the same result.
 * - NULL (gold NULL or JSON null) matches NULL and the texts 'null', 'none' and '' on the other side.
 * - A BLOB gold cell matches its lower-case hex, x'hex', or its UTF-8 text.
 *
 * Cost caps (answers are short; these only bound adversarial input): a reading whose shape cannot fit the gold is
 * rejected before its cells are prepared; bags of ≤ 200 rows are matched exactly
 * (bipartite matching); larger ones pair identical rows first and match the rest exactly if ≤ 1000 rows remain, else
 * fail. Without row order at most MAX_COLUMN_PERMUTATIONS column permutations are tried.
 */
import type { SqlValue } from '../sql/types.ts';
import type { ResultTable } from './verifier.ts';
import { blobHex } from './verifier.ts';

/** One cell of an answer: text as written, or a number / null from JSON. */
export type AnswerCell = string | number | null;

export type AnswerFormat = 'json' | 'text' | 'comma' | 'semicolon' | 'pipe' | 'tab' | 'newline' | 'markdown' | 'bullets';

export type ParsedAnswer =
  | { kind: 'scalar'; format: AnswerFormat; value: AnswerCell }
  | { kind: 'list'; format: AnswerFormat; values: AnswerCell[] }
  | { kind: 'rows'; format: AnswerFormat; rows: AnswerCell[][] };

export interface AnswerVerdict {
  match: boolean;
  /** The interpretation that matched, or the primary one when none did, e.g. "list (comma-separated)". */
  interpretation: string;
}

export const MAX_COLUMN_PERMUTATIONS = 720;
const FULL_MATCH_ROWS = 200;
const MAX_REMAINDER_ROWS = 1000;
const NULL_WORDS = new Set(['null', 'none', '']);
const EMPTY_WORDS = new Set(['', 'none', 'null', 'empty', 'no results', 'no rows']);
const DELIMITERS: ReadonlyArray<[string, AnswerFormat]> = [['|', 'pipe'], ['\t', 'tab'], [',', 'comma'], [';', 'semicolon']];
const FORMAT_LABEL: Record<AnswerFormat, string> = {
  json: 'JSON', text: 'plain text', comma: 'comma-separated', semicolon: 'semicolon-separated', pipe: 'pipe-separated',
  tab: 'tab-separated', newline: 'one per line', markdown: 'markdown table', bullets: 'bulleted',
};

// ---------------------------------------------------------------------------------------------------------------
// Reading

/** The primary reading of an answer (the first of `answerInterpretations`). */
export function parseAnswer(text: string): ParsedAnswer {
  return answerInterpretations(text)[0];
}

/** Every plausible reading of an answer, primary first, without duplicates; never empty. */
export function answerInterpretations(text: string): ParsedAnswer[] {
  const body = stripFence(text.trim());
  const out: ParsedAnswer[] = [];
  const json = readJson(body);
  if (json) out.push(json);
  if (!json || json.kind === 'scalar') out.push(...readText(body));
  out.push({ kind: 'scalar', format: 'text', value: body });
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = p.kind + JSON.stringify(p.kind === 'scalar' ? [p.value] : p.kind === 'list' ? p.values : p.rows);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A short description of a reading, e.g. "rows (pipe-separated)". */
export function describeAnswer(p: ParsedAnswer): string {
  return `${p.kind} (${FORMAT_LABEL[p.format]})`;
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
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(isDigitCode(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) return false;
  }
  return true;
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether `c` is one character of white space (what `trim` removes, the same set as a regex's \s). */
function isSpace(c: string): boolean {
  return c !== '' && c.trim() === '';
}

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

function readText(body: string): ParsedAnswer[] {
  const lines = body.split('\n').map((l) => l.trim()).filter((l) => l !== ''); // trim drops a CRLF's \r
  const out: ParsedAnswer[] = [];
  if (lines.length <= 1) {
    const line = lines[0] ?? '';
    for (const [delim, format] of DELIMITERS) {
      const cells = line.includes(delim) ? splitCells(line, delim) : [];
      if (cells.length >= 2) out.push({ kind: 'list', format, values: cells });
    }
    return out;
  }
  if (!isTableRule(lines[0]) && isTableRule(lines[1])) out.push({ kind: 'rows', format: 'markdown', rows: lines.slice(2).map((l) => splitCells(l, '|')) });
  for (const [delim, format] of DELIMITERS) {
    if (!lines.every((l) => l.includes(delim))) continue;
    const rows = lines.map((l) => splitCells(l, delim));
    if (rows.every((r) => r.length >= 2 && r.length === rows[0].length)) out.push({ kind: 'rows', format, rows });
  }
  if (lines.every(isBulleted)) out.push({ kind: 'list', format: 'bullets', values: lines.map((l) => l.slice(1).trim()) });
  if (lines.every((l, i) => l.startsWith(`${i + 1}.`) || l.startsWith(`${i + 1})`))) {
    out.push({ kind: 'list', format: 'bullets', values: lines.map((l, i) => l.slice(String(i + 1).length + 1).trim()) });
  }
  out.push({ kind: 'list', format: 'newline', values: lines });
  return out;
}

/** A markdown table's rule line, e.g. `|---|:--:|` or `--- | ---`: cells of ≥ 2 dashes with optional colons. */
function isTableRule(line: string): boolean {
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
  let s = line.trim();
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
 * followed by spaces and then the delimiter or the end. One backward pass, so quoted cells cost O(length) in all.
 * Arrays have length + 1 entries; -1 means none.
 */
function closingQuotes(s: string, delim: string): { double: Int32Array; single: Int32Array } {
  const n = s.length;
  const double = new Int32Array(n + 1).fill(-1);
  const single = new Int32Array(n + 1).fill(-1);
  let afterSpaces = n; // first position ≥ k + 1 that is not a space
  for (let k = n - 1; k >= 0; k--) {
    double[k] = double[k + 1];
    single[k] = single[k + 1];
    const closes = afterSpaces === n || s.startsWith(delim, afterSpaces);
    if (closes && s[k] === '"') double[k] = k;
    if (closes && s[k] === "'") single[k] = k;
    if (s[k] !== ' ') afterSpaces = k;
  }
  return { double, single };
}

// ---------------------------------------------------------------------------------------------------------------
// Lenient cells

/** A cell prepared once for comparison: normalised text, and its number when it reads as one. */
interface Prepared {
  isNull: boolean;
  text: string;
  num: number | null;
  /**
   * Decimals as shown. Answers: digits written after the point (0 for an integer, -1 with an exponent). Gold:
   * decimals of its shortest text (`shownDecimals`), or as written for numeric text.
   */
  decimals: number;
  /** Other texts a gold BLOB matches. */
  alt?: string[];
}

/** A number read from text; `decimals` as in `Prepared` (digits after the point; -1 with an exponent). */
export interface ReadNumber {
  num: number | null;
  decimals: number;
}

/** Trimmed, NFC, one pair of surrounding quotes stripped, whitespace collapsed, lower-cased. */
export function normalizeText(s: string): string {
  let t = s.trim().normalize('NFC');
  const q = t[0];
  if (t.length >= 2 && (q === '"' || q === "'" || q === '`') && t.endsWith(q)) t = t.slice(1, -1);
  // Split and join rather than replace(/\s+/g, ' '): V8's global replace slows down super-linearly on 10^6-character
  // texts with many short runs; split by one quantified class is linear.
  return t.split(/\s+/).join(' ').trim().toLowerCase();
}

const NOT_A_NUMBER: ReadNumber = { num: null, decimals: 0 };

/**
 * Relative slack for comparing a parsed decimal with a gold double: a few units in the last place, enough for a tie
 * such as 19.62 vs 19.625 (neither 19.62 nor most decimals are exact in binary), far too small to let a wrong digit
 * through. (1e-9 relative would accept 3.000000001e9 for 3e9, and 0.05 + 3 around a gold of 3e9.)
 */
const FLOAT_SLACK = 8 * Number.EPSILON;

/**
 * The number `t` (normalised text) writes, scanned by hand in one pass: an optional sign, then either digits with
 * an optional point and an optional exponent (12, 12., 12.5, .5, 1e-3, 2.5E+4 lower-cased), or 1–3 digits followed
 * by groups of `,ddd` and optional decimals (1,234,567.89). Anything else is not a number.
 */
export function readNumber(t: string): ReadNumber {
  const n = t.length;
  let i = t[0] === '+' || t[0] === '-' ? 1 : 0;
  const digitsFrom = (from: number): number => {
    let k = from;
    while (k < n && isDigitCode(t.charCodeAt(k))) k++;
    return k;
  };
  const intEnd = digitsFrom(i);
  const intDigits = intEnd - i;
  i = intEnd;
  let grouped = false;
  if (t[i] === ',' && intDigits >= 1 && intDigits <= 3) {
    while (t[i] === ',') {
      if (digitsFrom(i + 1) - (i + 1) !== 3) return NOT_A_NUMBER;
      i += 4;
    }
    grouped = true;
  }
  let decimals = 0;
  if (t[i] === '.') {
    const fracEnd = digitsFrom(i + 1);
    decimals = fracEnd - (i + 1);
    i = fracEnd;
    if (intDigits === 0 && decimals === 0) return NOT_A_NUMBER;
    if (grouped && decimals === 0) return NOT_A_NUMBER;
  } else if (intDigits === 0) {
    return NOT_A_NUMBER;
  }
  if (t[i] === 'e' && !grouped) {
    const sign = t[i + 1] === '+' || t[i + 1] === '-' ? 1 : 0;
    const expEnd = digitsFrom(i + 1 + sign);
    if (expEnd === i + 1 + sign) return NOT_A_NUMBER;
    i = expEnd;
    decimals = -1;
  }
  if (i !== n) return NOT_A_NUMBER;
  return { num: Number(grouped ? t.split(',').join('') : t), decimals };
}

/**
 * A gold number without binary noise: non-integers rounded to 15 significant digits, so a SUM that SQLite gives as
 * 3.0000000000000004 or 0.30000000000000004 is shown, and compared, as 3 or 0.3.
 */
export function shownValue(g: number): number {
  return Number.isInteger(g) || !Number.isFinite(g) ? g : Number(g.toPrecision(15));
}

/** Decimals of the shortest text of a gold number (after `shownValue`): 0 for 6 and 6.0, 1 for 15.5, 16 for 1/3. */
export function shownDecimals(g: number): number {
  const s = String(shownValue(g));
  const e = s.indexOf('e');
  const mantissa = e === -1 ? s : s.slice(0, e);
  const point = mantissa.indexOf('.');
  const fraction = point === -1 ? 0 : mantissa.length - point - 1;
  return e === -1 ? fraction : Math.max(0, fraction - Number(s.slice(e + 1)));
}

function prepareText(s: string): Prepared {
  const text = normalizeText(s);
  return { isNull: false, text, ...readNumber(text) };
}

function prepareAnswer(a: AnswerCell): Prepared {
  if (a === null) return { isNull: true, text: '', num: null, decimals: 0 };
  return prepareText(typeof a === 'number' ? String(a) : a);
}

function prepareGold(g: SqlValue): Prepared {
  if (g === null) return { isNull: true, text: '', num: null, decimals: 0 };
  if (typeof g === 'number') return { isNull: false, text: String(g), num: g, decimals: shownDecimals(g) };
  if (typeof g === 'string') {
    const p = prepareText(g);
    return p.num !== null && p.decimals === -1 ? { ...p, decimals: shownDecimals(p.num) } : p;
  }
  const hex = blobHex(g);
  let utf8: string | undefined;
  try {
    utf8 = normalizeText(new TextDecoder('utf-8', { fatal: true }).decode(g));
  } catch {
    utf8 = undefined;
  }
  return { isNull: false, text: hex, num: null, decimals: 0, alt: [`x'${hex}'`, ...(utf8 === undefined ? [] : [utf8])] };
}

function preparedMatch(a: Prepared, g: Prepared): boolean {
  if (a.isNull) return g.isNull || NULL_WORDS.has(g.text);
  if (g.isNull) return NULL_WORDS.has(a.text);
  if (a.num !== null && g.num !== null) return numbersMatch(a.num, a.decimals, g.num, g.decimals);
  return a.text === g.text || (g.alt?.includes(a.text) ?? false);
}

/**
 * The number rule (header, "Lenient cell equality"): answer a written with `aDecimals` decimals (-1: exponent)
 * against gold g shown with `gDecimals` decimals.
 */
function numbersMatch(a: number, aDecimals: number, g: number, gDecimals: number): boolean {
  const shown = shownValue(g);
  if (a === g || a === shown) return true;
  if (aDecimals === 0) return false;
  const slack = FLOAT_SLACK * Math.max(1, Math.abs(shown));
  if (aDecimals === -1) return !Number.isInteger(shown) && Math.abs(a - shown) <= slack;
  if (aDecimals < Math.min(2, gDecimals)) return false;
  return Math.abs(a - shown) <= 0.5 * 10 ** -aDecimals + slack;
}

/** Lenient equality of one answer cell and one gold cell (rules in the header). */
export function cellMatches(answer: AnswerCell, gold: SqlValue): boolean {
  return preparedMatch(prepareAnswer(answer), prepareGold(gold));
}

/** A key such that equal keys imply `preparedMatch`; used to pair identical rows before exact matching. */
function exactKey(p: Prepared): string {
  return p.isNull ? 'z' : p.num !== null ? `n:${p.num}` : `t:${p.text}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/** Lenient match of an ANSWER's text against the gold result: tries every interpretation. */
export function answerMatches(text: string, gold: ResultTable, orderMatters: boolean): AnswerVerdict {
  const readings = answerInterpretations(text);
  const goldCells = gold.rows.map((row) => row.map(prepareGold));
  const hit = readings.find((p) => interpretationMatches(p, goldCells, orderMatters));
  return { match: hit !== undefined, interpretation: describeAnswer(hit ?? readings[0]) };
}

function interpretationMatches(p: ParsedAnswer, gold: Prepared[][], orderMatters: boolean): boolean {
  const n = gold.length;
  switch (p.kind) {
    case 'scalar':
      if (n === 0) return typeof p.value === 'string' && EMPTY_WORDS.has(normalizeText(p.value));
      return n === 1 && gold[0].length === 1 && preparedMatch(prepareAnswer(p.value), gold[0][0]);
    case 'list': {
      if (n === 0) return p.values.length === 0;
      // Shapes first, so a huge answer against a small gold costs no preparation.
      const asColumn = gold[0].length === 1 && p.values.length === n;
      const asRow = n === 1 && p.values.length === gold[0].length;
      if (!asColumn && !asRow) return false;
      const cells = p.values.map(prepareAnswer);
      if (asColumn && rowsMatch(cells.map((c) => [c]), gold, orderMatters)) return true;
      return asRow && rowsMatch([cells], gold, false);
    }
    case 'rows':
      if (n === 0) return p.rows.length === 0;
      if (p.rows.length !== n || !p.rows.every((r) => r.length === gold[0].length)) return false;
      return rowsMatch(p.rows.map((r) => r.map(prepareAnswer)), gold, orderMatters);
    default:
      return p satisfies never;
  }
}

/** Same shape, then some column permutation under which rows agree (as a bag, or a list when order matters). */
function rowsMatch(ans: Prepared[][], gold: Prepared[][], orderMatters: boolean): boolean {
  const n = gold.length;
  const m = gold[0].length;
  if (ans.length !== n || !ans.every((r) => r.length === m)) return false;
  if (orderMatters || n === 1) {
    // Rows are fixed, so the table matches iff each gold column can take a distinct answer column matching it
    // cell by cell: a bipartite matching between columns, exact.
    const ok = (i: number, j: number): boolean => gold.every((row, r) => preparedMatch(ans[r][j], row[i]));
    return perfectMatching(range(m), range(m), ok);
  }
  const ok = Array.from({ length: m }, (_, i) => Array.from({ length: m }, (_, j) => columnsCompatible(ans, gold, j, i)));
  const perm = new Array<number>(m);
  const used = new Uint8Array(m);
  let tried = 0;
  const assign = (i: number): boolean => {
    if (i === m) return ++tried <= MAX_COLUMN_PERMUTATIONS && bagMatch(ans, gold, perm);
    for (let j = 0; j < m; j++) {
      if (used[j] || !ok[i][j]) continue;
      used[j] = 1;
      perm[i] = j;
      if (assign(i + 1)) return true;
      used[j] = 0;
      if (tried >= MAX_COLUMN_PERMUTATIONS) return false;
    }
    return false;
  };
  return assign(0);
}

/** Necessary condition for answer column j to stand for gold column i: each distinct value has a partner. */
function columnsCompatible(ans: Prepared[][], gold: Prepared[][], j: number, i: number): boolean {
  const a = distinct(ans.map((r) => r[j]));
  const g = distinct(gold.map((r) => r[i]));
  if (a.size * g.size > 250_000) return true; // too costly to prune; the bag match decides
  const covered = (x: Prepared, ys: Map<string, Prepared>, answerSide: boolean): boolean =>
    ys.has(exactKey(x)) || [...ys.values()].some((y) => (answerSide ? preparedMatch(x, y) : preparedMatch(y, x)));
  return [...a.values()].every((x) => covered(x, g, true)) && [...g.values()].every((y) => covered(y, a, false));
}

function distinct(cells: Prepared[]): Map<string, Prepared> {
  return new Map(cells.map((c) => [exactKey(c), c]));
}

/** Answer rows (read through `perm`: gold column i ↔ answer column perm[i]) and gold rows agree as bags. */
function bagMatch(ans: Prepared[][], gold: Prepared[][], perm: number[]): boolean {
  const ok = (a: number, g: number): boolean => gold[g].every((cell, i) => preparedMatch(ans[a][perm[i]], cell));
  const n = gold.length;
  if (n <= FULL_MATCH_ROWS) return perfectMatching(range(n), range(n), ok);
  // Large: pair rows with identical keys first, then match what is left exactly.
  const pending = new Map<string, number[]>();
  gold.forEach((row, g) => {
    const key = JSON.stringify(row.map(exactKey));
    const list = pending.get(key);
    if (list) list.push(g);
    else pending.set(key, [g]);
  });
  const restA: number[] = [];
  ans.forEach((row, a) => {
    const list = pending.get(JSON.stringify(perm.map((j) => exactKey(row[j]))));
    if (list && list.length > 0) list.pop();
    else restA.push(a);
  });
  const restG = [...pending.values()].flat();
  return restA.length <= MAX_REMAINDER_ROWS && perfectMatching(restA, restG, ok);
}

/** Whether every `left` item can be paired with a distinct `right` item under `ok` (Kuhn's augmenting paths). */
function perfectMatching(left: number[], right: number[], ok: (l: number, r: number) => boolean): boolean {
  if (left.length !== right.length) return false;
  const adj = left.map((l) => right.flatMap((r, k) => (ok(l, r) ? [k] : [])));
  const owner = new Int32Array(right.length).fill(-1);
  let seen = new Uint8Array(right.length);
  const augment = (u: number): boolean => {
    for (const k of adj[u]) {
      if (seen[k]) continue;
      seen[k] = 1;
      if (owner[k] === -1 || augment(owner[k])) {
        owner[k] = u;
        return true;
      }
    }
    return false;
  };
  for (let u = 0; u < left.length; u++) {
    if (adj[u].length === 0) return false;
    seen = new Uint8Array(right.length);
    if (!augment(u)) return false;
  }
  return true;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
