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
 * `policyInfos` (the policies the worker offers) lives here and is shared with the Evaluate view.
 */
import type { StateCreator } from 'zustand';
import type { Difficulty, Question, SplitSelector } from '../../data/types.ts';
import type { TranscriptStep } from '../../eval/transcript.ts';
import type { PolicyInfo } from '../../policies/registry.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { LoadedModelInfo } from '../../workers/env-protocol.ts';
import type { LlmLoadProgress, LlmSource } from '../../workers/llm-generate.ts';
import { errorText } from './datasets-slice.ts';
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
  watchError: string | null;
  /** Policies the worker offers (Random, Oracle, and model policies later); null until loaded. */
  policyInfos: PolicyInfo[] | null;
  loadPolicyInfos: () => Promise<PolicyInfo[]>;
  setWatchOptions: (patch: Partial<WatchOptions>) => void;
  /** Resets the Watch session on `dataset` with the current options; the episode starts paused. */
  startWatchEpisode: (dataset: string) => Promise<void>;
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
  /** Loads a model in the worker; on success its policy is listed and chosen in Watch. */
  loadModel: (source: LlmSource, maxNewTokens: number) => Promise<void>;
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
    set({ watchBusy: true });
    try {
      const { result, step } = await serial(() => envClient().policyStep(WATCH_SESSION));
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
      set({ watchBusy: false });
    }
  }

  return {
    watchOptions: DEFAULT_WATCH_OPTIONS,
    watchEpisode: null,
    watchStatus: 'idle',
    watchBusy: false,
    watchError: null,
    policyInfos: null,

    loadPolicyInfos: () => {
      policiesLoading ??= envClient()
        .policies()
        .then((infos) => {
          // A saved choice of a model policy outlives the model (it is not kept across reloads): fall back to Oracle.
          const known = (name: string): boolean => infos.some((p) => p.name === name);
          set((s) => ({
            policyInfos: infos,
            ...(!known(s.watchOptions.policy) && { watchOptions: { ...s.watchOptions, policy: 'oracle' } }),
            ...(!known(s.evalForm.policy) && { evalForm: { ...s.evalForm, policy: 'oracle' } }),
          }));
          return infos;
        });
      policiesLoading.catch(() => (policiesLoading = null));
      return policiesLoading;
    },

    setWatchOptions: (patch) => set((s) => ({ watchOptions: { ...s.watchOptions, ...patch } })),

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

    loadModel: async (source, maxNewTokens) => {
      if (get().modelStatus === 'loading') return;
      set({ modelStatus: 'loading', modelError: null, modelProgress: null });
      try {
        const info = await envClient().loadModel(
          source,
          { maxNewTokens },
          callback((p: LlmLoadProgress) => set({ modelProgress: p })),
        );
        policiesLoading = null;
        await get().loadPolicyInfos();
        set((s) => ({ modelStatus: 'ready', modelInfo: info, watchOptions: { ...s.watchOptions, policy: info.policy } }));
      } catch (e) {
        set({ modelStatus: 'error', modelError: errorText(e) });
      }
    },

    watchPause: () => {
      generation++;
      if (get().watchStatus === 'playing') set({ watchStatus: 'paused' });
    },
  };
};

/** The part of this slice that persists across reloads: the form only, never an episode. */
export const persistedWatch = (s: AppState): Pick<WatchSlice, 'watchOptions'> => ({ watchOptions: s.watchOptions });
