/**
 * State of the Evaluate view: the form (persisted), the run in progress, the saved runs (IndexedDB, through
 * src/eval/run-store.ts, which the Compare view reads too) and the run shown with its open episode.
 *
 * How to think about a run: `startEvaluation` asks the environment worker to `evaluate` (the page never plays an
 * episode itself), receives progress through a Comlink callback, then saves the report as a run and shows it. A run
 * that cannot be saved (storage full) is still shown, marked unsaved, with the reason. `cancelEvaluation` asks the
 * worker to abort; the worker's evaluate then rejects with a CancelledError, which ends the run as cancelled. Progress
 * moves within an episode too: the worker reports each step and a model policy's tokens (`current`).
 */
import type { StateCreator } from 'zustand';
import type { SplitSelector } from '../../data/types.ts';
import type { GenerationRecord } from '../../eval/transcript.ts';
import type { PolicyInfo } from '../../policies/registry.ts';
import { deleteRun, listRuns, loadRun, saveRun, StorageFullError, summaryOf, type RunSummary, type SavedRun } from '../../eval/run-store.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { LoadedModelInfo, StepProgress } from '../../workers/env-protocol.ts';
import { plural } from '../components/plural.ts';
import { errorText } from './datasets-slice.ts';
import { liveStep, type LiveStep } from './live-step.ts';
import { choosePolicy, isModelPolicy } from './policy-choice.ts';
import type { AppState, Middlewares } from './store.ts';
import { isCancelled } from '../../util/cancelled.ts';

/** The form of the Evaluate view; every field persists. */
export interface EvaluateForm {
  policy: string;
  split: SplitSelector;
  /** Episodes to play when `allQuestions` is off. */
  episodes: number;
  /** Play every question of the split once, in dataset order. */
  allQuestions: boolean;
  seed: number;
}

export interface EvalProgress {
  runId: string;
  dataset: string;
  policy: string;
  done: number;
  /** Episodes in the run; null until the worker's first report (it resolves 'all'). */
  total: number | null;
  /** `performance.now()` when the run started, in milliseconds. */
  startedAt: number;
  /** `performance.now()` at the latest report of an episode's end (or the start). */
  updatedAt: number;
  /** The episode in play: its step and the tokens generated so far (null between episodes). */
  current: LiveStep | null;
  /** `performance.now()` when the episode in play started (its first step). */
  episodeStartedAt: number | null;
  cancelling: boolean;
}

export interface EvalMessage {
  kind: 'error' | 'info';
  text: string;
}

/**
 * Turns a loaded model played on this page (Evaluate runs, Watch steps), the measure of its speed here for the
 * estimates shown before a run (run-estimate.ts). `modelKey` names the model they were played with: turns of another
 * model (or weight format, or GPU adapter) are dropped when it changes.
 */
export interface ModelTurns {
  modelKey: string;
  /** The latest turns, at most MAX_MODEL_TURNS. */
  records: GenerationRecord[];
}

/** Turns kept for the speed measure (the latest; a median over them is steady). */
export const MAX_MODEL_TURNS = 64;

/** Episodes Evaluate proposes for a model policy opened from elsewhere (an adapter's Evaluate): a look, not hours. */
export const MODEL_RUN_EPISODES = 3;

/** Which loaded model a speed belongs to: its name, decode weights and GPU adapter (an adapter on it barely matters). */
export function modelKey(info: Pick<LoadedModelInfo, 'label' | 'weights' | 'adapter' | 'layers' | 'hidden'>): string {
  return `${info.label}|${info.weights}|${info.adapter}|${info.layers}x${info.hidden}`;
}

/** A run on screen: one loaded from storage, or one just made that could not be saved. */
export interface ShownRun {
  run: SavedRun;
  saved: boolean;
}

