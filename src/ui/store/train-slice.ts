/**
 * State of the Train view: the form (persisted: the settings SFT and GRPO share, one value for both, and each
 * algorithm's own, so switching algorithm keeps every edit; see src/ui/train/shared-settings.ts), the run on screen
 * with everything it streamed (metrics, evaluations, traces), and the lists of checkpoints and adapters the worker
 * keeps in IndexedDB.
 *
 * How to think about a run: training runs in the environment worker. `startTrainingRun` (with a config the form
 * has checked) asks the worker to `startTraining` with a Comlink callback that receives every `TrainEvent`; the events are the one
 * source of the run's state (phase, points, error). A run resumed from a checkpoint (after a reload too) first gets
 * its history (`trainHistory`) so the charts continue where they stopped. Events of an older run (a new one started
 * meanwhile) are dropped by `key`. When a run ends, the adapter lists and the policy lists of Watch, Evaluate and
 * Compare are read again, since the worker registers the trained adapter as a policy.
 *
 * An interrupted run (a run an earlier page left unfinished, an `ActiveRunRecord` the worker holds) is read into
 * `interruptedRun`, resumed (its model loaded again where that can be done, then continued from its checkpoint or
 * started again: src/ui/train/interrupted-plan.ts) or discarded. The record itself is the worker's
 * (train-service.ts): it is replaced as soon as the resumed run writes its own.
 */
import type { StateCreator } from 'zustand';
import { nextSpeedPoints, type SpeedPoint } from '../train/live-speed.ts';
import { DEFAULT_TRAIN_CONFIG, type EvalPoint, type StepMetrics, type TraceEntry, type TrainAlgo, type TrainConfig, type TrainProgress } from '../../train/types.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import { READS_TASK_LABEL, type ActiveRunRecord, type AdapterInfo, type CheckpointInfo, type ReadsDefaults, type ReadsEvent, type ReadsResult, type TrainEvent, type TrainPhase } from '../../workers/train-protocol.ts';
import { DEFAULT_TRAIN_SETTINGS, patchSettings, readTrainSettings, resetSettings, withSettings, type TrainSettings } from '../train/shared-settings.ts';
import { interruptedPlan } from '../train/interrupted-plan.ts';
import { errorText } from './datasets-slice.ts';
import type { AppState, Middlewares } from './store.ts';

/** The Train form; every field persists. */
export interface TrainForm {
  algo: TrainAlgo;
  /**
   * The settings both algorithms share and each one's own. A stored form may lack it (written before the split) or
   * lack newer fields: read it through `readTrainSettings`, which also migrates `configs`.
   */
  settings?: TrainSettings;
  /** The old shape (one whole config per algorithm): migrated when read, dropped by the next edit. */
  configs?: unknown;
  /** Start from this saved adapter; '' = a fresh one. */
  initAdapterId: string;
  /** Name of the adapter the next run makes ('' = the worker's default); cleared when a run starts. */
  adapterName: string;
}

/**
 * What the Train view trains: the header's dataset with the loaded model, or the toy task "learn to read" (a tiny model
 * the worker builds itself: src/workers/train-reads-session.ts). Not persisted.
 */
export type TrainTask = 'dataset' | 'reads';

/** The toy run's form: NaN = blank (a size: the run's default, filled in once read; the seed: a new one each run). */
export interface ReadsForm {
  runSeed: number;
  sftSteps: number;
  grpoSteps: number;
  sftDatabases: number;
  grpoDatabases: number;
  freshDatabases: number;
}

/** The sizes of the toy run's form (all but the seed). */
const READS_SIZES = ['sftSteps', 'grpoSteps', 'sftDatabases', 'grpoDatabases', 'freshDatabases'] as const;

export const BLANK_READS_FORM: ReadsForm = { runSeed: Number.NaN, sftSteps: Number.NaN, grpoSteps: Number.NaN, sftDatabases: Number.NaN, grpoDatabases: Number.NaN, freshDatabases: Number.NaN };

/** Traces kept on screen (the newest): each holds a whole episode's text. */
export const MAX_TRACES = 30;

