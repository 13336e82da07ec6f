/**
 * Strict verifier: execution match between a gold and a predicted query result, a port of Spider's test-suite
 * metric (`result_eq` in taoyds/test-suite-sql-eval, exec_eval.py).
 *
 * Two results match when some permutation of the predicted columns makes the predicted rows equal the gold rows,
 * as a multiset (bag) of rows, or as a list when row order matters (the gold SQL has ORDER BY). Column names are
 * ignored. In order, exactly as `result_eq`:
 *   1. both results have no rows → match (whatever their columns);
 *   2. different row counts → no match;
 *   3. different column counts (width of the first row) → no match;
 *   4. quick reject: each row's values, sorted, must agree as a bag (when order matters this step is left out: the
 *      column-vector test of step 5 implies it);
 *   5. search for a column permutation under which the rows agree.
 *
 * Values compare as SQLite hands them to sql.js (`valueKey`): numbers by value, so 1 equals 1.0 (one JS number) and
 * 0.1 + 0.2 does not equal 0.3; text by exact characters, so '1' does not equal 1 and 'a' does not equal 'A'; NULL
 * equals NULL; BLOBs by bytes, never equal to text. These are Python's `==` on sqlite3 values (1 == 1.0,
 * '1' != 1, None == None, bytes by content). SQLite never returns NaN (it stores NULL instead).
 *
 * How the search differs from the Python, without changing any verdict:
 * - Python prunes permutations by sampling 20 random predicted rows, then tries every remaining one. Here pruning is
 *   deterministic: predicted column j may stand for gold column i only when both hold the same multiset of values.
 *   A backtracking search then assigns gold columns one at a time (fewest candidates first) and, after each, checks
 *   that gold and predicted rows still agree as a bag on the columns assigned so far (partition refinement: each row
 *   carries the id of its prefix tuple), so a wrong prefix is dropped at once, at O(n) per step.
 * - Predicted columns with identical value vectors are interchangeable, so only the first unused one is tried.
 * - When order matters, a permutation exists iff the gold and predicted column vectors agree as a multiset: O(n·m).
 * - A gold column that no predicted column can stand for has no candidates; the search assigns columns with the
 *   fewest candidates first, so it ends at once, having visited no row.
 * - Cap: the search stops after MAX_SEARCH_WORK row visits and answers "no match". Refinement makes this unreachable
 *   for real results (a 10k-row, 10-column result needs a few hundred thousand visits); it exists so an adversarial
 *   table cannot stall a step.
 * - Rows of unequal width (not produced by SQLite) never match.
 */
import type { SqlValue } from '../sql/types.ts';

/** A query result as the verifier sees it: column names (ignored by matching) and rows of SQLite values. */
export interface ResultTable {
  columns: string[];
  rows: SqlValue[][];
}

/** Row visits (one row, one refinement step) the permutation search may spend before it answers "no match". */
export const MAX_SEARCH_WORK = 20_000_000;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Lower-case hex of a BLOB's bytes. */
export function blobHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += HEX[b];
  return out;
}

/**
 * Canonical, type-tagged key of a value: two values have the same key exactly when the strict verifier treats them
 * as equal. `null` | `n:<number>` | `s:<text>` | `b:<hex>`. String(-0) is '0', so -0 and 0 share a key as in SQLite.
 */
export function valueKey(v: SqlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return `n:${String(v)}`;
  if (typeof v === 'string') return `s:${v}`;
  return `b:${blobHex(v)}`;
}

/** What one match cost: the permutation search's row visits (0 when an earlier step decided), for tests and benches. */
export interface MatchCost {
  searchWork: number;
}

/**
 * Strict execution match of `pred` against `gold` (Spider's `result_eq`); see the header for the rules. `cost`, when
 * given, receives what the permutation search spent; `maxSearchWork` is the search's cap (tests lower it to reach the
 * give-up on a small table).
 */
export function executionMatch(gold: ResultTable, pred: ResultTable, orderMatters: boolean, cost?: MatchCost, maxSearchWork = MAX_SEARCH_WORK): boolean {
  if (cost) cost.searchWork = 0;
  const n = gold.rows.length;
  if (n === 0 && pred.rows.length === 0) return true;
  if (pred.rows.length !== n) return false;
  const m = gold.rows[0].length;
  if (!gold.rows.every((r) => r.length === m) || !pred.rows.every((r) => r.length === m)) return false;

  // Intern every value once, shared by both tables, so cells become small integers: (n, m) row-major.
  const ids = new Map<string, number>();
  const g = internTable(gold.rows, m, ids);
  const p = internTable(pred.rows, m, ids);

  if (orderMatters) return sameBag(columnVectors(g, n, m), columnVectors(p, n, m));
  if (!sortedRowsAgree(g, p, n, m)) return false;
  return searchPermutation(g, p, n, m, ids.size, maxSearchWork, cost);
}

