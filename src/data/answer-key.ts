/**
 * Keys of gold results under the lenient ANSWER verifier's equality (src/env/answer.ts), for the split: two gold
 * results of one database are "the same answer" when the lenient verifier would accept one, written out as JSON
 * rows (or, for one row or one column, as a flat JSON list), for the other. `data` may not import `env`, so the few
 * rules needed are repeated here; tests/data/answer-key.test.ts checks them against the verifier itself.
 *
 * The relation is not an equivalence (3.33 is accepted for 3.3333 and 3.3349, which are not accepted for each
 * other), so no single canonical form can capture it. Instead every cell gets a small SET of keys with
 *   (soundness) whenever the lenient verifier accepts cell a for cell b, keys(a) ∩ keys(b) ≠ ∅,
 * and a result emits one key per choice of a key for each cell (`resultKeys`). Two results the verifier equates then
 * share a key: pick, for each matched cell pair, a key both cells hold. Grouping by these keys (union-find over a
 * hash map) is O(n log n) in the number of questions, never a pairwise comparison.
 *
 * Cell keys (what the verifier compares, after its normalisation: trim, NFC, one pair of surrounding quotes,
 * collapsed whitespace, lower case):
 * - NULL, and text that normalises to '', 'null' or 'none' → `z` (NULL matches those texts; 'null' and 'none' do not
 *   match each other, so this only merges more).
 * - A number, or text that reads as one (sign, digits, point, exponent, or 1,234 groups, as the verifier reads it):
 *   its value v (binary noise rounded away, 15 significant digits, as the verifier's `shownValue`) placed on a grid
 *   of cells GRID wide centred on multiples of GRID → `n:<cell>`, plus the neighbouring cell when v lies within
 *   NEAR of the boundary. The verifier accepts a different number only as a rounding to ≥ 2 decimals (|a − g| ≤
 *   0.005 plus a float slack of 8·ε·|g|, under 0.00001 for |g| < 2^32), so two accepted numbers are within NEAR and
 *   share a key: if they lie in two cells, the boundary between them is within NEAR of each. Integers and one-decimal
 *   values are 0.025 from every boundary: one key each, distinct per value. Numbers less than 0.06 apart may share a
 *   key without being accepted: that merges more, never less.
 * - Other text → `s:<normalised text>`.
 * - A BLOB → the keys of each text it matches: its lower-case hex, x'hex', and its UTF-8 text when it decodes.
 * A result that is one row or one column is keyed as a bag of cells (`l:`), since a flat list answers both shapes;
 * any other result as a bag of rows, each a bag of cell keys (`r:`), which ignores column order per row and so is
 * coarser than the verifier's one permutation for all rows (merges more, never less).
 *
 * Where the keys could miss a pair the verifier equates, and why that is safe:
 * - A result with more than MAX_KEY_VARIANTS combinations (over 6 cells near a grid boundary) emits only the key
 *   of each cell's own cell (`capped`). `npm run data:split-report` counts such results (0 on Spider dev; at most
 *   4 keys per result there), and the Spider test compares every cross-split pair with the verifier itself.
 * - Non-integers of magnitude ≥ 2^32, whose float slack could pass the margin (NEAR − 0.005): none in Spider's
 *   results; the same test would see a miss.
 * - The verifier is rewritten by others: the rules here follow src/env/answer.ts, and the tests hold them to it.
 */
import type { SqlValue } from '../sql/types.ts';

/** Width of a number cell, centred on multiples of it, so integers and one-decimal values sit mid-cell. */
export const GRID = 0.05;
/** A number this close to a cell boundary also takes the neighbour: the verifier's 0.005 + its slack below 2^32. */
export const NEAR = 0.0051;
/** At most this many keys per result; beyond it only the home key (see the header). */
export const MAX_KEY_VARIANTS = 64;

const NULL_TEXTS = new Set(['', 'null', 'none']);

/** The verifier's text normalisation: trimmed, NFC, one pair of surrounding quotes off, whitespace collapsed, lower. */
export function normalizeAnswerText(s: string): string {
  let t = s.trim().normalize('NFC');
  const q = t[0];
  if (t.length >= 2 && (q === '"' || q === "'" || q === '`') && t.endsWith(q)) t = t.slice(1, -1);
  return t.split(/\s+/).join(' ').trim().toLowerCase();
}