export interface TrainRunView {
  /** This page's number for the run (events of an older run are dropped). */
  key: number;
  /** A run of the dataset with the loaded model, or the toy task (its stage sets `algo` and `totalSteps`). */
  task: TrainTask;
  /** The toy run's measures, once it has finished (null otherwise). */
  readsResult: ReadsResult | null;
  /** The worker's id of the run (from its checkpoints); null until known. */
  runId: string | null;
  dataset: string;
  algo: TrainAlgo;
  totalSteps: number;
  phase: TrainPhase;
  phaseMessage: string | null;
  /** Loading progress while `phase` is 'loading'. */
  loaded: { loaded: number; total: number } | null;
  metrics: StepMetrics[];
  evals: EvalPoint[];
  /** Newest first. */
  traces: TraceEntry[];
  error: { message: string; suggestion?: Partial<TrainConfig> } | null;
  /** What the run is doing now (the latest 'progress' event); null before the first. */
  progress: TrainProgress | null;
  /** When that event arrived (ms, `Date.now()`): the activity's clock ticks on from it (run-headline.ts). */
  progressAtMs: number;
  /** A control clicked and not yet carried out (shown at once as "Stopping…" / "Pausing…" / "Resuming…"). */
  pending: 'stop' | 'pause' | 'resume' | null;
  /** When the run started on this page (ms, `Date.now()`): the x origin of `speed`. */
  startedAtMs: number;
  /** Generation speed while the run works (live-speed.ts): the first chart point, within seconds of the first tokens. */
  speed: readonly SpeedPoint[];
}

export interface TrainSlice {
  trainForm: TrainForm;
  trainRun: TrainRunView | null;
  checkpoints: CheckpointInfo[] | null;
  adapters: AdapterInfo[] | null;
  /** A failure of a list, a control or an adapter action (not of the run itself). */
  trainNotice: string | null;
  /** A run an earlier page left unfinished; null when none (or not read yet). */
  interruptedRun: ActiveRunRecord | null;
  trainTask: TrainTask;
  readsForm: ReadsForm;
  /** The toy run's defaults and ceiling, read from the worker; null until read. */
  readsDefaults: ReadsDefaults | null;
  setTrainTask: (task: TrainTask) => void;
  setReadsForm: (patch: Partial<ReadsForm>) => void;
  /** Reads the toy run's defaults (once) and fills the blank sizes of the form with them. */
  readReadsDefaults: () => Promise<void>;
  /** Starts the toy run with the form's sizes (a blank seed draws a new one). */
  startReadsRun: () => Promise<void>;
  setTrainAlgo: (algo: TrainAlgo) => void;
  setTrainConfig: (patch: Partial<TrainConfig>) => void;
  resetTrainConfig: () => void;
  setTrainForm: (patch: Partial<Pick<TrainForm, 'initAdapterId' | 'adapterName'>>) => void;
  /** An adapter was deleted: a form that starts from it starts from a fresh one instead. */
  forgetInitAdapter: (adapterId: string) => void;
  /** Starts a run with `config`, already checked by the form (config-check.ts). */
  startTrainingRun: (dataset: string, config: TrainConfig) => Promise<void>;
  pauseTrainingRun: () => Promise<void>;
  resumeTrainingRun: () => Promise<void>;
  stopTrainingRun: () => Promise<void>;
  /** Puts the smaller setting an out-of-memory error suggested into the form. */
  applyTrainSuggestion: () => void;
  resumeCheckpoint: (checkpoint: CheckpointInfo) => Promise<void>;
  deleteCheckpoint: (id: string) => Promise<void>;
  /** Reads the checkpoints and adapters again (and the run the worker is running, if any). */
  refreshTrainLists: () => Promise<void>;
  setTrainNotice: (text: string | null) => void;
  /** Reads the newest interrupted run the worker holds (none while this page runs one). */
  readInterruptedRun: () => Promise<void>;
  /** Loads the run's model again where the page can, then continues it from its checkpoint or from step 0. */
  resumeInterruptedRun: () => Promise<void>;
  discardInterruptedRun: () => Promise<void>;
}

export const DEFAULT_TRAIN_FORM: TrainForm = { algo: 'grpo', settings: DEFAULT_TRAIN_SETTINGS, initAdapterId: '', adapterName: '' };

