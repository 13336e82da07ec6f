/**
 * A labelled near-miss corpus for the lenient ANSWER verifier (src/env/answer.ts), built from each question's gold
 * result: "right" answers are the gold written in the forms a person or model would use (the Oracle's form among
 * them), which the verifier must accept; "wrong" answers are near misses (a cell off by one, a rounded or truncated
 * value, a text cut short or extended, a row missing, extra, replaced or out of order, two cells swapped), which it
 * must reject.
 *
 * Labels come from the construction, never from the verifier under test (nothing here calls answer.ts to decide
 * what is a near miss, so a verifier that reads "Smit" or "Smithx" as "Smith" cannot hide its mistake by dropping
 * them from the corpus). Each change is made only where the documented rules say it must be wrong, with the
 * argument beside it: a text loses or gains a letter (case, spacing and surrounding quotes, all the verifier may
 * ignore, never add or remove a letter); an integer moves by one or is rounded to tens; a decimal moves by one, by
 * 1 % (kept only when that still changes it in its last written decimal), is rounded to an integer or cut short where
 * that is not a rounding; a row is dropped, duplicated, replaced by a row with a cell clearly unlike every gold cell,
 * or swapped with a clearly different neighbour when the gold orders. Two checks that are not the lenient verifier
 * then remove what is legally the gold after all: Spider's strict metric (`executionMatch`: the same multiset up to
 * a column permutation) and the gold's ORDER BY ties (`isLegalTieResult`). Near misses are written in the Oracle's
 * form (`answerText`). Which cells and rows are changed is drawn from a generator seeded by the corpus seed and the
 * question id, so one seed gives one corpus.
 *
 * `goldNumberReport` is the analysis behind the verifier's number rule: the numeric gold cells, their decimals, and
 * the smallest gap between two distinct numbers of one gold result against the widest window the rule accepts.
 * Near 400 lines because the corpus and the analysis are the two halves of one justification of the rule.
 */
import { createRng, hashString, pick, randomInt, shuffled, type Rng } from '../data/rng.ts';
import { decodeValue } from '../data/gold.ts';
import type { GoldTies, Question } from '../data/types.ts';
import { answerMatches, cellMatches, normalizeText, readNumber, shownDecimals, shownValue } from '../env/answer.ts';
import { blobHex, executionMatch, valueKey, type ResultTable } from '../env/verifier.ts';
import { answerText } from '../policies/oracle.ts';
import type { SqlValue } from '../sql/types.ts';

export const NEAR_MISS_SEED = 20240917;

export type RightForm = 'oracle' | 'json-rows' | 'json-list' | 'json-scalar' | 'text-lines' | 'text-commas';
export type NearMissKind =
  | 'off-by-one'
  | 'off-by-1%'
  | 'rounded'
  | 'truncated'
  | 'extended'
  | 'row-missing'
  | 'row-extra'
  | 'rows-out-of-order'
  | 'cells-swapped'
  | 'row-replaced';
export const RIGHT_FORMS: readonly RightForm[] = ['oracle', 'json-rows', 'json-list', 'json-scalar', 'text-lines', 'text-commas'];
export const NEAR_MISS_KINDS: readonly NearMissKind[] = ['off-by-one', 'off-by-1%', 'rounded', 'truncated', 'extended', 'row-missing', 'row-extra', 'rows-out-of-order', 'cells-swapped', 'row-replaced'];

export type LabelledAnswer =
  | { questionId: string; label: 'right'; kind: RightForm; text: string }
  | { questionId: string; label: 'wrong'; kind: NearMissKind; text: string };

/** Per label and kind: answers generated, and how many the lenient verifier accepted. */
export interface KindTally {
  label: 'right' | 'wrong';
  kind: RightForm | NearMissKind;
  generated: number;
  accepted: number;
  /** Near misses dropped before the corpus: the gold by Spider's strict metric, or a legal tie result. */
  dropped: number;
}

export interface CorpusReport {
  seed: number;
  questions: number;
  tallies: KindTally[];
  /** Right answers rejected and wrong answers accepted (the verifier's mistakes), for a failure message. */
  mistakes: LabelledAnswer[];
}

