/**
 * Saved evaluation runs, in IndexedDB (through `idb`), so they survive reloads and can be compared later. A run is
 * stored as two records: its summary (small, listed often) and its episodes (large, read when opened). Browser
 * only; tests run it in Chromium.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { ENV_VERSION } from '../env/env.ts';
import type { EvalReport } from './evaluate.ts';
import type { EpisodeRecord } from './transcript.ts';

export type RunSummary = Omit<EvalReport, 'records'> & {
  id: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Wall-clock duration of the run, in milliseconds. */
  durationMs: number;
  /** Environment version that played it (run-file.ts); absent on runs saved before run files existed. */
  envVersion?: number;
  /** Model and adapter ids, settings and writer, as a run file names them (absent or null when none). */
  model?: string | null;
  adapter?: string | null;
  settings?: Record<string, string | number | boolean | null>;
  /** What made the run: `page`, `cli`, `python` (imported runs keep their file's). */
  writer?: string;
};

export interface SavedRun {
  summary: RunSummary;
  records: EpisodeRecord[];
}

interface RunsSchema extends DBSchema {
  summaries: { key: string; value: RunSummary; indexes: { createdAt: number } };
  episodes: { key: string; value: { id: string; records: EpisodeRecord[] } };
}

export class StorageFullError extends Error {
  constructor() {
    super('Browser storage is full: the run was not saved. Delete old runs (or free space for this site) and run again.');
    this.name = 'StorageFullError';
  }
}

const DB_NAME = 'sqlenv-runs';

let opened: Promise<IDBPDatabase<RunsSchema>> | null = null;

function db(): Promise<IDBPDatabase<RunsSchema>> {
  opened ??= openDB<RunsSchema>(DB_NAME, 1, {
    upgrade(database) {
      database.createObjectStore('summaries', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
      database.createObjectStore('episodes', { keyPath: 'id' });
    },
  });
  return opened;
}

export function summaryOf(report: EvalReport, id: string, createdAt: number, durationMs: number): RunSummary {
  const { records: _records, ...rest } = report;
  return { ...rest, id, createdAt, durationMs, envVersion: ENV_VERSION, writer: 'page' };
}

export async function saveRun(run: SavedRun): Promise<void> {
  const database = await db();
  const tx = database.transaction(['summaries', 'episodes'], 'readwrite');
  try {
    await Promise.all([tx.objectStore('summaries').put(run.summary), tx.objectStore('episodes').put({ id: run.summary.id, records: run.records }), tx.done]);
  } catch (e) {
    // A full disk usually aborts the transaction at commit: the requests then fail with AbortError and only the
    // transaction's own error names the quota, so both are checked.
    if (isQuotaError(e) || isQuotaError(tx.error)) throw new StorageFullError();
    throw e;
  }
}

function isQuotaError(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'QuotaExceededError';
}

/** Newest first. */
export async function listRuns(): Promise<RunSummary[]> {
  return (await (await db()).getAllFromIndex('summaries', 'createdAt')).reverse();
}

export async function loadRun(id: string): Promise<SavedRun | null> {
  const database = await db();
  const [summary, episodes] = await Promise.all([database.get('summaries', id), database.get('episodes', id)]);
  return summary && episodes ? { summary, records: episodes.records } : null;
}

export async function deleteRun(id: string): Promise<void> {
  const database = await db();
  const tx = database.transaction(['summaries', 'episodes'], 'readwrite');
  await Promise.all([tx.objectStore('summaries').delete(id), tx.objectStore('episodes').delete(id), tx.done]);
}

/** Bytes this site uses and may use in the browser's storage (all of it, not only runs); null where unknown. */
export async function storageUsage(): Promise<{ usage: number; quota: number } | null> {
  if (typeof navigator === 'undefined' || !navigator.storage?.estimate) return null;
  const { usage, quota } = await navigator.storage.estimate();
  return usage === undefined || quota === undefined ? null : { usage, quota };
}
