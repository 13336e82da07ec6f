/**
 * State of the Data view: the datasets made in this browser (stored in IndexedDB by the environment worker), a
 * Spider import in progress and its result, free play on a SQLite file, and the last message. Every dataset made
 * here is also registered in the shared `datasets` slice, so the header's picker and every view can use it.
 *
 * How to think about a reload: the store starts `restoreStoredDatasets` once when it is created (in a page, not in
 * tests), which asks the worker to register every stored dataset and adds each to `datasets`; the worker also finds
 * a stored dataset by name on its own, so a deep link to one works even before the restore finished.
 */
import type { StateCreator } from 'zustand';
import type { StoredDatasetInfo } from '../../data/dataset-store.ts';
import { SKIP_REASONS, type SkipReason } from '../../data/spider-report.ts';
import type { GivenFile } from '../../data/spider-source-memory.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import type { ImportProgress } from '../../workers/env-protocol.ts';
import { errorText } from './datasets-slice.ts';
import type { AppState, Middlewares } from './store.ts';
import { isCancelled } from '../../util/cancelled.ts';

export interface DataImport {
  importId: string;
  name: string;
  /** The folder's or zip's name. */
  label: string;
  progress: ImportProgress | null;
  cancelling: boolean;
}

export interface DataImportResult {
  name: string;
  source: string;
  /** Questions read over all files, and kept. */
  questions: number;
  kept: number;
  databases: number;
  skipped: Array<{ reason: SkipReason; count: number }>;
  /** Why the dataset was not stored (it then lasts until the page is closed), or null. */
  storageError: string | null;
}

export interface DataMessage {
  kind: 'error' | 'info';
  /** The part of the view it is about, where it is shown. */
  where: 'datasets' | 'import' | 'free-play';
  title: string;
  text: string;
}

export interface DataSlice {
  /** Datasets made in this browser, newest first; null until listed. */
  storedDatasets: StoredDatasetInfo[] | null;
  /** Bundles built with the app (demo, and spider when built); null until listed. */
  builtBundles: string[] | null;
  dataImport: DataImport | null;
  dataImportResult: DataImportResult | null;
  /** Name of the file being opened for free play. */
  freePlayOpening: string | null;
  dataMessage: DataMessage | null;
  /** Registers the stored datasets with the worker and the `datasets` slice (once per page). */
  restoreStoredDatasets: () => Promise<void>;
  refreshDataLists: () => Promise<void>;
  /** Why `name` cannot name a new dataset, or null. */
  checkDatasetName: (name: string) => Promise<string | null>;
  importSpiderFiles: (name: string, label: string, files: GivenFile[]) => Promise<void>;
  cancelSpiderImport: () => void;
  /** Opens a SQLite file for free play; resolves to the new dataset's name, or null when it failed (message set). */
  openForFreePlay: (name: string, file: GivenFile) => Promise<string | null>;
  removeStoredDataset: (name: string) => Promise<void>;
  showDataMessage: (message: DataMessage) => void;
  dismissDataMessage: () => void;
}

