/**
 * State of the Play view: one episode played by hand in the environment worker's `play` session.
 *
 * How to think about it: `playBusy` is the lock. Starting an episode and taking a step each set it synchronously
 * before their first await and clear it when done, so two steps never run at once, whatever the buttons and
 * shortcuts do. A step that runs past the SQL time limit comes back as an ordinary observation (the worker below
 * restarts); only a failure of the worker itself becomes `playError`. Episode ids count up, so a late answer from
 * an episode that was replaced is dropped. Only `playPrefs` (split and difficulty of new episodes) persists; the
 * episode itself is reopened from the deep link.
 */
import type { StateCreator } from 'zustand';
import type { Difficulty, Question, SplitSelector } from '../../data/types.ts';
import type { Action } from '../../env/actions.ts';
import { transcriptStep, type TranscriptStep } from '../../eval/transcript.ts';
import type { TableInfo } from '../../sql/types.ts';
import { envClient } from '../../workers/env-client.ts';
import type { QuestionSummary } from '../../workers/env-protocol.ts';
import { readAnswer, seenColumns } from '../play/answer-table.ts';
import { tableAction } from '../play/table-action.ts';
import { errorText } from './datasets-slice.ts';
import type { AppState, Middlewares } from './store.ts';

/** The environment worker's session id for Play (Watch uses its own). */
export const PLAY_SESSION = 'play';

export interface PlayRequest {
  dataset: string;
  /** Plays this question; otherwise one is drawn with `seed` from the split and difficulty. */
  questionId?: string;
  /** Drawn by the environment (and reported) when absent. */
  seed?: number;
  split?: SplitSelector;
  difficulty?: Difficulty;
}

export interface PlayEpisode {
  /** Counts up with every episode started in this page. */
  id: number;
  dataset: string;
  seed: number;
  question: QuestionSummary;
  tables: string[];
  budget: number;
  stepsLeft: number;
  steps: TranscriptStep[];
  episodeReturn: number;
  done: boolean;
  /** The episode ended with a correct ANSWER. */
  success: boolean;
  /** The episode ended because the budget ran out. */
  truncated: boolean;
  /** The question with its gold result, fetched once the episode is over (for the end screen). */
  gold: Question | null;
}

export type PlayBusy = { kind: 'starting' } | { kind: 'step'; action: Action['type']; since: number };

export interface PlayProblem {
  title: string;
  message: string;
  /** What to do about it. */
  hint: string;
}

/** Tables and columns of the episode's database, for the editor's completion. `key` is `dataset/dbId`. */
export interface PlaySchema {
  key: string;
  tables: TableInfo[] | null;
  error?: string;
}

export interface PlayPrefs {
  split: SplitSelector;
  difficulty: Difficulty | 'any';
}

export interface PlaySlice {
  playEpisode: PlayEpisode | null;
  playBusy: PlayBusy | null;
  playError: PlayProblem | null;
  playSchema: PlaySchema | null;
  /** The table Describe and Sample act on. */
  playTable: string | null;
  /** The SQL editor's text (the editor owns the document; this mirrors it for the Query button). */
  playSql: string;
  /** The answer box's text, as typed or pasted; `playSubmitAnswer` reads it (answer-table.ts) into the ANSWER. */
  playAnswer: string;
  /** Whether the first line of a pasted table is a header: the person's choice, or null to let the reader guess. */
  playAnswerHeader: boolean | null;
  playPrefs: PlayPrefs;

  startPlayEpisode: (request: PlayRequest) => Promise<void>;
  /** Takes one step of the current episode; ignored while another runs or after the episode ended. */
  playStep: (action: Action) => Promise<void>;
  playDescribe: () => Promise<void>;
  playSample: () => Promise<void>;
  playQuery: () => Promise<void>;
  playSubmitAnswer: () => Promise<void>;
  selectPlayTable: (table: string) => void;
  setPlaySql: (sql: string) => void;
  setPlayAnswer: (answer: string) => void;
  setPlayAnswerHeader: (header: boolean | null) => void;
  setPlayPrefs: (prefs: Partial<PlayPrefs>) => void;
  dismissPlayError: () => void;
}

