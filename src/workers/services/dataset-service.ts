/**
 * The datasets a host knows by name: bundles built with the app (`demo`, `spider`), and datasets made in the page (a
 * Spider folder imported, a SQLite file opened for free play; see dataset-import-service.ts) kept in a
 * `DatasetStore` (IndexedDB in the page), so after a reload a name that is not a bundle is looked up in the store
 * first. Every other service reads datasets through `get`, which loads each name once.
 *
 * A dataset registered again under a name, or forgotten, makes sessions playing the old one stale: `onReplaced`
 * tells the episode service to drop them.
 */
import type { BundleReader } from '../../data/bundle.ts';
import { readBundle } from '../../data/bundle.ts';
import { datasetNameProblem, type DatasetStore, type StoredDatasetInfo } from '../../data/dataset-store.ts';
import type { Dataset, Question } from '../../data/types.ts';
import type { DatasetSummary, MadeDataset } from '../env-protocol.ts';

export interface DatasetServiceDeps {
  /** Where a named bundle is read from (`demo`, `spider`). */
  bundleReader: (name: string) => BundleReader;
  /** Names of the bundles that were built (`bundles/index.json`). */
  bundleNames: () => Promise<string[]>;
  /** Where datasets made in the page are kept across reloads; null: nowhere (they last as long as the service). */
  store: DatasetStore | null;
  /** Called when a dataset is registered anew under `name` or forgotten (sessions on the old one are dropped). */
  onReplaced?: (name: string) => void;
}

export function summarizeDataset(dataset: Dataset): DatasetSummary {
  return {
    name: dataset.name,
    description: dataset.description,
    license: dataset.license,
    databases: dataset.databases.map((d) => ({ id: d.id, tables: d.tables })),
    questions: dataset.questions.map(({ goldResult: _gold, ...rest }) => rest),
  };
}

export class DatasetService {
  private readonly datasets = new Map<string, Dataset>();
  private readonly loading = new Map<string, Promise<Dataset>>();

  constructor(private readonly deps: DatasetServiceDeps) {}

  /** A dataset by name, loaded once (later calls share the first load): registered, stored, else the bundle. */
  get(name: string): Promise<Dataset> {
    const ready = this.datasets.get(name);
    if (ready) return Promise.resolve(ready);
    let pending = this.loading.get(name);
    if (!pending) {
      pending = this.readNamed(name).then((d) => {
        this.datasets.set(name, d);
        return d;
      });
      pending.catch(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    return pending;
  }

  /** A dataset stored in this browser (made in the page earlier) by that name, else the bundle. */
  private async readNamed(name: string): Promise<Dataset> {
    const stored = this.deps.store ? await this.deps.store.load(name).catch(() => null) : null;
    return stored ?? readBundle(this.deps.bundleReader(name));
  }

  /** Bundles built with the app, e.g. ['demo', 'spider']. */
  bundles(): Promise<string[]> {
    return this.deps.bundleNames();
  }

  async loadDataset(name: string): Promise<DatasetSummary> {
    return summarizeDataset(await this.get(name));
  }

  /** Registers a dataset made in the page (an imported Spider folder, a dropped SQLite file) under its name. */
  addDataset(dataset: Dataset): DatasetSummary {
    this.datasets.set(dataset.name, dataset);
    this.deps.onReplaced?.(dataset.name);
    return summarizeDataset(dataset);
  }

  removeDataset(name: string): void {
    this.datasets.delete(name);
    this.loading.delete(name);
  }

  async question(dataset: string, questionId: string): Promise<Question> {
    const question = (await this.get(dataset)).questions.find((q) => q.id === questionId);
    if (!question) throw new RangeError(`No question '${questionId}' in dataset '${dataset}'.`);
    return question;
  }

  /** Datasets stored in this browser, newest first ([] where nothing can be stored). */
  async storedDatasets(): Promise<StoredDatasetInfo[]> {
    return this.deps.store ? this.deps.store.list() : [];
  }

  /** Registers every stored dataset (after a reload) and returns their summaries, newest first. */
  async restoreStoredDatasets(): Promise<DatasetSummary[]> {
    const store = this.deps.store;
    if (!store) return [];
    const summaries: DatasetSummary[] = [];
    for (const info of await store.list()) {
      let dataset = this.datasets.get(info.name);
      if (!dataset) {
        const loaded = await store.load(info.name).catch(() => null);
        if (!loaded) continue;
        dataset = loaded;
        this.datasets.set(info.name, dataset);
      }
      summaries.push(summarizeDataset(dataset));
    }
    return summaries;
  }

  /** Why `name` cannot name a new dataset (taken by a bundle, a loaded or a stored dataset), or null. */
  async datasetNameProblem(name: string): Promise<string | null> {
    const stored = (await this.storedDatasets().catch(() => [])).map((d) => d.name);
    const bundles = await this.deps.bundleNames().catch(() => []);
    return datasetNameProblem(name, [...bundles, ...this.datasets.keys(), ...stored]);
  }

  /** Registers a dataset made in the page and keeps it in the store; a failed save leaves it usable until reload. */
  async keep(dataset: Dataset, kind: StoredDatasetInfo['kind'], source: string, onProgress?: (done: number, total: number) => void): Promise<MadeDataset> {
    const summary = this.addDataset(dataset);
    const store = this.deps.store;
    if (!store) return { summary, stored: null, storageError: 'This browser offers no storage to this page, so the dataset lasts until the page is closed.' };
    try {
      return { summary, stored: await store.save(dataset, { kind, source, createdAt: Date.now() }, onProgress), storageError: null };
    } catch (e) {
      return { summary, stored: null, storageError: (e as Error).message };
    }
  }

  /** Forgets a dataset made in the page: from the store and from this service. */
  async removeStoredDataset(name: string): Promise<void> {
    await this.deps.store?.remove(name);
    this.removeDataset(name);
    this.deps.onReplaced?.(name);
  }
}
