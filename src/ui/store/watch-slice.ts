/**
 * State of the Watch view: which policy plays which question (the form, persisted), the episode being watched, and
 * the playback state. The policy runs in the environment worker (`reset` with a policy, then `policyStep`), so a
 * step here is one round trip that returns the transcript step the policy played.
 *
 * How to think about playback: `watchStatus` is the one truth ('loading' → 'paused' ⇄ 'playing' → 'done'). The play
 * loop is an async action that stops as soon as the status is no longer 'playing' or a newer loop started
 * (`generation`). Every worker call of this slice goes through `serial`, so a reset never overtakes a step that is
 * still running in the worker, and a result that arrives for an older episode is dropped (`episodeKey`).
 *
 * `policyInfos` (the policies the worker offers) lives here and is shared with the Evaluate view; `applyPolicyList`
 * keeps each view's chosen policy when it is still listed and says so when it is not (policy-choice.ts).
 *
 * While a step runs, `watchLive` says how far it got (the step, and for a model policy the tokens generated so far),
 * streamed from the worker through a Comlink callback. The Model panel's form (source and settings, never the
 * weights) and the model loaded last persist here too (model-form.ts).
 */
import type { StateCreator } from 'zustand';
import type { Difficulty, Question, SplitSelector } from '../../data/types.ts';
import type { TranscriptStep } from '../../eval/transcript.ts';
import type { PolicyInfo } from '../../policies/registry.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { LoadedModelInfo, StepProgress } from '../../workers/env-protocol.ts';
import type { LlmLoadProgress } from '../../workers/llm-generate.ts';
import { errorText } from './datasets-slice.ts';
import { liveStep, type LiveStep } from './live-step.ts';
import { completeModelForm, DEFAULT_MODEL_FORM, type LastModel, type ModelForm } from './model-form.ts';
import { choosePolicy } from './policy-choice.ts';
import type { AppState, Middlewares } from './store.ts';

/** How Watch picks a question: drawn from the split by the seed, by its id, or drawn from one difficulty. */
export type WatchQuestionMode = 'random' | 'id' | 'difficulty';
export type WatchStatus = 'idle' | 'loading' | 'paused' | 'playing' | 'done';

/** The form of the Watch view; every field persists. */
export interface WatchOptions {
  policy: string;
  mode: WatchQuestionMode;
  questionId: string;
  difficulty: Difficulty;
  split: SplitSelector;
  /** Seeds the question draw and the policy's generator (as Evaluate seeds each episode). */
  seed: number;
  /** Pause between two steps while playing, in milliseconds (0: as fast as the worker answers). */
  delayMs: number;
}

export interface WatchEpisode {
  /** Identifies this episode among the ones this page has started (stale results are dropped by it). */
  key: number;
  dataset: string;
  policy: string;
  seed: number;
  /** The question with its gold answer (shown only once the episode is over). */
  question: Question;
  budget: number;
  stepsLeft: number;
  steps: TranscriptStep[];
  done: boolean;
  success: boolean;
  truncated: boolean;
}