export interface EvaluateSlice {
  evalForm: EvaluateForm;
  evalProgress: EvalProgress | null;
  evalMessage: EvalMessage | null;
  /** Why the form's policy changed by itself (the chosen one is gone); null when it did not. */
  evalPolicyNotice: string | null;
  /** Saved runs, newest first; null until listed. */
  savedRuns: RunSummary[] | null;
  savedRunsError: string | null;
  shownRun: ShownRun | null;
  /** Id of the saved run on screen (persisted, so a reload shows it again). */
  shownRunId: string | null;
  /** Index in the shown run's records of the episode whose transcript is open. */
  openEpisode: number | null;
  /** This page's measure of the loaded model's speed (null before any model turn was played). */
  modelTurns: ModelTurns | null;
  setEvalForm: (patch: Partial<EvaluateForm>) => void;
  /**
   * Opens the form on a model policy with a small run (MODEL_RUN_EPISODES episodes at most, not every question of
   * the split), so an adapter's Evaluate button never proposes hours; the estimate beside the form says how long.
   */
  chooseModelEvaluation: (policy: string) => void;
  /** A link's policy: chosen when `infos` lists it, else Oracle with the notice saying why (policy-choice.ts). */
  chooseLinkedEvalPolicy: (policy: string, infos: PolicyInfo[]) => void;
  /** Adds turns played by the model `modelKey` names (the turns of another model are dropped). */
  noteModelTurns: (modelKey: string, records: readonly GenerationRecord[]) => void;
  loadSavedRuns: () => Promise<void>;
  startEvaluation: (dataset: string) => Promise<void>;
  cancelEvaluation: () => void;
  showRun: (id: string) => Promise<void>;
  deleteSavedRun: (id: string) => Promise<void>;
  setOpenEpisode: (index: number | null) => void;
  dismissEvalMessage: () => void;
}

export const DEFAULT_EVALUATE_FORM: EvaluateForm = { policy: 'oracle', split: 'eval', episodes: 20, allQuestions: false, seed: 0 };

/** A run id unique in this browser's storage (no secure context needed, unlike crypto.randomUUID). */
function newRunId(): string {
  return `run-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 6).toString(36)}`;
}

