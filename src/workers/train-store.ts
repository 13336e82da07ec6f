/**
 * What training keeps across reloads: checkpoints (adapter tensors + GRPO's KL reference adapter + AdamW moments + the
 * run's request and history, enough for `Trainer.run({ startStep })` to continue exactly), the history of finished
 * runs (for the charts), and adapters (trained here, loaded from files or the Hub; each is a policy).
 * `indexedDbTrainStore` keeps them in IndexedDB (through `idb`); `memoryTrainStore` keeps them in memory, for tests
 * and browsers without IndexedDB.
 *
 * How to think about it: records hold typed arrays as they are (structured clone keeps Float32Array/Float64Array), so
 * nothing is converted on the way in or out. Listing reads only small info records; tensors are separate records read
 * when needed. A checkpoint is written whole in one transaction before older checkpoints of its run are dropped, so a
 * failed save (full storage) never loses the checkpoint saved before it.
 *
 * Active-run records (`ActiveRunRecord`, train-protocol.ts) mark the runs in progress: written as a run goes, deleted
 * when it ends, so one found by a fresh page is an interrupted run (database version 2 added their store).
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { ModelConfig } from '../model/config.ts';
import type { LoraAdapter } from '../model/lora.ts';
import type { OptimizerState } from '../train/gpu-model.ts';
import type { ActiveRunRecord, AdapterInfo, CheckpointInfo, TrainRunHistory, TrainStartRequest } from './train-protocol.ts';

/** Everything a checkpoint holds: its info (listed), and the state to resume from. */
export interface StoredCheckpoint {
  info: CheckpointInfo;
  /** The request that started the run (dataset, config, adapter name). */
  request: TrainStartRequest;
  /** The adapter the run produces (kept when it ends), so a resumed run replaces it rather than adding one. */
  adapterId: string;
  adapter: LoraAdapter;
  /**
   * GRPO's KL reference (`Trainer.referenceAdapter`: the frozen adapter the run started from; null: the base model),
   * so a resumed run anchors where the uninterrupted one does. Absent in checkpoints saved before it was kept
   * (train-checkpoint.ts checks it on resume).
   */
  referenceAdapter?: LoraAdapter | null;
  optimizer: OptimizerState;
  history: TrainRunHistory;
}

/** An adapter's tensors with the config of the model they fit (PEFT files are written against it). */
export interface StoredAdapter {
  adapter: LoraAdapter;
  modelConfig: ModelConfig;
}

export interface TrainStore {
  /** Saves a checkpoint, then drops the run's older ones beyond the newest `keepPerRun`. */
  saveCheckpoint(checkpoint: StoredCheckpoint, keepPerRun: number): Promise<void>;
  /** Newest first. */
  listCheckpoints(): Promise<CheckpointInfo[]>;
  loadCheckpoint(id: string): Promise<StoredCheckpoint | null>;
  deleteCheckpoint(id: string): Promise<void>;
  saveHistory(history: TrainRunHistory): Promise<void>;
  loadHistory(runId: string): Promise<TrainRunHistory | null>;
  /** Saves (or replaces, keeping its place in the list) an adapter. */
  saveAdapter(info: AdapterInfo, stored: StoredAdapter): Promise<void>;
  /** Oldest first (the order they were first saved in). */
  listAdapters(): Promise<AdapterInfo[]>;
  loadAdapter(id: string): Promise<StoredAdapter | null>;
  deleteAdapter(id: string): Promise<void>;
  // Records of runs in progress; optional: a store without them (the CLI's folder) keeps none.
  /** Writes (or replaces) the record of a run in progress. */
  saveActiveRun?(record: ActiveRunRecord): Promise<void>;
  /** Newest first. */
  listActiveRuns?(): Promise<ActiveRunRecord[]>;
  deleteActiveRun?(runId: string): Promise<void>;
}

/** Storage is full: what was being saved was not, and what was saved before is still there. */
export class TrainStorageFullError extends Error {
  override name = 'TrainStorageFullError';
  constructor(what: string) {
    super(`Browser storage is full, so ${what} was not saved (earlier saves are kept). Delete old checkpoints, adapters or saved runs, or allow this site more space.`);
  }
}