export interface WatchSlice {
  watchOptions: WatchOptions;
  watchEpisode: WatchEpisode | null;
  watchStatus: WatchStatus;
  /** A step is running in the worker. */
  watchBusy: boolean;
  /** How far the running step got (null when none runs, or before the worker's first report). */
  watchLive: LiveStep | null;
  watchError: string | null;
  /** Why Watch's policy changed by itself (the chosen one is gone); null when it did not. */
  watchPolicyNotice: string | null;
  /** Policies the worker offers (Random, Oracle, and model policies later); null until loaded. */
  policyInfos: PolicyInfo[] | null;
  loadPolicyInfos: () => Promise<PolicyInfo[]>;
  /**
   * Takes the worker's new policy list: Watch's and Evaluate's choices stay when still listed, fall back to Oracle
   * with a notice when not; `loadedModel` (a model just loaded) is chosen unless a policy on it is chosen already.
   */
  applyPolicyList: (infos: PolicyInfo[], loadedModel?: string) => void;
  setWatchOptions: (patch: Partial<WatchOptions>) => void;
  /** Resets the Watch session on `dataset` with the current options; the episode starts paused. */
  startWatchEpisode: (dataset: string) => Promise<void>;
  /**
   * "New episode": like `startWatchEpisode`, but a question drawn at random (or by difficulty) is drawn anew — the
   * seed moves on by one when the episode on screen was drawn with the current seed.
   */
  newWatchEpisode: (dataset: string) => Promise<void>;
  /** Plays one step of the policy (from paused). */
  watchStep: () => Promise<void>;
  /** Plays steps one after another, `delayMs` apart, until paused or done. */
  watchPlay: () => Promise<void>;
  watchPause: () => void;
  /** The language model the worker holds (its policy is `qwen`), loading state, progress and error. */
  modelInfo: LoadedModelInfo | null;
  modelStatus: 'idle' | 'loading' | 'ready' | 'error';
  modelProgress: LlmLoadProgress | null;
  modelError: string | null;
  /** The Model panel's form (persisted). */
  modelForm: ModelForm;
  /** The model loaded last, until unloaded (persisted, so the panel offers to load it again after a reload). */
  lastModel: LastModel | null;
  setModelForm: (patch: Partial<ModelForm>) => void;
}

/** The Watch view's session in the environment service. */
export const WATCH_SESSION = 'watch';

export const DEFAULT_WATCH_OPTIONS: WatchOptions = { policy: 'oracle', mode: 'random', questionId: '', difficulty: 'easy', split: 'all', seed: 1, delayMs: 700 };

let generation = 0;
let episodeKey = 0;
let queue: Promise<unknown> = Promise.resolve();

