/**
 * What the page and the environment worker say to each other about training: the requests of the Train view and
 * the events a run streams back (every step's metrics, evaluations, traces, checkpoints, state changes). The worker
 * side is train-service.ts (methods on `EnvApi`, env-api.ts); the page side is the Train view's store slice. Plain
 * data only: everything here crosses `postMessage`.
 */
import type { TrainerState } from '../train/trainer.ts';
import type { EvalPoint, StepMetrics, TraceEntry, TrainAlgo, TrainConfig, TrainProgress } from '../train/types.ts';
import type { LlmSource } from './llm-source.ts';
import type { LlmPolicySettings } from './llm-settings.ts';

export interface TrainStartRequest {
  /** The dataset whose train split feeds the run (and whose eval split its evaluations). */
  dataset: string;
  config: TrainConfig;
  /** Start from this saved adapter (e.g. an SFT warm-up) instead of a fresh one; its rank and targets win. */
  initAdapterId?: string;
  /** A name for the adapter the run produces (shown as a policy); default `<algo> <date>`. */
  adapterName?: string;
}

/** Loading the model for training, then the run's own life. */
export type TrainPhase = 'loading' | TrainerState;

export type TrainEvent =
  | { type: 'phase'; phase: TrainPhase; message?: string; loaded?: number; total?: number }
  | { type: 'step'; metrics: StepMetrics }
  | { type: 'eval'; point: EvalPoint }
  | { type: 'trace'; trace: TraceEntry }
  | { type: 'checkpoint'; checkpoint: CheckpointInfo }
  /** What the run is doing now (loading, evaluation, rollouts, update, checkpoint), with an estimate; throttled. */
  | { type: 'progress'; progress: TrainProgress }
  /** The run ended with an error: `suggestion` names a smaller setting when the device ran out of memory. */
  | { type: 'error'; message: string; suggestion?: Partial<TrainConfig> };

/**
 * The toy run "learn to read" (train-reads-session.ts, the run of src/train/toy-reads-run.ts): a tiny model the worker
 * builds itself, no loaded model needed. The sizes a person may shorten; an absent one is the run's own default
 * (`ReadsDefaults`, read from the worker so the numbers live only in toy-reads-run.ts).
 */
/** How the view names the toy task (also the run's `dataset` on screen). */
export const READS_TASK_LABEL = 'Toy: learn to read';

export interface ReadsStartRequest {
  /** Draws the SFT, GRPO and fresh databases (and seeds the updates). */
  runSeed: number;
  sftSteps?: number;
  grpoSteps?: number;
  /** Databases whose Oracle transcripts the warm-up learns from, and databases GRPO trains on (5 questions each). */
  sftDatabases?: number;
  grpoDatabases?: number;
  /** Fresh databases measured before and after GRPO (5 questions each). */
  freshDatabases?: number;
}

/** The toy run's defaults and the exact best fixed-answer success rate (what reading must beat). */
export interface ReadsDefaults {
  sftSteps: number;
  grpoSteps: number;
  sftDatabases: number;
  grpoDatabases: number;
  freshDatabases: number;
  ceiling: number;
  /** The tiny model the run builds, as the form names it ("2 layers, hidden 32"). */
  model: string;
}

/** One fresh-database measure of the toy run (the plain-data part of src/train/toy-reads-run.ts `ReadsMeasure`). */
export interface ReadsFreshMeasure {
  /** Share of fresh episodes answered correctly (one sampled episode per question). */
  success: number;
  /** Share of episodes whose ANSWER copies a value an earlier observation showed. */
  copied: number;
  /** Share of episodes that ended with an ANSWER. */
  answered: number;
  episodes: number;
}

/** What the toy run ends with: fresh success after the warm-up (the lr-0 control), after GRPO, and the ceiling. */
export interface ReadsResult {
  runSeed: number;
  ceiling: number;
  before: ReadsFreshMeasure;
  after: ReadsFreshMeasure;
}

/**
 * The toy run's events: a training run's, plus 'stage' (the run moves from its SFT warm-up to GRPO: steps count
 * from 1 again, so the charts start over) and 'readsResult' (the measures, once, before the final phase).
 */
export type ReadsEvent =
  | TrainEvent
  | { type: 'stage'; algo: TrainAlgo; totalSteps: number; message: string }
  | { type: 'readsResult'; result: ReadsResult };

/** A saved point of a run (IndexedDB): enough to resume it after a reload. */
export interface CheckpointInfo {
  id: string;
  runId: string;
  /** Last completed step. */
  step: number;
  totalSteps: number;
  dataset: string;
  /** The model the run trains (its label, e.g. a Hub id). */
  model: string;
  config: TrainConfig;
  savedAt: number;
  bytes: number;
}

/** An adapter the worker holds (trained here, loaded from files or the Hub); each is a policy in Watch/Evaluate. */
export interface AdapterInfo {
  id: string;
  name: string;
  /** Where it came from: a run of this page, a file, or a Hub repo. */
  origin: 'trained' | 'file' | 'hub';
  /** The base model it belongs to (label). */
  baseModel: string;
  rank: number;
  alpha: number;
  targets: string[];
  /** The policy name under which Watch, Evaluate and Compare list it. */
  policy: string;
  /** Steps trained, for `trained`. */
  steps?: number;
}

/** A run as the view shows it after a reload: its history, for the charts. */
export interface TrainRunHistory {
  runId: string;
  metrics: StepMetrics[];
  evals: EvalPoint[];
  traces: TraceEntry[];
}

/**
 * Where a run's model came from, kept with the run so an interrupted run can load it again: a Hub repo or a served
 * folder as given; a local folder only by name (the browser cannot reopen a folder the user picked: pick it again).
 */
export type TrainModelSource = Exclude<LlmSource, { kind: 'files' }> | { kind: 'files'; folder: string };

/**
 * The record of a run in progress (IndexedDB), written when it starts and as it goes, deleted when it ends: one that
 * is still there when a page opens belongs to a run that was interrupted (the page reloaded or closed, the tab
 * crashed), and says what to load and where to resume from.
 */
export interface ActiveRunRecord {
  runId: string;
  request: TrainStartRequest;
  /** The model's label (e.g. a Hub id) and where to load it from again. */
  model: string;
  source: TrainModelSource | null;
  /** The settings the model was loaded with. */
  modelSettings?: LlmPolicySettings;
  /** Last completed step. */
  step: number;
  totalSteps: number;
  /** The newest checkpoint of the run (resume from it), or null when none was saved yet (start it again). */
  checkpointId: string | null;
  checkpointStep: number;
  startedAt: number;
  updatedAt: number;
}

/** Where training is now (`trainingStatus()`): 'idle' when no run is going. */
export type TrainStatus =
  | { phase: 'idle' }
  | {
      phase: TrainPhase;
      runId: string;
      /** Last completed step. */
      step: number;
      totalSteps: number;
      dataset: string;
      /** The adapter the run produces (listed by `listAdapters()` once the run has ended). */
      adapterId: string;
    };

/** Where to download an adapter from the Hub (`loadAdapterFromHub`). */
export interface HubAdapterOptions {
  revision?: string;
  /** A mirror of the Hub; default huggingface.co. */
  base?: string;
  /** A folder of the repo holding the two files (repos with several adapters); default the root. */
  subfolder?: string;
  /** The adapter's name as a policy; default the repo (and folder). */
  name?: string;
}