/** How many numeric cells of one result each kind of cell change touches, at most (keeps large results cheap). */
const CELLS_PER_QUESTION = 3;

// ---------------------------------------------------------------------------------------------------------------
// Right answers

/** A cell as answers carry it: BLOBs as hex text, as the Oracle writes them. */
function answerCell(v: SqlValue): string | number | null {
  return v instanceof Uint8Array ? blobHex(v) : v;
}

/** Plain text of a cell; undefined when it could not be written plainly between `delim`s on one line. */
function plainCell(v: SqlValue, delim: string): string | undefined {
  const c = answerCell(v);
  if (c === null) return 'null';
  const s = String(c);
  if (s.trim() === '' || s.includes(delim) || s.includes('\n') || s.includes('\r')) return undefined;
  return s;
}

function plainLines(rows: SqlValue[][], delim: string): string | undefined {
  const lines: string[] = [];
  for (const row of rows) {
    const cells = row.map((v) => plainCell(v, delim));
    if (cells.some((c) => c === undefined)) return undefined;
    lines.push(cells.join(`${delim} `));
  }
  return lines.join('\n');
}

/** The gold written in every form that fits its shape, without duplicate texts. */
export function rightAnswers(q: Question): LabelledAnswer[] {
  const { rows, columns } = q.goldResult;
  const cells = rows.map((r) => r.map(answerCell));
  const out: Array<[RightForm, string | undefined]> = [['oracle', answerText(q.goldResult)], ['json-rows', JSON.stringify(cells)]];
  if (columns.length === 1) out.push(['json-list', JSON.stringify(cells.map((r) => r[0]))]);
  if (rows.length === 1) out.push(['json-list', JSON.stringify(cells[0])]);
  if (rows.length === 1 && columns.length === 1) out.push(['json-scalar', JSON.stringify(cells[0][0])]);
  out.push(['text-lines', plainLines(rows, columns.length === 1 ? '\n' : ' |')]);
  if (rows.length === 1 || columns.length === 1) out.push(['text-commas', plainLines(rows.length === 1 ? rows : [rows.map((r) => r[0])], ',')]);
  else out.push(['text-commas', plainLines(rows, ',')]);
  const seen = new Set<string>();
  return out.flatMap(([kind, text]) => {
    if (text === undefined || seen.has(`${kind}\u0000${text}`)) return [];
    seen.add(`${kind}\u0000${text}`);
    return [{ questionId: q.id, label: 'right' as const, kind, text }];
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Near misses

/**
 * A gold number as the README's number rule reads it, computed here rather than taken from answer.ts: binary noise
 * dropped (15 significant digits), and the decimals of its shortest text; undefined decimals with an exponent.
 */
function writtenNumber(v: number): { shown: number; decimals: number | undefined } {
  const shown = Number.isInteger(v) ? v : Number(v.toPrecision(15));
  return { shown, decimals: decimalsWritten(shown) };
}

/** Decimals of the shortest text of `x` (`String(x)`, the Oracle's form); undefined when it has an exponent. */
function decimalsWritten(x: number): number | undefined {
  const s = String(x);
  if (s.includes('e')) return undefined;
  const point = s.indexOf('.');
  return point === -1 ? 0 : s.length - point - 1;
}

/** Digits of `g` cut (not rounded) to `d` decimals, from its shortest text; undefined when that has an exponent. */
function truncate(g: number, d: number): number | undefined {
  const s = String(g);
  const point = s.indexOf('.');
  if (s.includes('e') || point === -1) return undefined;
  return Number(s.slice(0, point + 1 + d));
}

/** A letter at the end: removing it, or adding one, changes a text however case, spacing and quotes are read. */
const ENDS_WITH_LETTER = /\p{L}$/u;
/** The letter `extended` appends (as "Smith" → "Smithx"). */
const EXTRA_LETTER = 'x';

/**
 * Cell changes of one value that are wrong by construction: [kind, new value]. The number rule (README "Numbers are
 * as exact as they are written"): an integer answer must equal the gold; an answer with d decimals must be the gold
 * rounded to d places, d ≥ min(2, the gold's decimals).
 */
function cellVariants(v: SqlValue): Array<[NearMissKind, SqlValue]> {
  if (typeof v === 'string') {
    if (v.trim() === '' || !ENDS_WITH_LETTER.test(v)) return [];
    // One letter fewer (if one remains) or one more: a different text to any reader that keeps letters.
    const cut: Array<[NearMissKind, SqlValue]> = /\p{L}|\p{N}/u.test(v.slice(0, -1)) ? [['truncated', v.slice(0, -1)]] : [];
    return [...cut, ['extended', `${v}${EXTRA_LETTER}`]];
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) return [];
  const { shown, decimals } = writtenNumber(v);
  const out: Array<[NearMissKind, SqlValue]> = [];
  // ±1 is outside every rounding window (at most ±0.5); where ±1 is not representable exactly, it is not made.
  for (const moved of [shown + 1, shown - 1]) if (Math.abs(moved) < 2 ** 52 && moved !== shown) out.push(['off-by-one', moved]);
  if (Number.isInteger(shown)) {
    // An integer answer must equal the gold: rounding to tens is wrong unless it gives the gold itself.
    if (Math.abs(shown) >= 100 && shown % 10 !== 0 && Number.isSafeInteger(shown)) out.push(['rounded', Math.round(shown / 10) * 10]);
    return out;
  }
  if (decimals === undefined) return out;
  const unit = 10 ** -decimals;
  for (const sign of [1, -1]) {
    // Written with the gold's own d decimals and at least one unit of the d-th place away: not the gold rounded.
    const moved = Number((shown + sign * 0.01 * Math.abs(shown)).toFixed(Math.min(decimals, 20)));
    if (decimalsWritten(moved) === decimals && Math.round(Math.abs(moved - shown) / unit) >= 1) out.push(['off-by-1%', moved]);
  }
  // An integer for a non-integer gold: an integer answer must equal the gold.
  out.push(['rounded', Math.round(shown)]);
  for (const places of [1, 2]) {
    // Written with exactly `places` decimals (places < d, so places ≥ min(2, d) or the answer is too short anyway)
    // and not the rounding: 19.62 for 19.625 is a tie, which rounds either way.
    const cut = places < decimals ? truncate(shown, places) : undefined;
    if (cut !== undefined && decimalsWritten(cut) === places && Math.abs(shown - cut) > 0.5 * 10 ** -places * (1 + 1e-9)) out.push(['truncated', cut]);
  }
  return out;
}

/** Letters and digits of a text, lower-cased: what every fair reading of it keeps. */
function lettersAndDigits(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * Whether no fair reading can take cell `a` for cell `b`, decided conservatively by construction (false when in
 * doubt): numbers at least 1 apart; a number and a text without digits; texts whose letters and digits differ,
 * unless both hold digits (numbers written as text: compared as numbers, when readable, else in doubt); NULL and a
 * value that is neither empty nor a NULL word. BLOBs are always in doubt.
 */
function clearlyDifferent(a: SqlValue, b: SqlValue): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) return false;
  if (a === null || b === null) {
    const other = a === null ? b : a;
    if (other === null) return false;
    return typeof other === 'number' || !['', 'null', 'none'].includes(lettersAndDigits(other));
  }
  const asNumber = (x: string | number): number | undefined => {
    if (typeof x === 'number') return x;
    if (!/\p{N}/u.test(x)) return undefined;
    const n = Number(x.trim().replaceAll(',', ''));
    return Number.isFinite(n) ? n : Number.NaN;
  };
  const [na, nb] = [asNumber(a), asNumber(b)];
  if (na !== undefined && nb !== undefined) return !Number.isNaN(na) && !Number.isNaN(nb) && Math.abs(na - nb) >= 1;
  if (na !== undefined || nb !== undefined) return true; // a number (or digits) against a text without digits
  return lettersAndDigits(String(a)) !== lettersAndDigits(String(b));
}

/** Whether `row` has a cell clearly unlike every cell of `others`: no column permutation can pair it with them. */
function hasForeignCell(row: readonly SqlValue[], others: ReadonlyArray<readonly SqlValue[]>): boolean {
  return row.some((x) => others.every((other) => other.every((y) => clearlyDifferent(x, y))));
}

function withCell(rows: SqlValue[][], r: number, c: number, value: SqlValue): SqlValue[][] {
  return rows.map((row, i) => (i === r ? row.map((x, j) => (j === c ? value : x)) : row));
}

/** Rows of other questions on the same database, by width: candidates for an extra or a replaced row. */
export type RowPool = Map<string, SqlValue[][]>;

/** Up to 20 rows of each question, keyed `db|width`, to draw extra and replacement rows from. */
export function buildRowPool(questions: readonly Question[]): RowPool {
  const pool: RowPool = new Map();
  for (const q of questions) {
    for (const row of q.goldResult.rows.slice(0, 20)) {
      const key = `${q.dbId}|${row.length}`;
      const list = pool.get(key) ?? [];
      list.push(row);
      pool.set(key, list);
    }
  }
  return pool;
}

/** Candidate near misses of one question's gold, before the "truly different" filter. */
function candidateMisses(q: Question, pool: RowPool, rng: Rng): Array<[NearMissKind, SqlValue[][]]> {
  const rows = q.goldResult.rows;
  const n = rows.length;
  const m = q.goldResult.columns.length;
  const out: Array<[NearMissKind, SqlValue[][]]> = [];
  const cells = rows.flatMap((row, r) => row.map((_, c) => [r, c] as const));
  const byKind = new Map<NearMissKind, number>();
  for (const [r, c] of shuffled(rng, cells)) {
    for (const [kind, value] of cellVariants(rows[r][c])) {
      const used = byKind.get(kind) ?? 0;
      if (used >= 2 * CELLS_PER_QUESTION) continue;
      byKind.set(kind, used + 1);
      out.push([kind, withCell(rows, r, c, value)]);
    }
    if ([...byKind.values()].reduce((a, b) => a + b, 0) >= 12 * CELLS_PER_QUESTION) break;
  }
  if (n >= 1) {
    const drop = randomInt(rng, n);
    out.push(['row-missing', rows.filter((_, i) => i !== drop)]);
    out.push(['row-extra', [...rows, rows[randomInt(rng, n)]]]);
  }
  // An extra row makes n + 1 rows where the gold has n (a multiset): wrong whatever the row. A replacing row needs a
  // cell no gold cell can be read as, so it pairs with no gold row.
  const others = (pool.get(`${q.dbId}|${m}`) ?? []).filter((row) => !rows.some((g) => sameRow(g, row)));
  const foreign = others.filter((row) => hasForeignCell(row, rows));
  if (others.length > 0) out.push(['row-extra', [...rows, pick(rng, others)]]);
  if (foreign.length > 0) {
    const at = randomInt(rng, Math.max(n, 1));
    out.push(['row-replaced', n === 0 ? [pick(rng, foreign)] : rows.map((row, i) => (i === at ? pick(rng, foreign) : row))]);
  } else if (n >= 2) {
    // A gold row in place of another: one row fewer of the replaced kind, so it needs a cell unlike the copied row's.
    const [a, b] = [randomInt(rng, n), randomInt(rng, n)];
    const from = b === a ? (a + 1) % n : b;
    if (hasForeignCell(rows[a], [rows[from]])) out.push(['row-replaced', rows.map((row, i) => (i === a ? rows[from] : row))]);
  }
  if (q.orderMatters && n >= 2) {
    const start = randomInt(rng, n - 1);
    for (let k = 0; k < n - 1; k++) {
      const i = (start + k) % (n - 1);
      if (!hasForeignCell(rows[i], [rows[i + 1]])) continue;
      out.push(['rows-out-of-order', rows.map((row, j) => (j === i ? rows[i + 1] : j === i + 1 ? rows[i] : row))]);
      break;
    }
  }
  if (n >= 2 && m >= 2) {
    const r = randomInt(rng, n);
    const row = rows[r];
    const pairs = row.flatMap((x, i) => row.flatMap((y, j) => (i < j && clearlyDifferent(x, y) ? [[i, j] as const] : [])));
    if (pairs.length > 0) {
      const [i, j] = pick(rng, pairs);
      out.push(['cells-swapped', withCell(withCell(rows, r, i, row[j]), r, j, row[i])]);
    }
  }
  return out;
}

/**
 * Whether `rows` is another result the gold SQL may legally return (rows tied on its ORDER BY keys, src/data/gold.ts):
 * cut into the segments' lengths in order, each piece a sub-multiset of its pool, values compared strictly. Such a
 * change is a right answer, not a near miss.
 */
export function isLegalTieResult(rows: SqlValue[][], ties: GoldTies | undefined): boolean {
  if (!ties || rows.length !== ties.segments.reduce((n, s) => n + s.take, 0)) return false;
  const key = (row: readonly SqlValue[]): string => JSON.stringify(row.map(valueKey));
  let at = 0;
  return ties.segments.every((s) => {
    const pool = new Map<string, number>();
    for (const row of s.pool) pool.set(key(row.map(decodeValue)), (pool.get(key(row.map(decodeValue))) ?? 0) + 1);
    const piece = rows.slice(at, (at += s.take));
    return piece.every((row) => {
      const left = pool.get(key(row)) ?? 0;
      pool.set(key(row), left - 1);
      return left > 0;
    });
  });
}

function sameRow(a: readonly SqlValue[], b: readonly SqlValue[]): boolean {
  return a.length === b.length && a.every((v, i) => valueKey(v) === valueKey(b[i]));
}

/** The near misses of one question that are truly different from its gold, and how many per kind were dropped. */
export function nearMisses(q: Question, pool: RowPool, seed: number = NEAR_MISS_SEED): { answers: LabelledAnswer[]; dropped: Map<NearMissKind, number> } {
  const rng = createRng(seed ^ hashString(q.id));
  const gold: ResultTable = q.goldResult;
  const answers: LabelledAnswer[] = [];
  const dropped = new Map<NearMissKind, number>();
  for (const [kind, rows] of candidateMisses(q, pool, rng)) {
    const table: ResultTable = { columns: gold.columns, rows };
    // Not the lenient verifier: Spider's strict metric and the gold's legal ties (see the header).
    const different = !executionMatch(gold, table, q.orderMatters) && !isLegalTieResult(rows, q.goldTies);
    if (different) answers.push({ questionId: q.id, label: 'wrong', kind, text: answerText(table) });
    else dropped.set(kind, (dropped.get(kind) ?? 0) + 1);
  }
  return { answers, dropped };
}

/** Builds the corpus for `questions` and scores every answer with the lenient verifier (`answerMatches`). */
export function runNearMissCorpus(questions: readonly Question[], seed: number = NEAR_MISS_SEED): CorpusReport {
  const pool = buildRowPool(questions);
  const tallies = new Map<string, KindTally>();
  const tally = (label: 'right' | 'wrong', kind: RightForm | NearMissKind): KindTally => {
    const key = `${label}:${kind}`;
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { label, kind, generated: 0, accepted: 0, dropped: 0 }));
    return t;
  };
  for (const kind of RIGHT_FORMS) tally('right', kind);
  for (const kind of NEAR_MISS_KINDS) tally('wrong', kind);
  const mistakes: LabelledAnswer[] = [];
  for (const q of questions) {
    const { answers, dropped } = nearMisses(q, pool, seed);
    for (const [kind, count] of dropped) tally('wrong', kind).dropped += count;
    for (const a of [...rightAnswers(q), ...answers]) {
      const t = tally(a.label, a.kind);
      t.generated++;
      const accepted = answerMatches(a.text, q.goldResult, q.orderMatters, q.goldTies).match;
      if (accepted) t.accepted++;
      if (accepted !== (a.label === 'right')) mistakes.push(a);
    }
  }
  return { seed, questions: questions.length, tallies: [...tallies.values()], mistakes };
}

