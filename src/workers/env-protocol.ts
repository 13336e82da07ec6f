/**
 * The plain data that crosses between the page and the environment worker (env-api.ts), other than what the
 * environment (src/env/types.ts), evaluation (src/eval) and training (train-protocol.ts) define themselves. Types
 * only: the services in services/ produce these, the UI's store slices read them.
 */
import type { StoredDatasetInfo } from '../data/dataset-store.ts';
import type { ImportReport } from '../data/spider.ts';
import type { GivenFile } from '../data/spider-source-memory.ts';
import type { Question, SplitSelector } from '../data/types.ts';
import type { StepResult } from '../env/types.ts';
import type { TranscriptStep } from '../eval/transcript.ts';
import type { TestModelMarker } from '../model/test-model-marker.ts';
import type { PolicyDecision, TurnProgress } from '../policies/policy.ts';
import type { ResolvedLlmSettings } from './llm-settings.ts';

// ---- Datasets ----

/** A question as lists show it: everything but the gold result rows. */
export type QuestionSummary = Omit<Question, 'goldResult'>;

export interface DatasetSummary {
  name: string;
  description: string;
  license: string;
  databases: Array<{ id: string; tables: string[] }>;
  questions: QuestionSummary[];
}

/** A Spider folder or zip a person gave the page, to import as the dataset `name`. */
export interface SpiderImportRequest {
  importId: string;
  name: string;
  /** Names the files in messages: the folder's or the zip's name. */
  label: string;
  files: GivenFile[];
}

/** Where an import is: checking gold queries (`questions`), then writing databases to storage (`saving`). */
export interface ImportProgress {
  phase: 'reading' | 'questions' | 'saving';
  done: number;
  total: number;
}

/** A dataset made in the page: its summary, and how it was kept (`stored` null with the reason when it was not). */
export interface MadeDataset {
  summary: DatasetSummary;
  stored: StoredDatasetInfo | null;
  storageError: string | null;
}

export interface SpiderImportOutcome extends MadeDataset {
  report: ImportReport;
}

// ---- Episodes and evaluation ----

/** One step a session's policy chose and played (Watch): only what the page shows of the decision. */
export interface PolicyStep {
  decision: PolicyDecision;
  result: StepResult;
  step: TranscriptStep;
}

/**
 * A policy's step in progress (Watch's step, or the current episode of an evaluation): the step played out of the
 * budget and, for model policies, the tokens generated so far. Crosses to the page through a progress callback.
 */
export interface StepProgress {
  /** The step being played, from 1. */
  step: number;
  /** Steps the episode may take in all (the steps played before this one plus the budget left). */
  budget: number;
  /** The turn's progress (model policies only): prompt size, new tokens so far, the limit. */
  turn: TurnProgress | null;
}

export interface EvaluationRequest {
  runId: string;
  dataset: string;
  policy: string;
  split: SplitSelector;
  episodes: number | 'all';
  seed: number;
}

// ---- The model ----

/** A model the worker holds, as the page shows it. */
export interface LoadedModelInfo {
  /** The policy name it was registered under. */
  policy: string;
  label: string;
  architecture: string;
  layers: number;
  hidden: number;
  vocab: number;
  contextTokens: number;
  adapter: string;
  weights: string;
  maxNewTokens: number;
  /** Every setting the policy plays with, defaults filled in. */
  settings: ResolvedLlmSettings;
  /** Shots actually built (fewer than asked when the shot dataset has fewer train questions). */
  shotsBuilt: number;
  /** Set for a model with random test weights (its config.json's mark, src/model/test-model-marker.ts). */
  testModel?: TestModelMarker | null;
}
