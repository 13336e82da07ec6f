/**
 * Free play: a one-database dataset made from any SQLite file a person opens, so they can explore it with the same
 * four actions. There is no question and no gold answer, so the environment gives no correctness or progress
 * reward (env.ts checks `freePlay`), only the operational one; the question text says so plainly.
 *
 * The dataset holds one question, `free-play`, in the `train` split (the split `reset` draws from by default) with
 * an empty gold result. The file is checked before anything is made: a file that is not SQLite, or that SQLite
 * cannot open, or that has no tables, gives a DatasetError saying which.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { DatasetError } from './bundle.ts';
import type { Dataset, Question } from './types.ts';

export const FREE_PLAY_QUESTION_ID = 'free-play';

/**
 * Steps a free-play episode may take (the environment uses it instead of `EnvConfig.budget` for a free-play
 * question). Free play is exploration with no gold answer and no reward to protect, so the 10-step budget of a
 * question would only cut a person off; 100 steps is an afternoon of queries and still ends a runaway policy.
 */
export const FREE_PLAY_BUDGET = 100;

/** Every SQLite 3 database file starts with these 16 bytes. */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/** The executor key the file is opened under to be checked (replaced by the next check). */
const CHECK_KEY = 'free-play-check';

/** A database id from a file name: its base name without extension, letters, digits, '_' and '-' only. */
export function freePlayDbId(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  const id = stem.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return id === '' ? 'database' : id.slice(0, 60);
}

export function isSqliteHeader(bytes: Uint8Array): boolean {
  if (bytes.length < SQLITE_HEADER.length) return false;
  for (let i = 0; i < SQLITE_HEADER.length; i++) if (bytes[i] !== SQLITE_HEADER.charCodeAt(i)) return false;
  return true;
}

/**
 * A copy with the header's read/write versions set to legacy journaling (1) when the file was left in WAL mode (2):
 * sql.js opens databases in memory, where WAL cannot work, and without its -wal file the main file is complete as is.
 */
export function withoutWalMode(bytes: Uint8Array): Uint8Array {
  if (bytes[18] !== 2 && bytes[19] !== 2) return bytes;
  const copy = bytes.slice();
  copy[18] = 1;
  copy[19] = 1;
  return copy;
}

export function freePlayQuestion(dbId: string, fileName: string): Question {
  return {
    id: FREE_PLAY_QUESTION_ID,
    dbId,
    question: `Free play on ${fileName}: explore the database with DESCRIBE, SAMPLE and QUERY. There is no question and no gold answer, so there is no correctness reward (and no progress reward); ANSWER just ends the episode.`,
    gold: '',
    goldResult: { columns: [], rows: [] },
    orderMatters: false,
    difficulty: 'easy',
    split: 'train',
    freePlay: true,
  };
}

/**
 * Checks `bytes` with `executor` (it must open as SQLite and hold a table) and returns the dataset `name` with
 * the file as its one database.
 */
export async function buildFreePlayDataset(name: string, fileName: string, bytes: Uint8Array, executor: SqlExecutor): Promise<Dataset> {
  if (bytes.length === 0) throw new DatasetError(`'${fileName}' is empty: there is no database in it.`);
  if (!isSqliteHeader(bytes)) {
    throw new DatasetError(`'${fileName}' is not a SQLite database: it does not start with the SQLite 3 header. Open a .sqlite, .sqlite3 or .db file written by SQLite 3.`);
  }
  const database = withoutWalMode(bytes);
  let tables: string[];
  try {
    await executor.load(CHECK_KEY, database);
    tables = await executor.tables(CHECK_KEY);
  } catch (e) {
    throw new DatasetError(`'${fileName}' starts like a SQLite database but SQLite cannot read it: the file is damaged or cut short. (${(e as Error).message})`);
  }
  if (tables.length === 0) throw new DatasetError(`'${fileName}' opens as SQLite but has no tables, so there is nothing to explore.`);
  const dbId = freePlayDbId(fileName);
  return {
    name,
    description: `Free play on ${fileName}: ${tables.length} table${tables.length === 1 ? '' : 's'}, no questions and no gold answers, so no correctness reward.`,
    license: 'Your own file: it stays in this browser.',
    databases: [{ id: dbId, file: `db/${dbId}.sqlite`, tables }],
    questions: [freePlayQuestion(dbId, fileName)],
    loadDatabase: async (id) => {
      if (id !== dbId) throw new DatasetError(`Dataset '${name}' has no database '${id}'.`);
      return database;
    },
  };
}