/** The report as a table: one line per label and kind. */
export function formatCorpusReport(report: CorpusReport, title: string): string {
  const head = `${'label'.padEnd(6)} ${'kind'.padEnd(18)} ${'generated'.padStart(9)} ${'accepted'.padStart(9)} ${'dropped'.padStart(8)}`;
  const lines = report.tallies.map((t) => `${t.label.padEnd(6)} ${t.kind.padEnd(18)} ${String(t.generated).padStart(9)} ${String(t.accepted).padStart(9)} ${String(t.dropped).padStart(8)}`);
  const verdict = report.mistakes.length === 0 ? 'verifier: every right answer accepted, no near miss accepted' : `verifier mistakes: ${report.mistakes.length}`;
  return [`${title}: ${report.questions} questions, seed ${report.seed}`, head, ...lines, verdict].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The numbers in the gold results, behind the verifier's number rule

/** Two distinct numbers of one gold result. */
export interface GoldPair {
  questionId: string;
  values: [number, number];
  gap: number;
}

export interface GoldNumberReport {
  questions: number;
  /** Questions with at least one numeric gold cell; those whose gold is one numeric cell. */
  numericQuestions: number;
  scalarNumericQuestions: number;
  /** Gold cells that are SQLite numbers, and text cells that read as numbers. */
  numberCells: number;
  numericTextCells: number;
  integers: number;
  nonIntegers: number;
  /** Decimals shown by non-integer gold values (after binary noise is dropped) → count. */
  decimals: Record<string, number>;
  /** Non-integer gold values with binary noise (String(g) longer than g to 15 significant digits). */
  noisy: number;
  /** Smallest gap between two distinct numbers of one result; the same among pairs with a non-integer. */
  smallestGap: GoldPair | null;
  smallestNonIntegerGap: GoldPair | null;
  /** Neighbouring distinct numbers (sorted, within one result) checked, and candidate answers tried on them. */
  pairsChecked: number;
  candidatesTried: number;
  /** Answers accepted for both numbers of a neighbouring pair: must be empty. */
  sharedAnswers: Array<GoldPair & { answer: string }>;
  /** 1×1 numeric questions where the old rule (|a − g| ≤ 1e-6 + 1e-4·|g|) accepted g + 1 or g − 1. */
  oldRuleOffByOne: number;
}

/** A numeric gold cell: its value and the decimals the rule reads it with; undefined for other cells. */
function goldNumber(v: SqlValue): { value: number; decimals: number; text: boolean } | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? { value: v, decimals: shownDecimals(v), text: false } : undefined;
  if (typeof v !== 'string') return undefined;
  const read = readNumber(normalizeText(v));
  if (read.num === null || !Number.isFinite(read.num)) return undefined;
  return { value: read.num, decimals: read.decimals === -1 ? shownDecimals(read.num) : read.decimals, text: true };
}

