/**
 * The environment's public types, field by field (the contract of DESIGN.md "Environment").
 */
import type { Difficulty, SplitSelector } from '../data/types.ts';
import { DEFAULT_EXEC_LIMITS, type SqlValue, type TableInfo } from '../sql/types.ts';
import type { ParsedAction } from './actions.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';
import { DEFAULT_REWARD_WEIGHTS, type RewardComponents, type RewardWeights } from './rewards.ts';

export interface EnvConfig {
  /** Steps per episode; the episode is truncated when they run out without an ANSWER. */
  budget: number;
  /** Rows a SAMPLE shows. */
  sampleRows: number;
  /** Rows of a QUERY result shown in the observation (the verifier always sees up to `verifyRows`). */
  maxObservationRows: number;
  /** Characters shown of one cell. */
  maxCellChars: number;
  /** Characters of one result table in an observation. */
  maxObservationChars: number;
  /** Characters kept of one cell in `observation.result` (what step info, transcripts and the page keep). */
  maxViewCellChars: number;
  /** Characters kept of all cells of `observation.result` together. */
  maxViewChars: number;
  /** Characters of the action echoed at the top of an observation. */
  maxActionEchoChars: number;
  /** Rows of a QUERY result kept for the progress similarity. */
  verifyRows: number;
  /** Time limit of one QUERY, in milliseconds. */
  queryTimeoutMs: number;
  /**
   * Tables an observation lists (reset text, `observation.tables`, the unknown-table error); the rest are counted
   * (`tablesNotShown`) and stay usable by name. A database may hold 20,000 tables; Spider's hold at most a few dozen.
   */
  maxObservationTables: number;
  weights: RewardWeights;
}

/** Defaults; every size comes from the one table of value budgets, `VALUE_LIMITS`. */
export const DEFAULT_ENV_CONFIG: EnvConfig = {
  budget: 10,
  sampleRows: 5,
  maxObservationRows: VALUE_LIMITS.observationRows,
  maxCellChars: VALUE_LIMITS.observationCellChars,
  maxObservationChars: VALUE_LIMITS.observationChars,
  maxViewCellChars: VALUE_LIMITS.viewCellChars,
  maxViewChars: VALUE_LIMITS.viewChars,
  maxActionEchoChars: VALUE_LIMITS.actionEchoChars,
  verifyRows: VALUE_LIMITS.rows,
  queryTimeoutMs: DEFAULT_EXEC_LIMITS.timeoutMs, // one 2 s default, the SQL layer's
  maxObservationTables: 100,
  weights: { ...DEFAULT_REWARD_WEIGHTS },
};

export interface ResetOptions {
  /** Seeds the choice of question; the same seed and filters give the same question. Drawn and reported if absent. */
  seed?: number;
  /** Plays this question; the filters are ignored. */
  questionId?: string;
  /** Default 'train'. */
  split?: SplitSelector;
  difficulty?: Difficulty;
  dbId?: string;
}

/** The part of a result an observation shows, for rendering as a real table. */
export interface ResultView {
  columns: string[];
  rows: SqlValue[][];
  /** Rows the statement produced, or null when there were more than the environment reads. */
  totalRows: number | null;
}

export interface Observation {
  /** The whole observation as text, for people and language models alike. */
  text: string;
  question: string;
  dbId: string;
  /** The database's tables, the first `maxObservationTables` of them. */
  tables: string[];
  /** Tables not listed in `tables` (absent when all are listed). */
  tablesNotShown?: number;
  stepsLeft: number;
  /** Rows shown by a SAMPLE or QUERY step. */
  result?: ResultView;
  /** Schema shown by a DESCRIBE step. */
  table?: TableInfo;
  /** Why the step failed, when it did. */
  error?: string;
}

/**
 * How a step went: 'ok' (it showed something), 'nothing-new' (a QUERY result already seen), 'repeat' (the same
 * action again), 'error'. Since v3 the outcome no longer decides the pay (every step costs the same STEP_COST, a
 * repeat and an error more); 'content-free' is kept in the union for transcripts recorded by v2 and is no longer
 * produced.
 */
export type StepOutcome = 'ok' | 'nothing-new' | 'content-free' | 'repeat' | 'error';

export interface StepInfo {
  action: ParsedAction;
  outcome: StepOutcome;
  /** Unweighted reward parts of this step. */
  components: RewardComponents;
  /** The episode ended with an ANSWER. */
  terminated: boolean;
  /** The episode ended because the step budget ran out. */
  truncated: boolean;
  /** Verdict of an ANSWER step; null on other steps. */
  correct: boolean | null;
  /**
   * Closeness of this QUERY's or SAMPLE's result to the gold (closeness.ts); null on other steps. When the result
   * could not raise Φ (its similarity on the database itself is 0 or at most Φ, or the step is a repeat), the
   * perturbed copies are not consulted and this is the similarity on the database itself: an upper bound of the
   * closeness, which cannot pay either way.
   */
  similarity: number | null;
  /** Φ after this step. */
  bestSimilarity: number;
  stepIndex: number;
  /** Sum of rewards so far, this step included. */
  episodeReturn: number;
}

export interface StepResult {
  observation: Observation;
  reward: number;
  done: boolean;
  info: StepInfo;
}

export interface ResetInfo {
  seed: number;
  questionId: string;
  difficulty: Difficulty;
  split: string;
}

export interface ResetResult {
  observation: Observation;
  info: ResetInfo;
}

export interface EnvState {
  seed: number;
  questionId: string;
  dbId: string;
  stepsUsed: number;
  stepsLeft: number;
  done: boolean;
  terminated: boolean;
  truncated: boolean;
  bestSimilarity: number;
  episodeReturn: number;
}
