/**
 * What one demo database is made of: its schema, a seeded generator for its rows, and hand-written questions with
 * gold SQL. `build.ts` turns a list of these into a `Dataset`; ids, gold results, difficulty and split are derived
 * there, never written by hand.
 */
import type { Database } from 'sql.js';
import type { Rng } from '../rng.ts';

export interface DemoQuestionSpec {
  /** Natural English, answerable from the data alone. */
  question: string;
  /**
   * Hand-written gold SQL. It must return at least one row; an ORDER BY may only stand at the top level, and an
   * ORDER BY … LIMIT must not cut through ties (build.ts checks all three).
   */
  gold: string;
}

export interface DemoDatabaseSpec {
  /** Database id, also the middle of its question ids (`demo-<id>-001`). */
  id: string;
  /** CREATE TABLE statements with types, primary and foreign keys, parents before children. */
  schema: string;
  /** Fills the tables. Called once, inside a transaction, with foreign keys enforced; draws only from `rng`. */
  populate(db: Database, rng: Rng): void;
  questions: readonly DemoQuestionSpec[];
}
