/**
 * The SQLEnv split. Curated databases give `train` and `eval`; every other database is `heldout`.
 *
 * Questions are split in groups, never one by one, so no answer learnt in train is asked again in eval. Within one
 * database, two questions are in the same group when
 *   - they share a normalised gold SQL (`normalizeGoldSql`): Spider asks most queries twice in other words;
 *   - their gold results are the same answer to the lenient ANSWER verifier (`resultKeys` in answer-key.ts: `9`
 *     and `'9'`, 6 and `'6.0'`, text case and spacing, a rounding to two or more decimals, a one-row result and the
 *     one-column result with the same cells), so an answer learnt in train is never accepted in eval; or
 *   - one's gold has ties (other legal results, src/data/gold.ts) and the two may share a legal result
 *     (`tieLinks` in tie-links.ts: the verifier accepts any legal result, so an answer could straddle otherwise); or
 *   - their question texts are paraphrases (`questionWords` in paraphrase.ts: the same content words), so a
 *     question asked twice with two disagreeing golds (Spider dev 776/777) is not asked again in eval;
 * and groups are closed under all four (union-find: A~B by SQL and B~C by answer puts A, B and C together). A whole
 * group goes to `train` or `eval` by a hash of its canonical key — the db id and the smallest normalised SQL of the
 * group — so ~TRAIN_PERCENT of groups go to train. A group of one keeps the split of the SQL-only rule
 * (`sqlOnlySplit`). Every link but the tie links is a hash-map key (O(n log n)); tie links compare a tie question with
 * the questions of its database only.
 *
 * Invariant: two questions of one database with the same normalised SQL, answers the lenient verifier equates
 * (within the limits answer-key.ts states), or paraphrased texts are in the same split. The split depends only on
 * the set of (db_id, question, gold SQL, gold rows), never on question order or ids, so it is the same on every
 * machine; adding a question can move only the groups it joins. docs/split.md states the rules and what they
 * moved; `npm run data:split-report` prints it.
 *
 * The previous rule (PREVIOUS_SPLIT_RULE: strict result keys, no paraphrases) stays callable so the report can
 * show what the current one moved. Its result key is coarser than the strict verifier (src/env/verifier.ts):
 * results that the verifier matches under some column permutation always share a key. Cells are keyed as the
 * verifier's `valueKey` does; `data` may not import `env`, so `cellKey` repeats it (the tests check they agree).
 */
import type { SqlValue } from '../sql/types.ts';
import { resultKeys } from './answer-key.ts';
import { questionWords } from './paraphrase.ts';
import { hashString } from './rng.ts';
import { tieLinks } from './tie-links.ts';
import type { GoldTies, Split } from './types.ts';

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

/** Which links join questions into a group (header). */
export interface SplitRule {
  /** `lenient`: answers the lenient ANSWER verifier equates; `strict`: one bag of rows, as the strict verifier. */
  results: 'strict' | 'lenient';
  /** Join questions whose texts are paraphrases (paraphrase.ts). */
  paraphrases: boolean;
  /** Join a question whose gold has ties with every question that may share one of its legal results (tie-links.ts). */
  ties: boolean;
}

/** The rule the split uses. */
export const SPLIT_RULE: SplitRule = { results: 'lenient', paraphrases: true, ties: true };

/** The rule before this one (strict result keys, no paraphrases), kept so the report can show what moved. */
export const PREVIOUS_SPLIT_RULE: SplitRule = { results: 'strict', paraphrases: false, ties: false };

/** What the split reads of a question: its database, text, gold SQL and gold rows (column names do not count). */
export interface SplitInput {
  dbId: string;
  question: string;
  gold: string;
  goldRows: ReadonlyArray<readonly SqlValue[]>;
  /** The gold's other legal results (src/data/gold.ts); under the lenient rule they join questions too (tie-links.ts). */
  goldTies?: GoldTies;
}

/**
 * Gold SQL reduced to what identifies the query: case, whitespace and a trailing ';' do not count. Trimmed again
 * after the ';' goes, so `SELECT 1 ;` is `select 1`, as `SELECT 1` is.
 */
export function normalizeGoldSql(sql: string): string {
  return sql.trim().replace(/;+\s*$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
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

/** The link keys of one question under `rule`; the db id leads each key, so two databases never meet. */
export function linkKeys(q: SplitInput, rule: SplitRule = SPLIT_RULE): string[] {
  const keys = [JSON.stringify([q.dbId, 'sql', normalizeGoldSql(q.gold)])];
  if (rule.results === 'strict') keys.push(JSON.stringify([q.dbId, 'result', goldResultKey(q.goldRows)]));
  else for (const key of resultKeys(q.goldRows).keys) keys.push(JSON.stringify([q.dbId, 'answer', key]));
  const words = rule.paraphrases ? questionWords(q.question) : '';
  if (words !== '') keys.push(JSON.stringify([q.dbId, 'question', words]));
  return keys;
}

/**
 * The groups of curated questions under `rule` (see the header), as lists of indices into `questions`, in ascending
 * order. Questions of non-curated databases are in no group.
 */
export function splitGroups(questions: readonly SplitInput[], curated: readonly string[] = CURATED_DATABASES, rule: SplitRule = SPLIT_RULE): number[][] {
  const sets = new DisjointSets(questions.length);
  const firstWith = new Map<string, number>();
  questions.forEach((q, i) => {
    if (!curated.includes(q.dbId)) return;
    for (const key of linkKeys(q, rule)) {
      const first = firstWith.get(key);
      if (first === undefined) firstWith.set(key, i);
      else sets.union(first, i);
    }
  });
  if (rule.ties) for (const [a, b] of tieLinks(questions, (q) => curated.includes(q.dbId))) sets.union(a, b);
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
 * its group under `rule`, by a hash of the db id and the group's smallest normalised SQL.
 */
export function sqlenvSplits(questions: readonly SplitInput[], curated: readonly string[] = CURATED_DATABASES, rule: SplitRule = SPLIT_RULE): Split[] {
  const splits: Split[] = questions.map(() => 'heldout');
  for (const group of splitGroups(questions, curated, rule)) {
    const canonical = group.map((i) => normalizeGoldSql(questions[i].gold)).sort(byCodeUnit)[0];
    const split = hashSplit(questions[group[0]].dbId, canonical);
    for (const i of group) splits[i] = split;
  }
  return splits;
}

/** How the grouped split differs from `sqlOnlySplit`: questions moved each way (the import report's line). */
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
  return `split: ${total} questions moved relative to the SQL-only rule (${moves.trainToEval} train → eval, ${moves.evalToTrain} eval → train), by grouping equal answers and paraphrases`;
}
