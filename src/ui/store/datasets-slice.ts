/**
 * Dataset summaries the views share, loaded once through the environment worker. `available` lists the datasets
 * that loaded: `demo` always; `spider` when its bundle was built (`npm run data:spider`); any the Data view imported.
 */
import type { StateCreator } from 'zustand';
import { envClient } from '../../workers/env-client.ts';
import type { DatasetSummary } from '../../workers/env-protocol.ts';
import type { AppState, Middlewares } from './store.ts';

export type DatasetEntry = { status: 'loading' } | { status: 'ready'; summary: DatasetSummary } | { status: 'error'; message: string };

export interface DatasetsSlice {
  datasets: Record<string, DatasetEntry>;
  /** Loads a bundle by name (once); resolves to its summary, or null when it could not be loaded. */
  loadDataset: (name: string) => Promise<DatasetSummary | null>;
  /** Records a dataset registered with the worker by another path (import, free play). */
  datasetAdded: (summary: DatasetSummary) => void;
  datasetRemoved: (name: string) => void;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const createDatasetsSlice: StateCreator<AppState, Middlewares, [], DatasetsSlice> = (set, get) => ({
  datasets: {},
  loadDataset: async (name) => {
    const existing = get().datasets[name];
    if (existing?.status === 'ready') return existing.summary;
    set((s) => ({ datasets: { ...s.datasets, [name]: { status: 'loading' } } }));
    try {
      const summary = await envClient().loadDataset(name);
      set((s) => ({ datasets: { ...s.datasets, [name]: { status: 'ready', summary } } }));
      return summary;
    } catch (e) {
      set((s) => ({ datasets: { ...s.datasets, [name]: { status: 'error', message: errorText(e) } } }));
      return null;
    }
  },
  datasetAdded: (summary) => set((s) => ({ datasets: { ...s.datasets, [summary.name]: { status: 'ready', summary } } })),
  datasetRemoved: (name) =>
    set((s) => {
      const { [name]: _removed, ...rest } = s.datasets;
      return { datasets: rest, dataset: s.dataset === name ? 'demo' : s.dataset };
    }),
});