export function isQuotaError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'QuotaExceededError' || e instanceof TrainStorageFullError);
}

/** Bytes of a structure's typed arrays (what a checkpoint or an adapter costs in storage). */
export function typedArrayBytes(value: unknown): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((a: number, v) => a + typedArrayBytes(v), 0);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce((a: number, v) => a + typedArrayBytes(v), 0);
  return 0;
}

/** The run's checkpoints beyond the newest `keep`: the ones to drop after a save. */
function staleCheckpoints(all: readonly CheckpointInfo[], runId: string, keep: number): string[] {
  return all
    .filter((c) => c.runId === runId)
    .sort((a, b) => b.step - a.step || b.savedAt - a.savedAt)
    .slice(Math.max(1, keep))
    .map((c) => c.id);
}

const newestFirst = (infos: CheckpointInfo[]): CheckpointInfo[] => infos.sort((a, b) => b.savedAt - a.savedAt || b.step - a.step);

/**
 * In memory; `quotaBytes` bounds the typed-array bytes it holds (a save beyond it fails with QuotaExceededError, as a
 * full browser storage does). Records are cloned in and out, as IndexedDB does.
 */
export function memoryTrainStore(options: { quotaBytes?: number } = {}): TrainStore {
  const checkpoints = new Map<string, StoredCheckpoint>();
  const histories = new Map<string, TrainRunHistory>();
  const adapters = new Map<string, { info: AdapterInfo; stored: StoredAdapter }>();
  const activeRuns = new Map<string, ActiveRunRecord>();
  const quota = options.quotaBytes ?? Infinity;
  const used = () => typedArrayBytes([...checkpoints.values()]) + typedArrayBytes([...adapters.values()]);
  const checkRoom = (bytes: number) => {
    if (used() + bytes > quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  };
  return {
    saveCheckpoint: async (checkpoint, keepPerRun) => {
      checkRoom(typedArrayBytes(checkpoint));
      checkpoints.set(checkpoint.info.id, structuredClone(checkpoint));
      for (const id of staleCheckpoints([...checkpoints.values()].map((c) => c.info), checkpoint.info.runId, keepPerRun)) checkpoints.delete(id);
    },
    listCheckpoints: async () => newestFirst([...checkpoints.values()].map((c) => structuredClone(c.info))),
    loadCheckpoint: async (id) => {
      const c = checkpoints.get(id);
      return c ? structuredClone(c) : null;
    },
    deleteCheckpoint: async (id) => void checkpoints.delete(id),
    saveHistory: async (history) => void histories.set(history.runId, structuredClone(history)),
    loadHistory: async (runId) => {
      const h = histories.get(runId);
      return h ? structuredClone(h) : null;
    },
    saveAdapter: async (info, stored) => {
      checkRoom(typedArrayBytes(stored) - typedArrayBytes(adapters.get(info.id)?.stored ?? null));
      adapters.set(info.id, structuredClone({ info, stored }));
    },
    listAdapters: async () => [...adapters.values()].map((a) => structuredClone(a.info)),
    loadAdapter: async (id) => {
      const a = adapters.get(id);
      return a ? structuredClone(a.stored) : null;
    },
    deleteAdapter: async (id) => void adapters.delete(id),
    saveActiveRun: async (record) => void activeRuns.set(record.runId, structuredClone(record)),
    listActiveRuns: async () => [...activeRuns.values()].map((r) => structuredClone(r)).sort((a, b) => b.updatedAt - a.updatedAt),
    deleteActiveRun: async (runId) => void activeRuns.delete(runId),
  };
}

interface TrainSchema extends DBSchema {
  checkpointInfos: { key: string; value: CheckpointInfo };
  checkpoints: { key: string; value: StoredCheckpoint };
  histories: { key: string; value: TrainRunHistory };
  adapterInfos: { key: string; value: AdapterInfo & { order: number } };
  adapters: { key: string; value: StoredAdapter & { id: string } };
  activeRuns: { key: string; value: ActiveRunRecord };
}

export function indexedDbTrainStore(dbName = 'sqlenv-train'): TrainStore {
  let opened: Promise<IDBPDatabase<TrainSchema>> | null = null;
  const db = (): Promise<IDBPDatabase<TrainSchema>> => {
    opened ??= openDB<TrainSchema>(dbName, 2, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('checkpointInfos', { keyPath: 'id' });
          database.createObjectStore('checkpoints', { keyPath: 'info.id' });
          database.createObjectStore('histories', { keyPath: 'runId' });
          database.createObjectStore('adapterInfos', { keyPath: 'id' });
          database.createObjectStore('adapters', { keyPath: 'id' });
        }
        if (oldVersion < 2) database.createObjectStore('activeRuns', { keyPath: 'runId' });
      },
    });
    return opened;
  };
  type StoreName = 'checkpointInfos' | 'checkpoints' | 'histories' | 'adapterInfos' | 'adapters' | 'activeRuns';
  /** Runs `body` in one read-write transaction; a full disk (often reported at commit) becomes TrainStorageFullError. */
  const write = async (names: StoreName[], what: string, body: (tx: IDBPTransaction<TrainSchema, StoreName[], 'readwrite'>) => Array<Promise<unknown>>): Promise<void> => {
    const tx = (await db()).transaction(names, 'readwrite');
    try {
      await Promise.all([...body(tx), tx.done]);
    } catch (e) {
      if (isQuotaError(tx.error) || isQuotaError(e)) throw new TrainStorageFullError(what);
      throw e;
    }
  };
  const deleteCheckpoint = (id: string) =>
    write(['checkpointInfos', 'checkpoints'], `the deletion of checkpoint ${id}`, (tx) => [tx.objectStore('checkpointInfos').delete(id), tx.objectStore('checkpoints').delete(id)]);
  return {
    saveCheckpoint: async (checkpoint, keepPerRun) => {
      const { info } = checkpoint;
      await write(['checkpointInfos', 'checkpoints'], `the checkpoint of step ${info.step}`, (tx) => [tx.objectStore('checkpointInfos').put(info), tx.objectStore('checkpoints').put(checkpoint)]);
      const all = await (await db()).getAll('checkpointInfos');
      for (const id of staleCheckpoints(all, info.runId, keepPerRun)) await deleteCheckpoint(id);
    },
    listCheckpoints: async () => newestFirst(await (await db()).getAll('checkpointInfos')),
    loadCheckpoint: async (id) => (await (await db()).get('checkpoints', id)) ?? null,
    deleteCheckpoint,
    saveHistory: (history) => write(['histories'], `the history of run ${history.runId}`, (tx) => [tx.objectStore('histories').put(history)]),
    loadHistory: async (runId) => (await (await db()).get('histories', runId)) ?? null,
    saveAdapter: async (info, stored) => {
      const order = (await (await db()).get('adapterInfos', info.id))?.order ?? Date.now();
      await write(['adapterInfos', 'adapters'], `the adapter '${info.name}'`, (tx) => [tx.objectStore('adapterInfos').put({ ...info, order }), tx.objectStore('adapters').put({ id: info.id, ...stored })]);
    },
    listAdapters: async () =>
      (await (await db()).getAll('adapterInfos')).sort((a, b) => a.order - b.order).map(({ order: _order, ...info }) => info),
    loadAdapter: async (id) => {
      const found = await (await db()).get('adapters', id);
      return found ? { adapter: found.adapter, modelConfig: found.modelConfig } : null;
    },
    deleteAdapter: (id) => write(['adapterInfos', 'adapters'], `the deletion of adapter ${id}`, (tx) => [tx.objectStore('adapterInfos').delete(id), tx.objectStore('adapters').delete(id)]),
    saveActiveRun: (record) => write(['activeRuns'], `the record of run ${record.runId}`, (tx) => [tx.objectStore('activeRuns').put(record)]),
    listActiveRuns: async () => (await (await db()).getAll('activeRuns')).sort((a, b) => b.updatedAt - a.updatedAt),
    deleteActiveRun: (runId) => write(['activeRuns'], `the deletion of run record ${runId}`, (tx) => [tx.objectStore('activeRuns').delete(runId)]),
  };
}
