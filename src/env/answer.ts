/**
 * Lenient verifier for ANSWER values: reads free text from a person or a model in every plausible way and matches
 * it against the gold result. Over 300 lines because parsing and matching are one contract, kept together.
 *
 * Reading (`answerInterpretations`, primary first; `parseAnswer` returns the primary one):
 * - The text is trimmed and a surrounding ``` code fence removed.
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
 * - When both sides read as numbers (plain, signed, decimal, exponent, or with 1,234 thousands separators):
 *   |a − g| ≤ 1e-6 + 1e-4·|g|; or, when a is written with d ≥ 1 decimals, a is g rounded to d decimals (either way at
 *   a tie: |a − g| ≤ 0.5·10^-d), so 3.33 matches 3.3333. An integer answer never rounds (3 does not match 3.4).
 * - NULL (gold NULL or JSON null) matches NULL and the texts 'null', 'none' and '' on the other side.
 * - A BLOB gold cell matches its lower-case hex, x'hex', or its UTF-8 text.
 *
 * Cost caps (answers are short; these only bound adversarial input): bags of ≤ 200 rows are matched exactly
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

function stripFence(s: string): string {
  const m = /^```[\w-]*\s*\n?([\s\S]*?)\n?\s*```$/.exec(s);
  return m ? m[1].trim() : s;
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
  const lines = body.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const out: ParsedAnswer[] = [];
  if (lines.length <= 1) {
    const line = lines[0] ?? '';
    for (const [delim, format] of DELIMITERS) {
      const cells = line.includes(delim) ? splitCells(line, delim) : [];
      if (cells.length >= 2) out.push({ kind: 'list', format, values: cells });
    }
    return out;
  }
  const sep = lines.findIndex((l) => /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(l));
  if (sep === 1) out.push({ kind: 'rows', format: 'markdown', rows: lines.slice(2).map((l) => splitCells(l, '|')) });
  for (const [delim, format] of DELIMITERS) {
    if (!lines.every((l) => l.includes(delim))) continue;
    const rows = lines.map((l) => splitCells(l, delim));
    if (rows.every((r) => r.length >= 2 && r.length === rows[0].length)) out.push({ kind: 'rows', format, rows });
  }
  const bullet = /^[-*•]\s+/;
  if (lines.every((l) => bullet.test(l))) out.push({ kind: 'list', format: 'bullets', values: lines.map((l) => l.replace(bullet, '')) });
  if (lines.every((l, i) => l.startsWith(`${i + 1}.`) || l.startsWith(`${i + 1})`))) {
    out.push({ kind: 'list', format: 'bullets', values: lines.map((l, i) => l.slice(String(i + 1).length + 1).trim()) });
  }
  out.push({ kind: 'list', format: 'newline', values: lines });
  return out;
}

/**
 * Split one line into trimmed cells at `delim`. A cell that starts with ' or " runs to the same quote followed by
 * the delimiter or the end (CSV-like), so "Smith, John" stays one cell; O'Brien has no opening quote and is plain.
 * For `|`, one leading and one trailing pipe (markdown table borders) are dropped first.
 */
export function splitCells(line: string, delim: string): string[] {
  let s = line.trim();
  if (delim === '|') s = s.replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ' ' || (s[i] === '\t' && delim !== '\t'))) i++;
    let end = -1;
    const q = s[i];
    if (q === '"' || q === "'") {
      for (let k = s.indexOf(q, i + 1); k !== -1; k = s.indexOf(q, k + 1)) {
        const rest = s.slice(k + 1).replace(/^ +/, '');
        if (rest === '' || rest.startsWith(delim)) {
          end = k + 1;
          break;
        }
      }
    }
    const next = s.indexOf(delim, end === -1 ? i : end);
    cells.push(s.slice(i, next === -1 ? s.length : next).trim());
    if (next === -1) return cells;
    i = next + delim.length;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lenient cells

/** A cell prepared once for comparison: normalised text, and its number when it reads as one. */
interface Prepared {
  isNull: boolean;
  text: string;
  num: number | null;
  /** Decimals written after the point (answers only; -1 with an exponent). */
  decimals: number;
  /** Other texts a gold BLOB matches. */
  alt?: string[];
}

/** Trimmed, NFC, one pair of surrounding quotes stripped, whitespace collapsed, lower-cased. */
export function normalizeText(s: string): string {
  let t = s.trim().normalize('NFC');
  if (t.length >= 2 && /^(["'`]).*\1$/s.test(t)) t = t.slice(1, -1);
  return t.replace(/\s+/g, ' ').trim().toLowerCase();
}

function readNumber(t: string): { num: number | null; decimals: number } {
  let digits: string | undefined;
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) digits = t;
  else if (/^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) digits = t.replace(/,/g, '');
  if (digits === undefined) return { num: null, decimals: 0 };
  const point = digits.indexOf('.');
  const decimals = digits.includes('e') ? -1 : point === -1 ? 0 : digits.length - point - 1;
  return { num: Number(digits), decimals };
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
  if (typeof g === 'number') return { isNull: false, text: String(g), num: g, decimals: 0 };
  if (typeof g === 'string') return prepareText(g);
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
  if (a.num !== null && g.num !== null) {
    const diff = Math.abs(a.num - g.num);
    if (diff <= 1e-6 + 1e-4 * Math.abs(g.num)) return true;
    return a.decimals >= 1 && diff <= 0.5 * 10 ** -a.decimals + 1e-9 * Math.max(1, Math.abs(g.num));
  }
  return a.text === g.text || (g.alt?.includes(a.text) ?? false);
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
      const cells = p.values.map(prepareAnswer);
      if (gold[0].length === 1 && rowsMatch(cells.map((c) => [c]), gold, orderMatters)) return true;
      return n === 1 && rowsMatch([cells], gold, false);
    }
    case 'rows':
      if (n === 0) return p.rows.length === 0;
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