/** Cells of `rows` (n, m) as interned ids, row-major. */
function internTable(rows: SqlValue[][], m: number, ids: Map<string, number>): Int32Array {
  const out = new Int32Array(rows.length * m);
  rows.forEach((row, r) => {
    for (let c = 0; c < m; c++) {
      const key = valueKey(row[c]);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      out[r * m + c] = id;
    }
  });
  return out;
}

/** Step 4 (`quick_rej`), order ignored: each row's sorted ids, compared as a bag. */
function sortedRowsAgree(g: Int32Array, p: Int32Array, n: number, m: number): boolean {
  const rowKey = (t: Int32Array, r: number): string => t.slice(r * m, (r + 1) * m).sort().join(',');
  const gk: string[] = [];
  const pk: string[] = [];
  for (let r = 0; r < n; r++) {
    gk.push(rowKey(g, r));
    pk.push(rowKey(p, r));
  }
  return sameBag(gk, pk);
}

/** Column c of a (n, m) table as a key string: the ids in row order. */
function columnVector(t: Int32Array, n: number, m: number, c: number): string {
  const col = new Int32Array(n);
  for (let r = 0; r < n; r++) col[r] = t[r * m + c];
  return col.join(',');
}

function columnVectors(t: Int32Array, n: number, m: number): string[] {
  return Array.from({ length: m }, (_, c) => columnVector(t, n, m, c));
}

/** Column c's values as a multiset key (sorted ids). */
function columnBag(t: Int32Array, n: number, m: number, c: number): string {
  const col = new Int32Array(n);
  for (let r = 0; r < n; r++) col[r] = t[r * m + c];
  return col.sort().join(',');
}

/** Whether two lists of keys are equal as multisets. */
export function sameBag(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) {
    const c = counts.get(k);
    if (!c) return false;
    counts.set(k, c - 1);
  }
  return true;
}

/**
 * Step 5, order ignored: is there a column permutation under which the row bags agree? `numIds` bounds the interned
 * ids, so (prefix group, id) pairs pack into one number: groups < n, so the product stays far below 2^53.
 */
function searchPermutation(g: Int32Array, p: Int32Array, n: number, m: number, numIds: number, maxWork: number, cost?: MatchCost): boolean {
  const gBags = Array.from({ length: m }, (_, c) => columnBag(g, n, m, c));
  const pBags = Array.from({ length: m }, (_, c) => columnBag(p, n, m, c));
  // A gold column without candidates sorts first below, so the search then ends before visiting a row.
  const candidates = gBags.map((bag) => pBags.flatMap((pb, j) => (pb === bag ? [j] : [])));

  // Identical predicted columns: class[j] is the first column with j's vector.
  const pVectors = columnVectors(p, n, m);
  const cls = pVectors.map((v) => pVectors.indexOf(v));
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => candidates[a].length - candidates[b].length);

  // groups[d]: each row's prefix-tuple id after d assigned columns, for gold and pred; all rows start in group 0.
  const gGroups = Array.from({ length: m + 1 }, () => new Int32Array(n));
  const pGroups = Array.from({ length: m + 1 }, () => new Int32Array(n));
  const used = new Uint8Array(m);
  let work = 0;

  /** Refine depth d's groups by gold column gi and pred column pj; false when the bags of prefixes differ. */
  const refine = (d: number, gi: number, pj: number): boolean => {
    work += 2 * n;
    const pairs = new Map<number, number>();
    const counts: number[] = [];
    const [gPrev, gNext, pPrev, pNext] = [gGroups[d], gGroups[d + 1], pGroups[d], pGroups[d + 1]];
    for (let r = 0; r < n; r++) {
      const key = gPrev[r] * numIds + g[r * m + gi];
      let id = pairs.get(key);
      if (id === undefined) {
        id = counts.length;
        pairs.set(key, id);
        counts.push(0);
      }
      gNext[r] = id;
      counts[id]++;
    }
    for (let r = 0; r < n; r++) {
      const id = pairs.get(pPrev[r] * numIds + p[r * m + pj]);
      if (id === undefined || counts[id] === 0) return false;
      counts[id]--;
      pNext[r] = id;
    }
    return true;
  };

  const shadowed = (pj: number): boolean => {
    for (let j = 0; j < pj; j++) if (cls[j] === cls[pj] && !used[j]) return true;
    return false;
  };

  const assign = (d: number): boolean => {
    if (d === m) return true;
    for (const pj of candidates[order[d]]) {
      if (used[pj] || shadowed(pj)) continue;
      if (work > maxWork) return false;
      if (!refine(d, order[d], pj)) continue;
      used[pj] = 1;
      if (assign(d + 1)) return true;
      used[pj] = 0;
    }
    return false;
  };
  const found = assign(0);
  if (cost) cost.searchWork = work;
  return found;
}