function newImportId(): string {
  return `import-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
}

export const createDataSlice: StateCreator<AppState, Middlewares, [], DataSlice> = (set, get) => {
  let restoring: Promise<void> | null = null;
  // A page restores what this browser stored as soon as the store exists (tests in Node have no Worker).
  if (typeof window !== 'undefined' && typeof Worker !== 'undefined') queueMicrotask(() => void get().restoreStoredDatasets());

  return {
    storedDatasets: null,
    builtBundles: null,
    dataImport: null,
    dataImportResult: null,
    freePlayOpening: null,
    dataMessage: null,

    restoreStoredDatasets: () => {
      restoring ??= (async () => {
        try {
          const summaries = await envClient().restoreStoredDatasets();
          for (const summary of summaries) get().datasetAdded(summary);
          set({ storedDatasets: await envClient().storedDatasets() });
        } catch (e) {
          set({ storedDatasets: [], dataMessage: { kind: 'error', where: 'datasets', title: 'Stored datasets could not be read', text: `This browser's storage did not answer: ${errorText(e)}` } });
        }
      })();
      return restoring;
    },

    refreshDataLists: async () => {
      const [stored, bundles] = await Promise.all([envClient().storedDatasets().catch(() => []), envClient().bundles().catch(() => [])]);
      set({ storedDatasets: stored, builtBundles: bundles });
      // Built bundles are loaded by the shell; loading again is a no-op for those already there.
      for (const name of bundles) void get().loadDataset(name);
    },

    checkDatasetName: (name) => envClient().datasetNameProblem(name),

    importSpiderFiles: async (name, label, files) => {
      if (get().dataImport) return;
      const importId = newImportId();
      set({ dataImport: { importId, name, label, progress: null, cancelling: false }, dataImportResult: null, dataMessage: null });
      const onProgress = (progress: ImportProgress) => set((s) => (s.dataImport?.importId === importId ? { dataImport: { ...s.dataImport, progress } } : {}));
      try {
        const outcome = await envClient().importSpiderFiles({ importId, name, label, files }, callback(onProgress));
        get().datasetAdded(outcome.summary);
        const { report } = outcome;
        set({
          dataImport: null,
          dataImportResult: {
            name,
            source: outcome.stored?.source ?? label,
            questions: report.questions,
            kept: report.kept,
            databases: outcome.summary.databases.length,
            skipped: SKIP_REASONS.map((reason) => ({ reason, count: report.skipped[reason] })).filter((s) => s.count > 0),
            storageError: outcome.storageError,
          },
        });
        await get().refreshDataLists();
      } catch (e) {
        set({
          dataImport: null,
          dataMessage: isCancelled(e)
            ? { kind: 'info', where: 'import', title: 'Import cancelled', text: `Nothing was imported from '${label}'.` }
            : { kind: 'error', where: 'import', title: `'${label}' could not be imported`, text: `${errorText(e)} Nothing was changed.` },
        });
      }
    },

    cancelSpiderImport: () => {
      const current = get().dataImport;
      if (!current || current.cancelling) return;
      set({ dataImport: { ...current, cancelling: true } });
      void envClient().cancelImport(current.importId);
    },

    openForFreePlay: async (name, file) => {
      if (get().freePlayOpening) return null;
      const fileName = file.path.split('/').pop() ?? file.path;
      set({ freePlayOpening: fileName, dataMessage: null });
      try {
        const made = await envClient().openSqliteFile(name, file);
        get().datasetAdded(made.summary);
        set({
          freePlayOpening: null,
          ...(made.storageError && { dataMessage: { kind: 'info', where: 'free-play', title: `'${fileName}' is open, but only until the page is closed`, text: made.storageError } }),
        });
        await get().refreshDataLists();
        return name;
      } catch (e) {
        set({ freePlayOpening: null, dataMessage: { kind: 'error', where: 'free-play', title: `'${fileName}' could not be opened`, text: `${errorText(e)} Nothing was changed.` } });
        return null;
      }
    },

    removeStoredDataset: async (name) => {
      try {
        await envClient().removeStoredDataset(name);
        get().datasetRemoved(name);
        set((s) => ({ storedDatasets: s.storedDatasets?.filter((d) => d.name !== name) ?? null, dataImportResult: s.dataImportResult?.name === name ? null : s.dataImportResult }));
      } catch (e) {
        set({ dataMessage: { kind: 'error', where: 'datasets', title: `'${name}' could not be removed`, text: errorText(e) } });
      }
    },

    showDataMessage: (message) => set({ dataMessage: message }),
    dismissDataMessage: () => set({ dataMessage: null }),
  };
};

/** The part of this slice that persists across reloads: nothing (stored datasets live in IndexedDB). */
export const persistedData = (_s: AppState): Partial<DataSlice> => ({});
