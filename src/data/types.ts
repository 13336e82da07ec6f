/**
 * The dataset format: databases plus questions with gold SQL and precomputed gold results. A bundle on disk or on
 * the web is `manifest.json` (a `DatasetManifest`) beside `db/<db_id>.sqlite` files.
 */
import type { SqlValue } from '../sql/types.ts';

/** Bumped whenever the manifest's shape changes; loaders refuse other versions with a clear message. */
export const DATASET_FORMAT_VERSION = 1;

export type Difficulty = 'easy' | 'medium' | 'hard' | 'extra';
export const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard', 'extra'];

export type Split = 'train' | 'eval' | 'heldout';
export const SPLITS: readonly Split[] = ['train', 'eval', 'heldout'];
/** What a caller may ask for: one split or all of them. */
export type SplitSelector = Split | 'all';

/** A gold result as stored in JSON. BLOB cells are stored as `{ "$blob": "<hex>" }` and decoded on load. */
export type JsonSqlValue = number | string | null | { $blob: string };

export interface GoldResult {
  columns: string[];
  rows: SqlValue[][];
}

/**
 * A gold result as tie groups: the result in ORDER BY order is consecutive segments, segment i being any `take` rows
 * of `pool` (rows tied on every ORDER BY key, projected to the result's columns), in any order among themselves.
 * Cells are stored as in JSON (BLOBs as `{ "$blob": hex }`), so a bundle carries it unchanged.
 */
export interface GoldTies {
  segments: Array<{ take: number; pool: JsonSqlValue[][] }>;
}

export interface Question {
  /** Unique within the dataset and stable across imports, e.g. `dev-0042`. */
  id: string;
  dbId: string;
  question: string;
  /** Gold SQL, as written by the dataset's authors. */
  gold: string;
  goldResult: GoldResult;
  /** Row order of the gold result matters (the gold SQL's outer query has ORDER BY), as in Spider's test-suite metric. */
  orderMatters: boolean;
  /**
   * The other results the gold SQL may legally return: rows tied on its ORDER BY keys, at a LIMIT cut-off or in
   * either order (src/data/gold.ts, `goldTies`). Absent when there are none, or when the SQL could not be rewritten
   * to find them (then only `goldResult` is accepted); bundles made before it existed load without it.
   */
  goldTies?: GoldTies;
  difficulty: Difficulty;
  split: Split;
  /**
   * Free play on a user's own database: no question and no gold answer, so the environment gives no correctness or
   * progress reward (and says so).
   */
  freePlay?: boolean;
}

export interface DatabaseEntry {
  id: string;
  /** Path of the SQLite file relative to the bundle folder. */
  file: string;
  tables: string[];
}

export interface DatasetManifest {
  format: typeof DATASET_FORMAT_VERSION;
  name: string;
  description: string;
  /** Attribution shown wherever the data is shown (Spider is CC BY-SA 4.0). */
  license: string;
  databases: DatabaseEntry[];
  questions: Array<Omit<Question, 'goldResult'> & { goldResult: { columns: string[]; rows: JsonSqlValue[][] } }>;
}

/** A dataset in memory: its questions, and a way to fetch any database's bytes. */
export interface Dataset {
  name: string;
  description: string;
  license: string;
  databases: DatabaseEntry[];
  questions: Question[];
  loadDatabase(dbId: string): Promise<Uint8Array>;
}