export const createPlaySlice: StateCreator<AppState, Middlewares, [], PlaySlice> = (set, get) => {
  /** Numbers this store's episodes (stale worker results are dropped by it); each store counts its own. */
  let episodeCounter = 0;
  /** Applies `update` to the episode if it is still episode `id`. */
  const updateEpisode = (id: number, update: (e: PlayEpisode) => Partial<PlayEpisode>): void => {
    set((s) => (s.playEpisode?.id === id ? { playEpisode: { ...s.playEpisode, ...update(s.playEpisode) } } : {}));
  };

  const loadSchema = async (dataset: string, dbId: string): Promise<void> => {
    const key = `${dataset}/${dbId}`;
    if (get().playSchema?.key === key && !get().playSchema?.error) return;
    set({ playSchema: { key, tables: null } });
    try {
      const tables = await envClient().schema(dataset, dbId);
      if (get().playSchema?.key === key) set({ playSchema: { key, tables } });
    } catch (e) {
      if (get().playSchema?.key === key) set({ playSchema: { key, tables: null, error: errorText(e) } });
    }
  };

  const loadGold = async (id: number, dataset: string, questionId: string): Promise<void> => {
    try {
      const gold = await envClient().question(dataset, questionId);
      updateEpisode(id, () => ({ gold }));
    } catch (e) {
      set({ playError: { title: 'The gold answer could not be loaded', message: errorText(e), hint: 'The episode itself is complete; start another one to retry.' } });
    }
  };

  return {
    playEpisode: null,
    playBusy: null,
    playError: null,
    playSchema: null,
    playTable: null,
    playSql: '',
    playAnswer: '',
    playAnswerHeader: null,
    playPrefs: { split: 'all', difficulty: 'any' },

    startPlayEpisode: async (request) => {
      if (get().playBusy) return;
      set({ playBusy: { kind: 'starting' }, playError: null });
      try {
        const summary = await get().loadDataset(request.dataset);
        if (!summary) throw new Error(`The dataset '${request.dataset}' is not loaded: see the message above, or pick another dataset.`);
        const options = request.questionId !== undefined
          ? { questionId: request.questionId, ...(request.seed !== undefined && { seed: request.seed }) }
          : { split: request.split ?? 'all', ...(request.difficulty && { difficulty: request.difficulty }), ...(request.seed !== undefined && { seed: request.seed }) };
        const reset = await envClient().reset(PLAY_SESSION, request.dataset, options);
        const question = summary.questions.find((q) => q.id === reset.info.questionId);
        if (!question) throw new Error(`The environment chose question '${reset.info.questionId}', which the ${request.dataset} dataset's list lacks; reload the page.`);
        const previous = get().playEpisode;
        const sameQuestion = previous?.dataset === request.dataset && previous.question.id === question.id;
        const { observation } = reset;
        set({
          playEpisode: {
            id: ++episodeCounter,
            dataset: request.dataset,
            seed: reset.info.seed,
            question,
            tables: observation.tables,
            budget: observation.stepsLeft,
            stepsLeft: observation.stepsLeft,
            steps: [],
            episodeReturn: 0,
            done: false,
            success: false,
            truncated: false,
            gold: null,
          },
          playTable: observation.tables[0] ?? null,
          // A restart of the same question keeps the drafts; a new question starts clean.
          ...(!sameQuestion && { playSql: '', playAnswer: '', playAnswerHeader: null }),
        });
        void loadSchema(request.dataset, observation.dbId);
      } catch (e) {
        set({ playError: { title: 'The episode could not be started', message: errorText(e), hint: 'Start another one above: a random question, a seed, or one picked from the list.' } });
      } finally {
        set({ playBusy: null });
      }
    },

    playStep: async (action) => {
      const episode = get().playEpisode;
      if (!episode || episode.done || get().playBusy) return;
      set({ playBusy: { kind: 'step', action: action.type, since: Date.now() }, playError: null });
      try {
        const result = await envClient().step(PLAY_SESSION, action);
        const step = transcriptStep(result);
        updateEpisode(episode.id, (e) => ({
          steps: [...e.steps, step],
          stepsLeft: result.observation.stepsLeft,
          episodeReturn: result.info.episodeReturn,
          done: result.done,
          success: result.info.terminated && result.info.correct === true,
          truncated: result.info.truncated,
        }));
        if (result.done) void loadGold(episode.id, episode.dataset, episode.question.id);
      } catch (e) {
        set({ playError: { title: `The ${action.type} step failed`, message: errorText(e), hint: 'Try the step again, or start a new episode if this keeps happening.' } });
      } finally {
        set({ playBusy: null });
      }
    },

    // The table name goes quoted when it is not a plain identifier (table-action.ts).
    playDescribe: async () => {
      const table = get().playTable;
      if (table) await get().playStep(tableAction('DESCRIBE', table));
    },
    playSample: async () => {
      const table = get().playTable;
      if (table) await get().playStep(tableAction('SAMPLE', table));
    },
    playQuery: async () => {
      const sql = get().playSql.trim();
      if (sql) await get().playStep({ type: 'QUERY', sql });
    },
    playSubmitAnswer: async () => {
      const { playAnswer, playAnswerHeader, playEpisode } = get();
      const reading = readAnswer(playAnswer, { header: playAnswerHeader, knownColumns: seenColumns(playEpisode?.steps ?? []) });
      if (reading.kind !== 'empty') await get().playStep({ type: 'ANSWER', value: reading.answer });
    },

    selectPlayTable: (playTable) => set({ playTable }),
    setPlaySql: (playSql) => set({ playSql }),
    // Clearing the box forgets the header choice, so the next paste is guessed afresh.
    setPlayAnswer: (playAnswer) => set(playAnswer.trim() === '' ? { playAnswer, playAnswerHeader: null } : { playAnswer }),
    setPlayAnswerHeader: (playAnswerHeader) => set({ playAnswerHeader }),
    setPlayPrefs: (prefs) => set((s) => ({ playPrefs: { ...s.playPrefs, ...prefs } })),
    dismissPlayError: () => set({ playError: null }),
  };
};

/** The part of this slice that persists across reloads: how new episodes are drawn. */
export const persistedPlay = (s: AppState): Pick<PlaySlice, 'playPrefs'> => ({ playPrefs: s.playPrefs });