// Plain: sign, digits with optional point and digits (or point and digits), optional exponent. Grouped: 1–3 digits,
// groups of ,ddd, optional point with at least one digit, no exponent. No ambiguous quantifiers: linear.
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/;
const GROUPED_NUMBER = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/** The number a normalised text writes, as the verifier reads it, or null. */
export function textNumber(t: string): number | null {
  if (PLAIN_NUMBER.test(t)) return Number(t);
  if (GROUPED_NUMBER.test(t)) return Number(t.split(',').join(''));
  return null;
}

/** A number without binary noise: non-integers to 15 significant digits (the verifier's `shownValue`). */
function shown(v: number): number {
  return Number.isInteger(v) || !Number.isFinite(v) ? v : Number(v.toPrecision(15));
}

/** The grid cells of a number: its own first, and the neighbour when within NEAR of the boundary between them. */
export function numberKeys(v: number): string[] {
  const x = shown(v);
  if (!Number.isFinite(x)) return [`n:${String(x)}`];
  const scaled = x / GRID + 0.5;
  const cell = Math.floor(scaled);
  const frac = scaled - cell; // position in the cell, 0 at its lower boundary, 1 at its upper one
  const keys = [`n:${cell}`];
  if (frac * GRID < NEAR) keys.push(`n:${cell - 1}`);
  else if ((1 - frac) * GRID < NEAR) keys.push(`n:${cell + 1}`);
  return keys;
}

function textKeys(text: string): string[] {
  const t = normalizeAnswerText(text);
  if (NULL_TEXTS.has(t)) return ['z'];
  const num = textNumber(t);
  return num === null ? [`s:${t}`] : numberKeys(num);
}

function blobKeys(bytes: Uint8Array): string[] {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  const texts = [hex, `x'${hex}'`];
  try {
    texts.push(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    // Not UTF-8: the verifier reads it by its hex only.
  }
  return [...new Set(texts.flatMap(textKeys))];
}

/** The keys of one cell (header): its own key first. */
export function cellKeys(v: SqlValue): string[] {
  if (v === null) return ['z'];
  if (typeof v === 'number') return numberKeys(v);
  if (typeof v === 'string') return textKeys(v);
  return blobKeys(v);
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Keys of a gold result, and whether MAX_KEY_VARIANTS cut them to the home key. */
export interface ResultKeys {
  keys: string[];
  capped: boolean;
}

/**
 * The keys of a gold result (header): one per choice of a key for each cell, at most MAX_KEY_VARIANTS. Rows are
 * (n, m); a result with no rows has the one key `e`.
 */
export function resultKeys(rows: ReadonlyArray<readonly SqlValue[]>): ResultKeys {
  if (rows.length === 0) return { keys: ['e'], capped: false };
  const cells = rows.map((row) => row.map(cellKeys));
  const width = rows[0].length;
  const flat = rows.length === 1 || width === 1;
  let combos = 1;
  for (const row of cells) for (const keys of row) combos *= keys.length;
  const capped = combos > MAX_KEY_VARIANTS;
  const choices = capped ? cells.map((row) => row.map((keys) => [keys[0]])) : cells;

  const keyOf = (chosen: string[][]): string =>
    flat
      ? `l:${JSON.stringify(chosen.flat().sort(byCodeUnit))}`
      : `r:${JSON.stringify(chosen.map((row) => JSON.stringify([...row].sort(byCodeUnit))).sort(byCodeUnit))}`;

  // Enumerate the cartesian product of the cells' key sets, cell by cell (row-major).
  const positions: Array<[number, number]> = [];
  choices.forEach((row, r) => row.forEach((keys, c) => keys.length > 1 && positions.push([r, c])));
  const chosen = choices.map((row) => row.map((keys) => keys[0]));
  const out = new Set<string>();
  const walk = (k: number): void => {
    if (k === positions.length) {
      out.add(keyOf(chosen.map((row) => [...row])));
      return;
    }
    const [r, c] = positions[k];
    for (const key of choices[r][c]) {
      chosen[r][c] = key;
      walk(k + 1);
    }
    chosen[r][c] = choices[r][c][0];
  };
  walk(0);
  return { keys: [...out], capped };
}
