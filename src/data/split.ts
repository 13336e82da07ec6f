/**
 * The SQLEnv split. Curated databases give `train` and `eval`; every other database is `heldout`.
 *
 * Questions are split in groups, never one by one, so no answer learnt in train is asked again in eval. Within one
 * database, two questions are in the same group when they share
 *   - a normalised gold SQL (`normalizeGoldSql`): Spider asks most queries twice in other words; or
 *   - a gold result (`goldResultKey`): the same multiset of rows, each row's cells taken as a bag, so column order
 *     and row order do not count. Paraphrases written as other SQL (reordered columns, swapped joins) land here.
 * and groups are closed under both (union-find: A~B by SQL and B~C by result puts A, B and C together). A whole group
 * goes to `train` or `eval` by a hash of its canonical key — the db id and the smallest normalised SQL of the group —
 * so ~TRAIN_PERCENT of groups go to train. A group of one keeps the split of the old SQL-only rule (`sqlOnlySplit`).
 *
 * Invariant: two questions of one database with the same normalised SQL or the same gold result key are in the same
 * split. The split depends only on the set of (db_id, gold SQL, gold rows), never on question order or ids, so it is
 * the same on every machine; adding a question can move only the groups it joins.
 *
 * The result key is coarser than the strict verifier (src/env/verifier.ts): results that the verifier matches under
 * some column permutation always share a key, and a few that it does not match (each row permuted on its own) also
 * do, which only merges more. Cells are keyed as the verifier's `valueKey` does; `data` may not import `env`, so
 * `cellKey` repeats it here (tests/data/split.test.ts checks the two agree).
 */
import type { SqlValue } from '../sql/types.ts';
import { hashString } from './rng.ts';
import type { Split } from './types.ts';

export const CURATED_DATABASES: readonly string[] = [
  'world_1',
  'car_1',
  'cre_Doc_Template_Mgt',
  'dog_kennels',
  'flight_2',
  'student_transcripts_tracking',
  'tvshow',
  'network_1',
  'concert_singer',
  'pets_1',
];

export const TRAIN_PERCENT = 70;

/** What the split reads of a question: its database, gold SQL and gold rows (column names do not count). */
export interface SplitInput {
  dbId: string;
  gold: string;
  goldRows: ReadonlyArray<readonly SqlValue[]>;
}

/** Gold SQL reduced to what identifies the query: case, whitespace and a trailing ';' do not count. */
export function normalizeGoldSql(sql: string): string {
  return sql.trim().replace(/;+\s*$/, '').replace(/\s+/g, ' ').toLowerCase();
}

/** Type-tagged key of one cell, as the strict verifier's `valueKey`: `null` | `n:<number>` | `s:<text>` | `b:<hex>`. */
export function cellKey(v: SqlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return `n:${String(v)}`;
  if (typeof v === 'string') return `s:${v}`;
  let hex = '';
  for (const b of v) hex += b.toString(16).padStart(2, '0');
  return `b:${hex}`;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A gold result as a multiset of rows, column order ignored: each row → its sorted cell keys, rows sorted. JSON
 * encoding keeps it unambiguous whatever characters a text cell holds.
 */
export function goldResultKey(rows: ReadonlyArray<readonly SqlValue[]>): string {
  return JSON.stringify(rows.map((row) => JSON.stringify(row.map(cellKey).sort(byCodeUnit))).sort(byCodeUnit));
}

/** `train` or `eval` for a group whose canonical key is (dbId, normalised SQL): ~TRAIN_PERCENT go to train. */
function hashSplit(dbId: string, normalizedSql: string): 'train' | 'eval' {
  return hashString(`${dbId}\u0000${normalizedSql}`) % 100 < TRAIN_PERCENT ? 'train' : 'eval';
}

/** The rule before result grouping: each (db, normalised SQL) on its own. Kept to report what the new rule moved. */
export function sqlOnlySplit(dbId: string, goldSql: string, curated: readonly string[] = CURATED_DATABASES): Split {
  return curated.includes(dbId) ? hashSplit(dbId, normalizeGoldSql(goldSql)) : 'heldout';
}

/** Union-find over indices 0..n-1, with path halving. */
class DisjointSets {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]];
      i = this.parent[i];
    }
    return i;
  }
  union(a: number, b: number): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/**
 * The groups of curated questions (see the header), as lists of indices into `questions`, in ascending order.
 * Questions of non-curated databases are in no group.
 */
export function splitGroups(questions: readonly SplitInput[], curated: readonly string[] = CURATED_DATABASES): number[][] {
  const sets = new DisjointSets(questions.length);
  const firstWith = new Map<string, number>();
  const link = (key: string, i: number): void => {
    const first = firstWith.get(key);
    if (first === undefined) firstWith.set(key, i);
    else sets.union(first, i);
  };
  questions.forEach((q, i) => {
    if (!curated.includes(q.dbId)) return;
    // The db id leads both keys, so questions of two databases never meet; the tag keeps SQL and result apart.
    link(JSON.stringify([q.dbId, 'sql', normalizeGoldSql(q.gold)]), i);
    link(JSON.stringify([q.dbId, 'result', goldResultKey(q.goldRows)]), i);
  });
  const groups = new Map<number, number[]>();
  questions.forEach((q, i) => {
    if (!curated.includes(q.dbId)) return;
    const root = sets.find(i);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  });
  return [...groups.values()];
}

/**
 * The split of every question of a dataset, in input order: `heldout` off the curated databases, else the split of
 * its group, by a hash of the db id and the group's smallest normalised SQL.
 */
export function sqlenvSplits(questions: readonly SplitInput[], curated: readonly string[] = CURATED_DATABASES): Split[] {
  const splits: Split[] = questions.map(() => 'heldout');
  for (const group of splitGroups(questions, curated)) {
    const canonical = group.map((i) => normalizeGoldSql(questions[i].gold)).sort(byCodeUnit)[0];
    const split = hashSplit(questions[group[0]].dbId, canonical);
    for (const i of group) splits[i] = split;
  }
  return splits;
}

/** How the grouped split differs from `sqlOnlySplit`: questions moved each way. */
export interface SplitMoves {
  trainToEval: number;
  evalToTrain: number;
}

export function splitMoves(questions: readonly SplitInput[], splits: readonly Split[], curated: readonly string[] = CURATED_DATABASES): SplitMoves {
  const moves: SplitMoves = { trainToEval: 0, evalToTrain: 0 };
  questions.forEach((q, i) => {
    const before = sqlOnlySplit(q.dbId, q.gold, curated);
    if (before === 'train' && splits[i] === 'eval') moves.trainToEval++;
    if (before === 'eval' && splits[i] === 'train') moves.evalToTrain++;
  });
  return moves;
}

/** One line for the import and demo reports, e.g. `split: 12 questions moved from the SQL-only rule (…)`. */
export function formatSplitMoves(moves: SplitMoves): string {
  const total = moves.trainToEval + moves.evalToTrain;
  return `split: ${total} questions moved relative to the SQL-only rule (${moves.trainToEval} train → eval, ${moves.evalToTrain} eval → train), by grouping equal gold results`;
}
