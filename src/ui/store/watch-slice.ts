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
 * keeps each view's chosen policy when it is still listed and says so when it is not (policy-choice.ts). Watch
 * remembers a model policy that went away (`watchAwaitedPolicy`, persisted) and chooses it again when its model is
 * loaded again, so "Qwen + adapter" survives a reload.
 *
 * The policy on screen is the policy chosen: a policy is fixed when an episode is reset, so a new choice (the
 * person's, or one the list forced) restarts the episode on screen with the same question and seed
 * (`applyPolicyToScreen`); an episode still loading is reset again when it was started with another policy. Before
 * any reset the chosen policy is checked against the worker's list, so a policy that is gone never reaches the
 * worker (which would answer "Unknown policy") and the only message is the notice saying Oracle plays instead.
 *
 * While a step runs, `watchLive` says how far it got (the step, and for a model policy the tokens generated so far),
 * streamed from the worker through a Comlink callback. The model the worker holds, and the Model panel's form, are
 * model-slice.ts's. The counters, the reset in flight and the worker-call queue belong to each store (created with
 * the slice), so two stores — a test's and a page's — never share them.
 */
import type { StateCreator } from 'zustand';
import type { Difficulty, Question, SplitSelector } from '../../data/types.ts';
import type { ResetOptions } from '../../env/types.ts';
import type { TranscriptStep } from '../../eval/transcript.ts';
import type { PolicyInfo } from '../../policies/registry.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { StepProgress } from '../../workers/env-protocol.ts';
import { errorText } from './datasets-slice.ts';
import { liveStep, type LiveStep } from './live-step.ts';
import { choosePolicy } from './policy-choice.ts';
import type { AppState, Middlewares } from './store.ts';
import { SerialQueue } from '../../util/serial-queue.ts';

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
  /** A model policy chosen in Watch whose model is not loaded now: chosen again once it is listed (persisted). */
  watchAwaitedPolicy: string | null;
  /** Policies the worker offers (Random, Oracle, and model policies later); null until loaded. */
  policyInfos: PolicyInfo[] | null;
  loadPolicyInfos: () => Promise<PolicyInfo[]>;
  /**
   * Takes the worker's new policy list: Watch's and Evaluate's choices stay when still listed, fall back to Oracle
   * with a notice when not; `loadedModel` (a model just loaded) is chosen unless a policy on it is chosen already;
   * Watch's awaited policy is chosen as soon as it is listed. When Watch's choice changes, the episode on screen
   * follows it (restarted on the same question and seed).
   */
  applyPolicyList: (infos: PolicyInfo[], loadedModel?: string) => void;
  /**
   * Asks the worker for its policy list again (a model or adapter came or went) and takes it (`applyPolicyList`):
   * `loadedModel`, the policy of a model just loaded, is chosen in Watch unless a policy on it is chosen already.
   */
  refreshPolicies: (loadedModel?: string) => Promise<void>;
  /**
   * Changes the form. A new `policy` is the person's choice: it forgets the awaited policy and its notice, and applies
   * to the episode on screen at once (restarted with the same question and seed).
   */
  setWatchOptions: (patch: Partial<WatchOptions>) => void;
  /**
   * Resets the Watch session on `dataset` with the current options, after `patch` (a link's question, seed and
   * policy) if given; the episode starts paused.
   */
  startWatchEpisode: (dataset: string, patch?: Partial<WatchOptions>) => Promise<void>;
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
}

/** The Watch view's session in the environment service. */
export const WATCH_SESSION = 'watch';

export const DEFAULT_WATCH_OPTIONS: WatchOptions = { policy: 'oracle', mode: 'random', questionId: '', difficulty: 'easy', split: 'all', seed: 1, delayMs: 700 };

/** Where an episode's reset aims: the dataset and the environment's reset options (a question by id, or drawn). */
interface EpisodeTarget {
  dataset: string;
  reset: ResetOptions;
}