export const createEvaluateSlice: StateCreator<AppState, Middlewares, [], EvaluateSlice> = (set, get) => ({
  evalForm: DEFAULT_EVALUATE_FORM,
  evalProgress: null,
  evalMessage: null,
  evalPolicyNotice: null,
  savedRuns: null,
  savedRunsError: null,
  shownRun: null,
  shownRunId: null,
  openEpisode: null,
  modelTurns: null,

  setEvalForm: (patch) => set((s) => ({ evalForm: { ...s.evalForm, ...patch }, ...(patch.policy !== undefined && { evalPolicyNotice: null }) })),

  chooseLinkedEvalPolicy: (policy, infos) => {
    const choice = choosePolicy(policy, infos);
    set((s) => ({ evalForm: { ...s.evalForm, policy: choice.policy }, evalPolicyNotice: choice.notice }));
  },
  chooseModelEvaluation: (policy) =>
    set((s) => ({ evalForm: { ...s.evalForm, policy, allQuestions: false, episodes: Math.min(s.evalForm.episodes, MODEL_RUN_EPISODES) }, evalPolicyNotice: null })),

  noteModelTurns: (key, records) => {
    if (records.length === 0) return;
    set((s) => {
      const kept = s.modelTurns?.modelKey === key ? s.modelTurns.records : [];
      return { modelTurns: { modelKey: key, records: [...kept, ...records].slice(-MAX_MODEL_TURNS) } };
    });
  },

  loadSavedRuns: async () => {
    try {
      set({ savedRuns: await listRuns(), savedRunsError: null });
    } catch (e) {
      set({ savedRuns: [], savedRunsError: `Saved runs could not be read from this browser's storage: ${errorText(e)}` });
    }
  },

  startEvaluation: async (dataset) => {
    if (get().evalProgress) return;
    const form = get().evalForm;
    const runId = newRunId();
    const model = isModelPolicy(form.policy) ? get().modelInfo : null;
    const startedAt = performance.now();
    set({ evalProgress: { runId, dataset, policy: form.policy, done: 0, total: form.allQuestions ? null : form.episodes, startedAt, updatedAt: startedAt, current: null, episodeStartedAt: null, cancelling: false }, evalMessage: null });
    const onProgress = (done: number, total: number, current: StepProgress | null = null) =>
      set((s) => {
        const progress = s.evalProgress;
        if (progress?.runId !== runId) return {};
        const now = performance.now();
        if (current === null) return { evalProgress: { ...progress, total, current: null, episodeStartedAt: null, ...(done !== progress.done && { done, updatedAt: now }) } };
        const episodeStartedAt = progress.episodeStartedAt ?? now;
        return { evalProgress: { ...progress, done, total, current: liveStep(progress.current, current, now), episodeStartedAt } };
      });
    let run: SavedRun;
    try {
      const report = await envClient().evaluate(
        { runId, dataset, policy: form.policy, split: form.split, episodes: form.allQuestions ? 'all' : form.episodes, seed: form.seed },
        callback(onProgress),
      );
      const { records } = report;
      // The run's turns measure the model's speed, if the model it started with is still the one loaded.
      if (model && get().modelInfo === model) get().noteModelTurns(modelKey(model), records.flatMap((r) => r.transcript.flatMap((t) => (t.generation ? [t.generation] : []))));
      run = { summary: summaryOf(report, runId, Date.now(), Math.round(performance.now() - startedAt)), records };
    } catch (e) {
      const done = get().evalProgress?.done ?? 0;
      set({
        evalProgress: null,
        evalMessage: isCancelled(e) ? { kind: 'info', text: `Evaluation cancelled after ${plural(done, 'episode')}; nothing was saved.` } : { kind: 'error', text: `The evaluation failed: ${errorText(e)}` },
      });
      return;
    }
    set({ evalProgress: null, shownRun: { run, saved: false }, shownRunId: null, openEpisode: null });
    try {
      await saveRun(run);
      set((s) => ({ shownRun: s.shownRun?.run === run ? { run, saved: true } : s.shownRun, shownRunId: s.shownRun?.run === run ? run.summary.id : s.shownRunId }));
      await get().loadSavedRuns();
    } catch (e) {
      const reason = e instanceof StorageFullError ? e.message : `The run could not be saved: ${errorText(e)}.`;
      set({ evalMessage: { kind: 'error', text: `${reason} Its results stay below until you leave the page: export them to keep them.` } });
    }
  },

  cancelEvaluation: () => {
    const progress = get().evalProgress;
    if (!progress || progress.cancelling) return;
    set({ evalProgress: { ...progress, cancelling: true } });
    void envClient().cancelEvaluation(progress.runId);
  },

  showRun: async (id) => {
    if (get().shownRun?.run.summary.id === id) return;
    try {
      const run = await loadRun(id);
      if (!run) {
        set({ shownRunId: null, shownRun: null, openEpisode: null });
        return;
      }
      set({ shownRun: { run, saved: true }, shownRunId: id, openEpisode: null });
    } catch (e) {
      set({ evalMessage: { kind: 'error', text: `The run could not be read: ${errorText(e)}` } });
    }
  },

  deleteSavedRun: async (id) => {
    try {
      await deleteRun(id);
      set((s) => ({
        savedRuns: s.savedRuns?.filter((r) => r.id !== id) ?? null,
        ...(s.shownRun?.run.summary.id === id && { shownRun: null, shownRunId: null, openEpisode: null }),
      }));
    } catch (e) {
      set({ evalMessage: { kind: 'error', text: `The run could not be deleted: ${errorText(e)}` } });
    }
  },

  setOpenEpisode: (index) => set({ openEpisode: index }),
  dismissEvalMessage: () => set({ evalMessage: null }),
});

/** The part of this slice that persists across reloads: the form and which saved run is on screen. */
export const persistedEvaluate = (s: AppState): Pick<EvaluateSlice, 'evalForm' | 'shownRunId'> => ({ evalForm: s.evalForm, shownRunId: s.shownRunId });
