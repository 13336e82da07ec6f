/**
 * Lenient verifier for ANSWER values: matches every reading of an answer's free text (src/env/answer-read.ts reads
 * it) against the gold result and the other results the gold SQL may legally return (ties), and says how it read
 * the text. The rules, with examples and the measurements behind them, are in docs/answers.md.
 *
 * Matching a reading against gold (n rows, m columns):
 * - scalar ↔ gold 1×1. list ↔ gold n×1 (values as a multiset, in order when order matters) or gold 1×m (values
 *   against the row's cells in any order). rows ↔ gold n×m with the strict verifier's shape rules: some column
 *   permutation, rows as a multiset (a list when order matters), with lenient cells.
 * - A reading with a header (a first line, or `name: value` labels) counts only when the header names the gold's
 *   columns (`namesColumns`: case- and space-insensitive, `T1.name` also as `name`, in any order), so a first line is
 *   never data against one gold and a dropped header against another.
 * - Ties (`Question.goldTies`): the answer also matches when it is one of the gold SQL's legal results: segment by
 *   segment in ORDER BY order, each segment's rows a sub-multiset of its pool of tied rows.
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
 * - NULL (gold NULL, JSON null, Python None) matches NULL and the texts 'null', 'none' and '' on the other side.
 * - A BLOB gold cell matches its lower-case hex, x'hex', or its UTF-8 text.
 *
 * Cost caps (answers are short; these only bound adversarial input): a reading whose shape cannot fit the gold is
 * rejected before its cells are prepared; bags of ≤ 200 rows are matched exactly
 * (bipartite matching); larger ones pair identical rows first and match the rest exactly if ≤ 1000 rows remain, else
 * fail. Without row order at most MAX_COLUMN_PERMUTATIONS column permutations are tried; tie pools are matched only
 * while answer rows × pool rows stays under MAX_TIE_PAIRS. Near 500 lines: cells and matching are one contract.
 */
import { decodeValue } from '../data/gold.ts';
import type { GoldTies } from '../data/types.ts';
import type { SqlValue } from '../sql/types.ts';
import { answerInterpretations, FORMAT_LABEL, isDigitCode, type AnswerCell, type ParsedAnswer } from './answer-read.ts';
import type { ResultTable } from './verifier.ts';
import { blobHex } from './verifier.ts';

export { answerInterpretations, parseAnswer, splitCells, type AnswerCell, type AnswerFormat, type ParsedAnswer } from './answer-read.ts';

export interface AnswerVerdict {
  match: boolean;
  /**
   * How the text was read: the reading that matched, or the primary one when none did, as a shape and a format,
   * e.g. "2 rows × 1 column (comma-separated)". At most ~100 characters.
   */
  interpretation: string;
  /** The first cells of that reading, e.g. "Alice | 30; Bob | 25", at most PREVIEW_CHARS characters. */
  preview: string;
}

export const MAX_COLUMN_PERMUTATIONS = 720;
/** Answer rows × pool rows a tie match may compare; above it only the stored gold result is tried. */
export const MAX_TIE_PAIRS = 2_000_000;
const PREVIEW_CHARS = 160;
const FULL_MATCH_ROWS = 200;
const MAX_REMAINDER_ROWS = 1000;
const NULL_WORDS = new Set(['null', 'none', '']);
const EMPTY_WORDS = new Set(['', 'none', 'null', 'empty', 'no results', 'no rows']);

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

/** Ties prepared once for matching: per segment, how many rows it takes and its pool of tied rows. */
interface PreparedSegment {
  take: number;
  pool: Prepared[][];
}

/**
 * Lenient match of an ANSWER's text against the gold result (and, with `ties`, every result the gold SQL may legally
 * return): tries every reading, and says which one matched, or the primary one when none did.
 */