/** The reset options the form names. */
function resetOptionsOf(options: WatchOptions): ResetOptions {
  if (options.mode === 'id') {
    if (options.questionId.trim() === '') throw new RangeError('Enter a question id, or pick the question at random.');
    return { questionId: options.questionId.trim(), seed: options.seed };
  }
  return { seed: options.seed, split: options.split, ...(options.mode === 'difficulty' && { difficulty: options.difficulty }) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const createWatchSlice: StateCreator<AppState, Middlewares, [], WatchSlice> = (set, get) => {
  let policiesLoading: Promise<PolicyInfo[]> | null = null;
  /** Bumped by every play loop, pause and reset: a loop stops as soon as it is no longer the newest. */
  let generation = 0;
  /** The newest episode's key: results of an older reset or step are dropped. */
  let episodeKey = 0;
  /** The reset in flight (the newest), and the policy it plays: null until the policy list has been checked. */
  let pending: { target: EpisodeTarget; policy: string | null } | null = null;
  const queue = new SerialQueue();

  /** Runs worker calls one after another, in the order they were asked for. */
  function serial<T>(task: () => Promise<T>): Promise<T> {
    return queue.run(task);
  }

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

  /**
   * Takes a new policy list: Watch's and Evaluate's choices (policy-choice.ts). True when Watch's chosen policy
   * changed, so the episode on screen must follow.
   */
  function settlePolicies(infos: PolicyInfo[], loadedModel?: string): boolean {
    policiesLoading = Promise.resolve(infos);
    const before = get().watchOptions.policy;
    set((s) => {
      const watch = choosePolicy(s.watchOptions.policy, infos, loadedModel, s.watchAwaitedPolicy);
      const evaluate = choosePolicy(s.evalForm.policy, infos);
      return {
        policyInfos: infos,
        watchOptions: watch.policy === s.watchOptions.policy ? s.watchOptions : { ...s.watchOptions, policy: watch.policy },
        watchAwaitedPolicy: watch.awaited,
        evalForm: evaluate.policy === s.evalForm.policy ? s.evalForm : { ...s.evalForm, policy: evaluate.policy },
        watchPolicyNotice: watch.notice ?? (watch.policy === s.watchOptions.policy ? s.watchPolicyNotice : null),
        evalPolicyNotice: evaluate.notice ?? s.evalPolicyNotice,
      };
    });
    return get().watchOptions.policy !== before;
  }

  /**
   * Makes the episode on screen play the chosen policy: an episode played (or being reset) with another policy is
   * reset again on the same question and seed, so the link, the form and the transcript name one policy.
   */
  function applyPolicyToScreen(): void {
    const { watchOptions, watchStatus, watchEpisode: episode } = get();
    const policy = watchOptions.policy;
    if (watchStatus === 'loading') {
      // A reset that has not read the policy yet will read this one; one that has, with another, is redone.
      if (pending && pending.policy !== null && pending.policy !== policy) void begin(pending.target);
      return;
    }
    if (episode && episode.policy !== policy) void begin({ dataset: episode.dataset, reset: { questionId: episode.question.id, seed: episode.seed } });
  }

  /** Resets the Watch session at `target` with the chosen policy (checked against the worker's list first). */
  async function begin(target: EpisodeTarget): Promise<void> {
    generation++;
    const key = ++episodeKey;
    const mine: { target: EpisodeTarget; policy: string | null } = { target, policy: null };
    pending = mine;
    set({ watchStatus: 'loading', watchError: null });
    try {
      settlePolicies(await get().loadPolicyInfos());
      if (key !== episodeKey) return;
      const policy = get().watchOptions.policy;
      mine.policy = policy;
      const reset = await serial(() => envClient().reset(WATCH_SESSION, target.dataset, target.reset, policy));
      const question = await envClient().question(target.dataset, reset.info.questionId);
      if (key !== episodeKey) return;
      pending = null;
      set({
        watchStatus: 'paused',
        watchEpisode: {
          key,
          dataset: target.dataset,
          policy,
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
      // The choice changed while the reset was in flight (and that reset was not redone): follow it now.
      if (get().watchOptions.policy !== policy) applyPolicyToScreen();
    } catch (e) {
      if (key !== episodeKey) return;
      pending = null;
      set({ watchStatus: 'idle', watchEpisode: null, watchError: errorText(e) });
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
    watchAwaitedPolicy: null,
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
      if (settlePolicies(infos, loadedModel)) applyPolicyToScreen();
    },

    refreshPolicies: async (loadedModel) => {
      get().applyPolicyList(await envClient().policies(), loadedModel);
    },

    setWatchOptions: (patch) => {
      set((s) => ({ watchOptions: { ...s.watchOptions, ...patch }, ...(patch.policy !== undefined && { watchPolicyNotice: null, watchAwaitedPolicy: null }) }));
      if (patch.policy !== undefined) applyPolicyToScreen();
    },

    newWatchEpisode: async (dataset) => {
      const { watchOptions: options, watchEpisode: episode } = get();
      const drawn = options.mode !== 'id';
      const seed = drawn && episode && episode.dataset === dataset && episode.seed === options.seed ? options.seed + 1 : options.seed;
      await get().startWatchEpisode(dataset, { seed });
    },

    startWatchEpisode: async (dataset, patch) => {
      if (patch) set((s) => ({ watchOptions: { ...s.watchOptions, ...patch }, ...(patch.policy !== undefined && { watchPolicyNotice: null, watchAwaitedPolicy: null }) }));
      let reset: ResetOptions;
      try {
        reset = resetOptionsOf(get().watchOptions);
      } catch (e) {
        generation++;
        episodeKey++;
        pending = null;
        set({ watchStatus: 'idle', watchEpisode: null, watchError: errorText(e) });
        return;
      }
      await begin({ dataset, reset });
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

    watchPause: () => {
      generation++;
      if (get().watchStatus === 'playing') set({ watchStatus: 'paused' });
    },
  };
};

/** The part of this slice that persists across reloads: Watch's form and the policy it awaits; never an episode. */
export const persistedWatch = (s: AppState): Pick<WatchSlice, 'watchOptions' | 'watchAwaitedPolicy'> => ({
  watchOptions: s.watchOptions,
  watchAwaitedPolicy: s.watchAwaitedPolicy,
});