/**
 * Every answer text the number rule could accept for gold g, up to equivalent spellings: its shortest text, its
 * exponent form, the integers next to it, and for each d ≥ 1 decimals the d-place numbers next to it (the rule
 * accepts a d-place answer only within half a step of 10^-d, so nothing farther can match).
 */
export function candidateAnswers(g: number): string[] {
  const out = new Set<string>([String(g), g.toExponential(), String(Math.floor(g)), String(Math.ceil(g))]);
  const maxPlaces = Math.min(100, 17 + Math.max(0, -Math.floor(Math.log10(Math.abs(g) || 1))));
  for (let d = 1; d <= maxPlaces; d++) {
    const step = 10 ** -d;
    for (const x of [g - step, g, g + step]) out.add(x.toFixed(d));
  }
  return [...out];
}

export function goldNumberReport(questions: readonly Question[]): GoldNumberReport {
  const report: GoldNumberReport = {
    questions: questions.length, numericQuestions: 0, scalarNumericQuestions: 0, numberCells: 0, numericTextCells: 0, integers: 0, nonIntegers: 0,
    decimals: {}, noisy: 0, smallestGap: null, smallestNonIntegerGap: null, pairsChecked: 0, candidatesTried: 0, sharedAnswers: [], oldRuleOffByOne: 0,
  };
  const oldRule = (a: number, g: number): boolean => Math.abs(a - g) <= 1e-6 + 1e-4 * Math.abs(g);
  for (const q of questions) {
    const found = new Map<number, { value: number; cell: SqlValue }>();
    for (const row of q.goldResult.rows) {
      for (const cell of row) {
        const num = goldNumber(cell);
        if (!num) continue;
        if (num.text) report.numericTextCells++;
        else report.numberCells++;
        const shown = shownValue(num.value);
        if (Number.isInteger(shown)) report.integers++;
        else {
          report.nonIntegers++;
          report.decimals[num.decimals] = (report.decimals[num.decimals] ?? 0) + 1;
          if (String(num.value) !== String(shown)) report.noisy++;
        }
        if (!found.has(shown)) found.set(shown, { value: shown, cell });
      }
    }
    if (found.size === 0) continue;
    report.numericQuestions++;
    const rows = q.goldResult.rows;
    if (rows.length === 1 && rows[0].length === 1 && typeof rows[0][0] === 'number') {
      report.scalarNumericQuestions++;
      const g = rows[0][0];
      if (oldRule(g + 1, g) || oldRule(g - 1, g)) report.oldRuleOffByOne++;
    }
    const sorted = [...found.values()].sort((a, b) => a.value - b.value);
    for (let i = 1; i < sorted.length; i++) {
      const [lo, hi] = [sorted[i - 1], sorted[i]];
      const pair: GoldPair = { questionId: q.id, values: [lo.value, hi.value], gap: hi.value - lo.value };
      if (!report.smallestGap || pair.gap < report.smallestGap.gap) report.smallestGap = pair;
      const nonInteger = !Number.isInteger(lo.value) || !Number.isInteger(hi.value);
      if (nonInteger && (!report.smallestNonIntegerGap || pair.gap < report.smallestNonIntegerGap.gap)) report.smallestNonIntegerGap = pair;
      report.pairsChecked++;
      for (const [a, b] of [[lo, hi], [hi, lo]]) {
        for (const answer of candidateAnswers(a.value)) {
          report.candidatesTried++;
          if (cellMatches(answer, a.cell) && cellMatches(answer, b.cell)) report.sharedAnswers.push({ ...pair, answer });
        }
      }
    }
  }
  return report;
}