export function answerMatches(text: string, gold: ResultTable, orderMatters: boolean, ties?: GoldTies): AnswerVerdict {
  const readings = answerInterpretations(text);
  const goldCells = gold.rows.map((row) => row.map(prepareGold));
  let segments: PreparedSegment[] | undefined;
  const tieSegments = (): PreparedSegment[] | undefined =>
    (segments ??= ties?.segments.map((s) => ({ take: s.take, pool: s.pool.map((row) => row.map((c) => prepareGold(decodeValue(c)))) })));
  for (const p of readings) {
    if (p.header && !namesColumns(p.header, gold.columns)) continue;
    const table = matchedTable(p, goldCells, orderMatters, ties ? tieSegments : () => undefined);
    if (table) return { match: true, ...describeReading(p, table) };
  }
  return { match: false, ...describeReading(readings[0]) };
}

/** The reading as the answer table that matched (cells as written), or undefined when it does not match. */
function matchedTable(p: ParsedAnswer, gold: Prepared[][], orderMatters: boolean, ties: () => PreparedSegment[] | undefined): AnswerCell[][] | undefined {
  const n = gold.length;
  if (n === 0) {
    const empty = p.kind === 'scalar' ? typeof p.value === 'string' && EMPTY_WORDS.has(normalizeText(p.value)) : p.kind === 'list' ? p.values.length === 0 : p.rows.length === 0;
    return empty ? [] : undefined;
  }
  const m = gold[0].length;
  // Shapes first, so a huge answer against a small gold costs no preparation.
  const candidates: AnswerCell[][][] = [];
  if (p.kind === 'scalar' && n === 1 && m === 1) candidates.push([[p.value]]);
  if (p.kind === 'list' && m === 1 && p.values.length === n) candidates.push(p.values.map((v) => [v]));
  if (p.kind === 'list' && n === 1 && p.values.length === m) candidates.push([p.values]);
  if (p.kind === 'rows' && p.rows.length === n && p.rows.every((r) => r.length === m)) candidates.push(p.rows);
  return candidates.find((table) => {
    const cells = table.map((r) => r.map(prepareAnswer));
    if (rowsMatch(cells, gold, orderMatters && n > 1)) return true;
    const segments = ties();
    return segments !== undefined && tiesMatch(cells, segments);
  });
}

/**
 * Whether a header's cells name the result's columns, in any order: each cell equals a distinct column's name up to
 * case and spaces, or its name without a table qualifier (`T1.name` → `name`).
 */
export function namesColumns(header: readonly string[], columns: readonly string[]): boolean {
  if (header.length !== columns.length) return false;
  const key = (s: string): string => normalizeText(s).split(' ').join('');
  const h = header.map(key);
  const c = columns.map((name) => {
    const k = key(name);
    const dot = k.indexOf('.');
    const qualified = dot > 0 && !k.includes('(') && [...k.slice(0, dot)].every((ch) => /\w/.test(ch));
    return qualified ? [k, k.slice(dot + 1)] : [k];
  });
  return perfectMatching(range(h.length), range(c.length), (i, j) => c[j].includes(h[i]));
}

/** A reading as "2 rows × 1 column (comma-separated)" and a preview of its first cells. */
function describeReading(p: ParsedAnswer, table?: AnswerCell[][]): { interpretation: string; preview: string } {
  const rows = table ?? (p.kind === 'scalar' ? [[p.value]] : p.kind === 'rows' ? p.rows : undefined);
  const plural = (k: number, word: string): string => `${k} ${word}${k === 1 ? '' : 's'}`;
  const shape =
    rows === undefined
      ? plural(p.kind === 'list' ? p.values.length : 0, 'value')
      : rows.length === 0
        ? 'no rows'
        : `${plural(rows.length, 'row')} × ${plural(rows[0].length, 'column')}`;
  const header = p.format === 'labelled' ? ', labels naming the columns' : ', first line as the header';
  const format = `${FORMAT_LABEL[p.format]}${p.header ? header : ''}`;
  const shown = (c: AnswerCell): string => {
    const s = c === null ? 'NULL' : String(c).slice(0, 64).split(/\s+/).join(' ');
    return s.length > 24 ? `${s.slice(0, 23)}…` : s;
  };
  const lines = (rows ?? (p.kind === 'list' ? p.values.map((v) => [v]) : [])).slice(0, 4).map((r) => r.slice(0, 6).map(shown).join(' | '));
  let preview = lines.join('; ');
  if (preview.length > PREVIEW_CHARS) preview = `${preview.slice(0, PREVIEW_CHARS - 1)}…`;
  else if ((rows?.length ?? (p.kind === 'list' ? p.values.length : 0)) > 4) preview += '; …';
  return { interpretation: `${shape} (${format})`, preview };
}