/** Runs worker calls one after another, in the order they were asked for. */
function serial<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task);
  queue = run.catch(() => undefined);
  return run;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const createWatchSlice: StateCreator<AppState, Middlewares, [], WatchSlice> = (set, get) => {
  let policiesLoading: Promise<PolicyInfo[]> | null = null;

  /** One policy step on the current episode; false when nothing was played (no episode, over, or stale). */
  async function playOne(): Promise<boolean> {
    const episode = get().watchEpisode;
    if (!episode || episode.done || get().watchBusy) return false;
    set({ watchBusy: true, watchLive: null });
    const onProgress = (p: StepProgress) => set((s) => (s.watchBusy && s.watchEpisode?.key === episode.key ? { watchLive: liveStep(s.watchLive, p, performance.now()) } : {}));
    try {
      const { result, step } = await serial(() => envClient().policyStep(WATCH_SESSION, callback(onProgress)));
      const current = get().watchEpisode;
      if (!current || current.key !== episode.key) return false;
      const done = result.done;
      set({
        watchEpisode: {
          ...current,
          steps: [...current.steps, step],
          stepsLeft: result.observation.stepsLeft,
          done,
          success: result.info.correct === true,
          truncated: result.info.truncated,
        },
        ...(done && { watchStatus: 'done' as const }),
      });
      return !done;
    } catch (e) {
      set({ watchError: `The policy's step failed: ${errorText(e)}`, watchStatus: 'paused' });
      return false;
    } finally {
      set({ watchBusy: false, watchLive: null });
    }
  }

  return {
    watchOptions: DEFAULT_WATCH_OPTIONS,
    watchEpisode: null,
    watchStatus: 'idle',
    watchBusy: false,
    watchLive: null,
    watchError: null,
    watchPolicyNotice: null,
    policyInfos: null,

    loadPolicyInfos: () => {
      policiesLoading ??= envClient()
        .policies()
        .then((infos) => {
          // A saved choice of a model policy outlives the model (it is not kept across reloads): Oracle, said so.
          get().applyPolicyList(infos);
          return infos;
        });
      policiesLoading.catch(() => (policiesLoading = null));
      return policiesLoading;
    },

    applyPolicyList: (infos, loadedModel) => {
      policiesLoading = Promise.resolve(infos);
      set((s) => {
        const watch = choosePolicy(s.watchOptions.policy, infos, loadedModel);
        const evaluate = choosePolicy(s.evalForm.policy, infos);
        return {
          policyInfos: infos,
          watchOptions: watch.policy === s.watchOptions.policy ? s.watchOptions : { ...s.watchOptions, policy: watch.policy },
          evalForm: evaluate.policy === s.evalForm.policy ? s.evalForm : { ...s.evalForm, policy: evaluate.policy },
          watchPolicyNotice: watch.notice ?? (watch.policy === s.watchOptions.policy ? s.watchPolicyNotice : null),
          evalPolicyNotice: evaluate.notice ?? s.evalPolicyNotice,
        };
      });
    },

    setWatchOptions: (patch) => set((s) => ({ watchOptions: { ...s.watchOptions, ...patch }, ...(patch.policy !== undefined && { watchPolicyNotice: null }) })),

    newWatchEpisode: async (dataset) => {
      const { watchOptions: options, watchEpisode: episode } = get();
      const drawn = options.mode !== 'id';
      if (drawn && episode && episode.dataset === dataset && episode.seed === options.seed) get().setWatchOptions({ seed: options.seed + 1 });
      await get().startWatchEpisode(dataset);
    },

    startWatchEpisode: async (dataset) => {
      generation++;
      const key = ++episodeKey;
      const options = get().watchOptions;
      set({ watchStatus: 'loading', watchError: null });
      try {
        if (options.mode === 'id' && options.questionId.trim() === '') throw new RangeError('Enter a question id, or pick the question at random.');
        const reset = await serial(() =>
          envClient().reset(
            WATCH_SESSION,
            dataset,
            options.mode === 'id'
              ? { questionId: options.questionId.trim(), seed: options.seed }
              : { seed: options.seed, split: options.split, ...(options.mode === 'difficulty' && { difficulty: options.difficulty }) },
            options.policy,
          ),
        );
        const question = await envClient().question(dataset, reset.info.questionId);
        if (key !== episodeKey) return;
        set({
          watchStatus: 'paused',
          watchEpisode: {
            key,
            dataset,
            policy: options.policy,
            seed: reset.info.seed,
            question,
            budget: reset.observation.stepsLeft,
            stepsLeft: reset.observation.stepsLeft,
            steps: [],
            done: false,
            success: false,
            truncated: false,
          },
        });
      } catch (e) {
        if (key !== episodeKey) return;
        set({ watchStatus: 'idle', watchEpisode: null, watchError: errorText(e) });
      }
    },

    watchStep: async () => {
      if (get().watchStatus !== 'paused') return;
      await playOne();
    },

    watchPlay: async () => {
      if (get().watchStatus !== 'paused') return;
      const mine = ++generation;
      set({ watchStatus: 'playing' });
      const playing = () => mine === generation && get().watchStatus === 'playing';
      while (playing()) {
        if (!(await playOne())) break;
        const delay = get().watchOptions.delayMs;
        await sleep(delay);
      }
      if (mine === generation && get().watchStatus === 'playing') set({ watchStatus: 'paused' });
    },

    modelInfo: null,
    modelStatus: 'idle',
    modelProgress: null,
    modelError: null,

    modelForm: DEFAULT_MODEL_FORM,
    lastModel: null,
    setModelForm: (patch) => set((s) => ({ modelForm: completeModelForm({ ...s.modelForm, ...patch }) })),

    watchPause: () => {
      generation++;
      if (get().watchStatus === 'playing') set({ watchStatus: 'paused' });
    },
  };
};

/** The part of this slice that persists across reloads: the forms (Watch's, the Model panel's) and the model loaded last; never an episode or weights. */
export const persistedWatch = (s: AppState): Pick<WatchSlice, 'watchOptions' | 'modelForm' | 'lastModel'> => ({ watchOptions: s.watchOptions, modelForm: s.modelForm, lastModel: s.lastModel });
