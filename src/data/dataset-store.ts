/**
 * Datasets made in the page (an imported Spider folder, a SQLite file opened for free play), kept in the browser so
 * they survive reloads. `indexedDbDatasetStore` keeps them in IndexedDB (through `idb`); `memoryDatasetStore` keeps
 * them in memory, for tests and for browsers without IndexedDB.
 *
 * How to think about it: a stored dataset is its bundle, split the way IndexedDB likes it — one record holds the
 * manifest (the same `DatasetManifest` as a bundle's manifest.json) and what the Data view lists; one record per
 * database holds its bytes, read only when an episode needs them. Databases are written first and the manifest
 * last, so a save cut short (full storage, a closed tab) never lists a dataset that cannot load.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { DatasetError, fromManifest, toManifest } from './bundle.ts';
import type { Dataset, DatasetManifest } from './types.ts';

export type StoredKind = 'spider' | 'free-play';

export interface StoredDatasetInfo {
  name: string;
  kind: StoredKind;
  /** What it was made from, in words: a folder, zip or file name. */
  source: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  databases: number;
  questions: number;
  /** Bytes of the database files. */
  bytes: number;
}

export interface DatasetStore {
  /** Newest first. */
  list(): Promise<StoredDatasetInfo[]>;
  /** Stores `dataset` (replacing one of the same name); `onProgress` counts databases written. */
  save(dataset: Dataset, meta: Pick<StoredDatasetInfo, 'kind' | 'source' | 'createdAt'>, onProgress?: (done: number, total: number) => void): Promise<StoredDatasetInfo>;
  /** The stored dataset, its databases read on demand; null when there is none of that name. */
  load(name: string): Promise<Dataset | null>;
  remove(name: string): Promise<void>;
}

export class DatasetStorageFullError extends Error {
  constructor(name: string) {
    super(`Browser storage is full, so '${name}' was not saved: it works until the page is closed. Remove datasets or saved runs you no longer need (or allow this site more space) and import it again to keep it.`);
    this.name = 'DatasetStorageFullError';
  }
}

/**
 * Names the page reserves: the demo, built with every copy of the app. Spider's bundle is built only when SPIDER_DIR
 * is set, so 'spider' is taken only when `bundles/index.json` lists it (callers pass the built bundles in `taken`);
 * otherwise an imported Spider may be called 'spider'.
 */
export const RESERVED_NAMES: readonly string[] = ['demo'];

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Why `name` cannot name a new dataset, or null when it can. `taken` lists the names in use. */
export function datasetNameProblem(name: string, taken: readonly string[]): string | null {
  if (!NAME_PATTERN.test(name)) return 'A dataset name is 1 to 40 lowercase letters, digits, - or _, starting with a letter or digit.';
  if (RESERVED_NAMES.includes(name)) return `'${name}' is the name of a dataset built with the app: choose another.`;
  if (taken.includes(name)) return `A dataset named '${name}' already exists: choose another name, or remove that one first.`;
  return null;
}

/** A free name from any text (a file or folder name): `spider`, or `spider-2` when 'spider' is taken, … */
export function suggestDatasetName(text: string, taken: readonly string[]): string {
  const stem = text.replace(/\.(zip|sqlite3?|db|db3|sqlitedb)$/i, '');
  const base = stem.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 32) || 'dataset';
  const used = new Set([...taken, ...RESERVED_NAMES]);
  if (!used.has(base)) return base;
  for (let i = 2; ; i++) if (!used.has(`${base}-${i}`)) return `${base}-${i}`;
}

interface StoredRecord {
  info: StoredDatasetInfo;
  manifest: DatasetManifest;
}

interface DatabaseRecord {
  dataset: string;
  dbId: string;
  bytes: Uint8Array;
}

function infoOf(dataset: Dataset, meta: Pick<StoredDatasetInfo, 'kind' | 'source' | 'createdAt'>, bytes: number): StoredDatasetInfo {
  return { name: dataset.name, ...meta, databases: dataset.databases.length, questions: dataset.questions.length, bytes };
}

function newestFirst(records: StoredRecord[]): StoredDatasetInfo[] {
  return records.map((r) => r.info).sort((a, b) => b.createdAt - a.createdAt);
}