/** The environment's sentence for a verdict: "correct. Read as 1 row × 1 column (JSON): 6". */
export function describeVerdict(v: AnswerVerdict): string {
  return `${v.match ? 'correct' : 'incorrect'}. Read as ${v.interpretation}${v.preview === '' ? '' : `: ${v.preview}`}`;
}

/**
 * Ties: the answer rows, cut into the segments' lengths in order, are each a sub-multiset of the segment's pool
 * under some column permutation (the same for all rows).
 */
function tiesMatch(ans: Prepared[][], segments: PreparedSegment[]): boolean {
  const n = ans.length;
  if (segments.reduce((s, g) => s + g.take, 0) !== n) return false;
  if (segments.reduce((s, g) => s + g.take * g.pool.length, 0) > MAX_TIE_PAIRS) return false;
  const m = ans[0].length;
  if (segments.some((g) => g.pool.some((r) => r.length !== m))) return false;
  const perm = new Array<number>(m);
  const used = new Uint8Array(m);
  let tried = 0;
  const check = (): boolean => {
    let at = 0;
    return segments.every(({ take, pool }) => {
      const from = at;
      at += take;
      const ok = (a: number, g: number): boolean => pool[g].every((cell, i) => preparedMatch(ans[from + a][perm[i]], cell));
      return saturatingMatching(range(take), range(pool.length), ok);
    });
  };
  const assign = (i: number): boolean => {
    if (i === m) return ++tried <= MAX_COLUMN_PERMUTATIONS && check();
    for (let j = 0; j < m; j++) {
      if (used[j]) continue;
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
  // The cap counts complete permutations only, so dead ends were unbounded: gold columns of NULL beside one column
  // no answer column can stand for cost (m − 1)! steps before the refusal (seconds at m = 11). Before going deeper,
  // the gold columns left must still have a perfect matching into the unused answer columns; a subtree without one
  // holds no complete permutation, so cutting it leaves the permutations tried, and their order, as they were.
  const completable = (i: number): boolean => perfectMatching(range(m).slice(i), range(m).filter((j) => used[j] === 0), (l, r) => ok[l][r]);
  const assign = (i: number): boolean => {
    if (i === m) return ++tried <= MAX_COLUMN_PERMUTATIONS && bagMatch(ans, gold, perm);
    if (!completable(i)) return false;
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
    ys.has(behaviourKey(x)) || [...ys.values()].some((y) => (answerSide ? preparedMatch(x, y) : preparedMatch(y, x)));
  return [...a.values()].every((x) => covered(x, g, true)) && [...g.values()].every((y) => covered(y, a, false));
}

/** Cells that match alike share a key; one exactKey may hold cells that do not ('3.0' and '3.00', '6' and '06' beside a BLOB 06). */
const behaviourKey = (p: Prepared): string => (p.isNull ? 'z' : `${p.alt ? 'b' : 't'}${p.decimals}:${p.num}:${p.text}`);
const distinct = (cells: Prepared[]): Map<string, Prepared> => new Map(cells.map((c) => [behaviourKey(c), c]));

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

/** Whether `left` and `right` can be paired one to one under `ok`. */
function perfectMatching(left: number[], right: number[], ok: (l: number, r: number) => boolean): boolean {
  return left.length === right.length && saturatingMatching(left, right, ok);
}

/** Whether every `left` item can be paired with a distinct `right` item under `ok` (Kuhn's augmenting paths). */
function saturatingMatching(left: number[], right: number[], ok: (l: number, r: number) => boolean): boolean {
  if (left.length > right.length) return false;
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