/** A run is under way in the worker: a new one may not start. */
export function runActive(run: TrainRunView | null): boolean {
  return run !== null && (run.phase === 'loading' || run.phase === 'running' || run.phase === 'paused' || run.phase === 'idle');
}

export const createTrainSlice: StateCreator<AppState, Middlewares, [], TrainSlice> = (set, get) => {
  /** Numbers this store's runs (events of an older run are dropped by it); each store counts its own. */
  let runKey = 0;
  /** Applies one event of run `key` to the run on screen. */
  function onEvent(key: number, event: ReadsEvent): void {
    const run = get().trainRun;
    if (!run || run.key !== key) return;
    switch (event.type) {
      case 'stage':
        // The toy run's next stage counts its steps from 1 again: its charts start over.
        set({ trainRun: { ...run, algo: event.algo, totalSteps: event.totalSteps, phaseMessage: event.message, metrics: [], evals: [], progress: null } });
        break;
      case 'readsResult':
        set({ trainRun: { ...run, readsResult: event.result } });
        break;
      case 'phase': {
        const ended = event.phase === 'finished' || event.phase === 'stopped' || event.phase === 'failed';
        const pending = ended || (run.pending === 'pause' && event.phase === 'paused') || (run.pending === 'resume' && event.phase !== 'paused') ? null : run.pending;
        set({ trainRun: { ...run, phase: event.phase, phaseMessage: event.message ?? null, pending, loaded: event.loaded !== undefined && event.total !== undefined ? { loaded: event.loaded, total: event.total } : null } });
        if (ended) void get().refreshTrainLists();
        break;
      }
      case 'progress':
        set({ trainRun: { ...run, progress: event.progress, progressAtMs: Date.now(), speed: nextSpeedPoints(run.speed, event.progress, (Date.now() - run.startedAtMs) / 1000) } });
        break;
      case 'step':
        set({ trainRun: { ...run, metrics: [...run.metrics, event.metrics] } });
        break;
      case 'eval':
        set({ trainRun: { ...run, evals: [...run.evals, event.point] } });
        break;
      case 'trace':
        set({ trainRun: { ...run, traces: [event.trace, ...run.traces].slice(0, MAX_TRACES) } });
        break;
      case 'checkpoint':
        set((s) => ({
          trainRun: { ...run, runId: event.checkpoint.runId },
          checkpoints: [event.checkpoint, ...(s.checkpoints ?? []).filter((c) => c.id !== event.checkpoint.id)],
        }));
        break;
      case 'error':
        set({ trainRun: { ...run, phase: 'failed', pending: null, error: { message: event.message, ...(event.suggestion && { suggestion: event.suggestion }) } } });
        void get().refreshTrainLists();
        break;
      default:
        event satisfies never;
    }
  }

  function newRun(dataset: string, config: TrainConfig, runId: string | null): TrainRunView {
    return { key: ++runKey, task: 'dataset', readsResult: null, runId, dataset, algo: config.algo, totalSteps: config.steps, phase: 'loading', phaseMessage: null, loaded: null, metrics: [], evals: [], traces: [], error: null, progress: null, progressAtMs: 0, pending: null, startedAtMs: Date.now(), speed: [] };
  }

  /** Runs a control call; its failure is a notice (the run's own failures come as events). */
  async function control(what: string, call: () => Promise<unknown>, pending?: TrainRunView['pending']): Promise<void> {
    const run = get().trainRun;
    if (pending && run) {
      if (run.pending === 'stop' || (run.pending === pending)) return; // asked already
      set({ trainRun: { ...run, pending } }); // said at once; the run's next phase event clears it
    }
    try {
      await call();
    } catch (e) {
      const now = get().trainRun;
      if (pending && now?.key === run?.key && now) set({ trainRun: { ...now, pending: null } });
      set({ trainNotice: `${what} failed: ${errorText(e)}` });
    }
  }

  /** Waits for the worker's run to end (its promise), turning a rejection into the run's error. */
  async function follow(key: number, started: () => Promise<unknown>): Promise<void> {
    // Leaving the page stops the run at once, so the worker queues no more GPU work ahead of the next page; its
    // record stays, so the next page offers to resume it.
    const onHide = () => void envClient().stopTraining({ leaving: true });
    globalThis.addEventListener?.('pagehide', onHide);
    try {
      await started();
    } catch (e) {
      const run = get().trainRun;
      if (run?.key === key && run.error === null) set({ trainRun: { ...run, phase: 'failed', pending: null, error: { message: errorText(e) } } });
      void get().refreshTrainLists();
    } finally {
      globalThis.removeEventListener?.('pagehide', onHide);
    }
  }

  return {
    trainForm: DEFAULT_TRAIN_FORM,
    trainRun: null,
    checkpoints: null,
    adapters: null,
    trainNotice: null,
    interruptedRun: null,
    trainTask: 'dataset',
    readsForm: BLANK_READS_FORM,
    readsDefaults: null,

    setTrainTask: (trainTask) => set({ trainTask }),
    setReadsForm: (patch) => set((s) => ({ readsForm: { ...s.readsForm, ...patch } })),
    readReadsDefaults: async () => {
      if (get().readsDefaults) return;
      try {
        const defaults = await envClient().readsDefaults();
        set((s) => {
          const form = { ...s.readsForm };
          for (const key of READS_SIZES) if (Number.isNaN(form[key])) form[key] = defaults[key];
          return { readsDefaults: defaults, readsForm: form };
        });
      } catch (e) {
        set({ trainNotice: `The toy task's settings could not be read: ${errorText(e)}` });
      }
    },
    startReadsRun: async () => {
      if (runActive(get().trainRun)) return;
      const form = get().readsForm;
      // A blank seed draws a new one (shown in the result), so two runs see different databases unless asked not to.
      const runSeed = Number.isNaN(form.runSeed) ? Math.floor(Math.random() * 1_000_000) : form.runSeed;
      // A blank size is left out: the worker uses the run's default.
      const sizes = Object.fromEntries(READS_SIZES.filter((key) => !Number.isNaN(form[key])).map((key) => [key, form[key]]));
      const run: TrainRunView = { ...newRun(READS_TASK_LABEL, { ...DEFAULT_TRAIN_CONFIG, algo: 'sft', steps: Number.isNaN(form.sftSteps) ? 0 : form.sftSteps }, null), task: 'reads' };
      set({ trainRun: run, trainNotice: null });
      await follow(run.key, () => envClient().startReadsTraining({ runSeed, ...sizes }, callback((event: ReadsEvent) => onEvent(run.key, event))));
    },

    // The settings are written out before the switch: an old form is migrated with the algorithm it was saved under.
    setTrainAlgo: (algo) => set((s) => ({ trainForm: { ...withSettings(s.trainForm, readTrainSettings(s.trainForm)), algo } })),
    setTrainConfig: (patch) => set((s) => ({ trainForm: withSettings(s.trainForm, patchSettings(readTrainSettings(s.trainForm), s.trainForm.algo, patch)) })),
    resetTrainConfig: () => set((s) => ({ trainForm: withSettings(s.trainForm, resetSettings(readTrainSettings(s.trainForm), s.trainForm.algo)) })),
    setTrainForm: (patch) => set((s) => ({ trainForm: { ...s.trainForm, ...patch } })),
    forgetInitAdapter: (adapterId) => set((s) => (s.trainForm.initAdapterId === adapterId ? { trainForm: { ...s.trainForm, initAdapterId: '' } } : {})),

    startTrainingRun: async (dataset, config) => {
      if (runActive(get().trainRun)) return;
      const { initAdapterId, adapterName } = get().trainForm;
      const run = newRun(dataset, config, null);
      // The name belongs to this run's adapter: the next run gets the worker's default unless named again.
      set((s) => ({ trainRun: run, trainNotice: null, trainForm: { ...s.trainForm, adapterName: '' } }));
      await follow(run.key, () =>
        envClient().startTraining(
          { dataset, config, ...(initAdapterId !== '' && { initAdapterId }), ...(adapterName.trim() !== '' && { adapterName: adapterName.trim() }) },
          callback((event: TrainEvent) => onEvent(run.key, event)),
        ),
      );
    },

    pauseTrainingRun: () => control('Pausing the run', () => envClient().pauseTraining(), 'pause'),
    resumeTrainingRun: () => control('Resuming the run', () => envClient().resumeTraining(), 'resume'),
    stopTrainingRun: () => control('Stopping the run', () => envClient().stopTraining(), 'stop'),

    applyTrainSuggestion: () => {
      const suggestion = get().trainRun?.error?.suggestion;
      if (suggestion) get().setTrainConfig(suggestion);
    },

    resumeCheckpoint: async (checkpoint) => {
      if (runActive(get().trainRun)) return;
      const run = newRun(checkpoint.dataset, checkpoint.config, checkpoint.runId);
      set({ trainRun: run, trainNotice: null });
      try {
        const history = await envClient().trainHistory(checkpoint.runId);
        // Only what the checkpoint saw: later points of the old session are trained again from it.
        const upTo = <T extends { step: number }>(xs: T[]) => xs.filter((x) => x.step <= checkpoint.step);
        const current = get().trainRun;
        if (history && current?.key === run.key) {
          set({ trainRun: { ...current, metrics: upTo(history.metrics), evals: upTo(history.evals), traces: upTo(history.traces).reverse().slice(0, MAX_TRACES) } });
        }
      } catch (e) {
        set({ trainNotice: `The run's history could not be read (the charts start at the checkpoint): ${errorText(e)}` });
      }
      await follow(run.key, () => envClient().resumeFromCheckpoint(checkpoint.id, callback((event: TrainEvent) => onEvent(run.key, event))));
    },

    deleteCheckpoint: async (id) => {
      try {
        await envClient().deleteCheckpoint(id);
        set((s) => ({ checkpoints: s.checkpoints?.filter((c) => c.id !== id) ?? null }));
      } catch (e) {
        set({ trainNotice: `The checkpoint could not be deleted: ${errorText(e)}` });
      }
    },

    refreshTrainLists: async () => {
      try {
        const [checkpoints, adapters] = await Promise.all([envClient().listCheckpoints(), envClient().listAdapters()]);
        set({ checkpoints: [...checkpoints].sort((a, b) => b.savedAt - a.savedAt), adapters });
        await get().refreshPolicies();
      } catch (e) {
        set({ checkpoints: get().checkpoints ?? [], adapters: get().adapters ?? [], trainNotice: `Saved checkpoints and adapters could not be read: ${errorText(e)}` });
      }
    },

    setTrainNotice: (trainNotice) => set({ trainNotice }),

    readInterruptedRun: async () => {
      try {
        const [newest] = await envClient().interruptedTrainingRuns();
        set({ interruptedRun: newest ?? null });
      } catch (e) {
        set({ trainNotice: `Interrupted runs could not be read: ${errorText(e)}` });
      }
    },

    discardInterruptedRun: async () => {
      const record = get().interruptedRun;
      if (!record) return;
      set({ interruptedRun: null });
      try {
        await envClient().discardInterruptedRun(record.runId);
      } catch (e) {
        set({ trainNotice: `The interrupted run could not be discarded: ${errorText(e)}` });
      }
    },

    resumeInterruptedRun: async () => {
      const state = get();
      const record = state.interruptedRun;
      if (!record || runActive(state.trainRun)) return;
      const plan = interruptedPlan(record, state.modelInfo?.label ?? null);
      if (!plan.canResume) return;
      if (plan.model.kind === 'load' && record.source && record.source.kind !== 'files') {
        await get().loadModelWithSettings(record.source, record.modelSettings ?? {});
        const { modelInfo, modelError } = get();
        if ((modelInfo?.label ?? null) !== record.model) {
          set({ trainNotice: `${record.model} could not be loaded again${modelError ? `: ${modelError}` : ''}. Load it in Watch’s Model panel, then resume.` });
          return;
        }
      }
      set({ interruptedRun: null });
      if (plan.from === 'checkpoint') {
        const checkpoint = (await envClient().listCheckpoints()).find((c) => c.id === record.checkpointId);
        if (checkpoint) return get().resumeCheckpoint(checkpoint);
        set({ trainNotice: `The checkpoint of step ${record.checkpointStep} is gone (deleted, or the browser cleared its storage): the run starts again from step 0.` });
      }
      await envClient().discardInterruptedRun(record.runId);
      return get().startTrainingRun(record.request.dataset, record.request.config);
    },
  };
};

/** The part of this slice that persists across reloads: the form. */
export const persistedTrain = (s: AppState): Pick<TrainSlice, 'trainForm'> => ({ trainForm: s.trainForm });