export function memoryDatasetStore(): DatasetStore {
  const records = new Map<string, StoredRecord>();
  const databases = new Map<string, Map<string, Uint8Array>>();
  return {
    list: async () => newestFirst([...records.values()]),
    save: async (dataset, meta, onProgress) => {
      const dbs = new Map<string, Uint8Array>();
      let bytes = 0;
      for (const [i, db] of dataset.databases.entries()) {
        const data = await dataset.loadDatabase(db.id);
        dbs.set(db.id, data.slice());
        bytes += data.length;
        onProgress?.(i + 1, dataset.databases.length);
      }
      const info = infoOf(dataset, meta, bytes);
      databases.set(dataset.name, dbs);
      records.set(dataset.name, { info, manifest: toManifest(dataset) });
      return info;
    },
    load: async (name) => {
      const record = records.get(name);
      if (!record) return null;
      return fromManifest(structuredClone(record.manifest), async (dbId) => {
        const data = databases.get(name)?.get(dbId);
        if (!data) throw new DatasetError(`Stored dataset '${name}' has no database '${dbId}'.`);
        return data;
      });
    },
    remove: async (name) => {
      records.delete(name);
      databases.delete(name);
    },
  };
}

interface DatasetsSchema extends DBSchema {
  datasets: { key: string; value: StoredRecord };
  databases: { key: [string, string]; value: DatabaseRecord };
}

function isQuotaError(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'QuotaExceededError';
}

/** Every database key of a dataset: arrays sort after strings, so `[name, []]` is above any `[name, dbId]`. */
function databaseRange(name: string): IDBKeyRange {
  return IDBKeyRange.bound([name], [name, []]);
}

export function indexedDbDatasetStore(dbName = 'sqlenv-datasets'): DatasetStore {
  let opened: Promise<IDBPDatabase<DatasetsSchema>> | null = null;
  const db = (): Promise<IDBPDatabase<DatasetsSchema>> => {
    opened ??= openDB<DatasetsSchema>(dbName, 1, {
      upgrade(database) {
        database.createObjectStore('datasets', { keyPath: 'info.name' });
        database.createObjectStore('databases', { keyPath: ['dataset', 'dbId'] });
      },
    });
    return opened;
  };
  const remove = async (name: string): Promise<void> => {
    const database = await db();
    const tx = database.transaction(['datasets', 'databases'], 'readwrite');
    await Promise.all([tx.objectStore('datasets').delete(name), tx.objectStore('databases').delete(databaseRange(name)), tx.done]);
  };
  return {
    list: async () => newestFirst(await (await db()).getAll('datasets')),
    save: async (dataset, meta, onProgress) => {
      const database = await db();
      await remove(dataset.name);
      let bytes = 0;
      try {
        // One transaction per database: a full Spider holds hundreds of megabytes.
        for (const [i, entry] of dataset.databases.entries()) {
          const data = await dataset.loadDatabase(entry.id);
          const tx = database.transaction('databases', 'readwrite');
          try {
            await Promise.all([tx.store.put({ dataset: dataset.name, dbId: entry.id, bytes: data }), tx.done]);
          } catch (e) {
            // A full disk usually aborts the transaction at commit: only the transaction's own error names the quota.
            throw isQuotaError(tx.error) ? tx.error : e;
          }
          bytes += data.length;
          onProgress?.(i + 1, dataset.databases.length);
        }
        const info = infoOf(dataset, meta, bytes);
        await database.put('datasets', { info, manifest: toManifest(dataset) });
        return info;
      } catch (e) {
        await remove(dataset.name).catch(() => undefined);
        if (isQuotaError(e)) throw new DatasetStorageFullError(dataset.name);
        throw e;
      }
    },
    load: async (name) => {
      const record = await (await db()).get('datasets', name);
      if (!record) return null;
      return fromManifest(record.manifest, async (dbId) => {
        const found = await (await db()).get('databases', [name, dbId]);
        if (!found) throw new DatasetError(`Stored dataset '${name}' has no database '${dbId}': remove it and import it again.`);
        return found.bytes;
      });
    },
    remove,
  };
}
