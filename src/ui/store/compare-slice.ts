/**
 * State of the Compare view: which two saved runs are compared (A and B, persisted), the runs themselves (read from
 * IndexedDB through src/eval/run-store.ts, which the Evaluate view writes), the matrix filter (persisted) and the
 * question whose transcripts are open. The outcome matrix itself is derived in the view from the two runs
 * (ui/compare/outcome-matrix.ts), never stored.
 *
 * How to think about loading: `compareRuns.a` / `.b` hold the run whose id is `compareIds.a` / `.b` once read;
 * a request that finishes after the selection moved on is dropped. With nothing chosen yet, `loadCompareRuns`
 * picks the two newest runs (older as A, newer as B: a baseline then the run to compare with it).
 */
import type { StateCreator } from 'zustand';
import { listRuns, loadRun, type RunSummary, type SavedRun } from '../../eval/run-store.ts';
import { NO_FILTER, type CompareFilter } from '../compare/outcome-matrix.ts';
import { errorText } from './datasets-slice.ts';
import type { AppState, Middlewares } from './store.ts';

export type CompareSide = 'a' | 'b';

export interface CompareSlice {
  /** Saved runs, newest first; null until listed. */
  compareRunList: RunSummary[] | null;
  /** Ids of the runs compared (persisted). */
  compareIds: Record<CompareSide, string | null>;
  /** The runs, once read; null while reading or when the id names no run. */
  compareRuns: Record<CompareSide, SavedRun | null>;
  compareFilter: CompareFilter;
  /** `dataset/questionId` of the question whose transcripts are open. */
  compareOpen: string | null;
  compareError: string | null;
  /** Lists the saved runs, reads the chosen two (choosing the newest two when none are). */
  loadCompareRuns: () => Promise<void>;
  setCompareRun: (side: CompareSide, id: string | null) => Promise<void>;
  swapCompareRuns: () => void;
  setCompareFilter: (patch: Partial<CompareFilter>) => void;
  openCompareQuestion: (key: string | null) => void;
}

export const createCompareSlice: StateCreator<AppState, Middlewares, [], CompareSlice> = (set, get) => {
  async function read(side: CompareSide, id: string | null): Promise<void> {
    if (id === null) {
      set((s) => ({ compareRuns: { ...s.compareRuns, [side]: null } }));
      return;
    }
    if (get().compareRuns[side]?.summary.id === id) return;
    set((s) => ({ compareRuns: { ...s.compareRuns, [side]: null } }));
    try {
      const run = await loadRun(id);
      if (get().compareIds[side] !== id) return;
      set((s) => ({ compareRuns: { ...s.compareRuns, [side]: run }, ...(!run && { compareIds: { ...s.compareIds, [side]: null } }) }));
    } catch (e) {
      set({ compareError: `The run could not be read from this browser's storage: ${errorText(e)}` });
    }
  }

  return {
    compareRunList: null,
    compareIds: { a: null, b: null },
    compareRuns: { a: null, b: null },
    compareFilter: NO_FILTER,
    compareOpen: null,
    compareError: null,

    loadCompareRuns: async () => {
      let runs: RunSummary[];
      try {
        runs = await listRuns();
      } catch (e) {
        set({ compareRunList: [], compareError: `Saved runs could not be read from this browser's storage: ${errorText(e)}` });
        return;
      }
      const known = new Set(runs.map((r) => r.id));
      const ids = { ...get().compareIds };
      for (const side of ['a', 'b'] as const) if (ids[side] !== null && !known.has(ids[side])) ids[side] = null;
      if (ids.a === null && ids.b === null && runs.length >= 2) {
        ids.a = runs[1].id;
        ids.b = runs[0].id;
      }
      set({ compareRunList: runs, compareIds: ids, compareError: null });
      await Promise.all([read('a', ids.a), read('b', ids.b)]);
    },

    setCompareRun: async (side, id) => {
      set((s) => ({ compareIds: { ...s.compareIds, [side]: id }, compareOpen: null }));
      await read(side, id);
    },

    swapCompareRuns: () =>
      set((s) => ({
        compareIds: { a: s.compareIds.b, b: s.compareIds.a },
        compareRuns: { a: s.compareRuns.b, b: s.compareRuns.a },
        compareFilter: { ...s.compareFilter, outcome: s.compareFilter.outcome === 'onlyA' ? 'onlyB' : s.compareFilter.outcome === 'onlyB' ? 'onlyA' : s.compareFilter.outcome },
      })),

    setCompareFilter: (patch) => set((s) => ({ compareFilter: { ...s.compareFilter, ...patch } })),

    openCompareQuestion: (key) => set({ compareOpen: key }),
  };
};

/** The part of this slice that persists across reloads: which runs are compared, and the filter. */
export const persistedCompare = (s: AppState): Pick<CompareSlice, 'compareIds' | 'compareFilter'> => ({ compareIds: s.compareIds, compareFilter: s.compareFilter });