/** The report as a few lines of text. */
export function formatGoldNumberReport(r: GoldNumberReport, title: string): string {
  const pair = (p: GoldPair | null): string => (p ? `${p.gap.toPrecision(3)} (${p.values.join(' vs ')} in ${p.questionId})` : 'none');
  const decimals = Object.entries(r.decimals).map(([d, count]) => `${d}: ${count}`).join(', ');
  return [
    `${title}: ${r.questions} questions, ${r.numericQuestions} with numeric gold cells (${r.scalarNumericQuestions} one numeric cell)`,
    `numeric gold cells: ${r.numberCells + r.numericTextCells} (${r.numberCells} numbers, ${r.numericTextCells} numeric text); ${r.integers} integers, ${r.nonIntegers} non-integers`,
    `decimals shown by non-integers: ${decimals || 'none'}; with binary noise: ${r.noisy}`,
    `smallest gap between distinct numbers of one result: ${pair(r.smallestGap)}`,
    `smallest gap with a non-integer: ${pair(r.smallestNonIntegerGap)}`,
    `neighbouring distinct numbers of one result: ${r.pairsChecked} pairs, ${r.candidatesTried} candidate answers tried; accepted for both numbers of a pair: ${r.sharedAnswers.length}`,
    ...r.sharedAnswers.slice(0, 5).map((p) => `  ${p.answer} matches both ${p.values.join(' and ')} in ${p.questionId}`),
    `old rule (1e-4 relative) accepted g ± 1 in ${r.oldRuleOffByOne} of ${r.scalarNumericQuestions} one-cell numeric questions`,
  ].join('\n');
}
