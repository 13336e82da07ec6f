/**
 * The environment service's Data methods, without a worker and with the in-memory dataset store: importing a
 * Spider-layout zip or file list (progress, registration, storage, cancel), free play on a SQLite file, what a
 * second service over the same store sees (a reload), and that a bad file or a taken name changes nothing.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDatasetStore, type DatasetStore } from '../../src/data/dataset-store.ts';
import { FREE_PLAY_QUESTION_ID } from '../../src/data/free-play.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { ImportProgress } from '../../src/workers/env-protocol.ts';
import { createEnvApi, type EnvApi } from '../../src/workers/env-api.ts';
import { buildSpiderFixture } from '../data/spider-fixture.ts';
import { buildTinyDataset, tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

let dir: string;
let zip: Uint8Array;
let store: DatasetStore;
const services: EnvApi[] = [];

function newService(datasetStore: DatasetStore | null = store): EnvApi {
  const tinyBundle = buildTinyDataset();
  const service = createEnvApi({
    createExecutor: () => createNodeSqlExecutor({ limits: { timeoutMs: 5_000 } }),
    // One built bundle, 'tiny'; any other name is missing, as on a static host.
    bundleReader: (name) => ({
      location: `bundles/${name}/`,
      readText: async () => {
        if (name !== 'tiny') throw new Error('HTTP 404');
        const { toManifest } = await import('../../src/data/bundle.ts');
        return JSON.stringify(toManifest(await tinyBundle));
      },
      readBytes: async () => (await tinyBundle).loadDatabase('concerts'),
    }),
    bundleNames: async () => ['tiny'],
    datasetStore,
  });
  services.push(service);
  return service;
}

beforeAll(async () => {
  dir = await buildSpiderFixture();
  const entries: Record<string, Uint8Array> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) entries[`spider/${relative(dir, join(entry.parentPath, entry.name)).replaceAll('\\', '/')}`] = new Uint8Array(await readFile(join(entry.parentPath, entry.name)));
  }
  zip = zipSync(entries);
  store = memoryDatasetStore();
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('importSpiderFiles', () => {
  it('imports a zip with progress, registers it under its name and stores it', async () => {
    const service = newService();
    const progress: ImportProgress[] = [];
    const outcome = await service.importSpiderFiles({ importId: 'i1', name: 'my-spider', label: 'spider.zip', files: [{ path: 'spider.zip', data: new Blob([new Uint8Array(zip)]) }] }, (p) => progress.push(p));
    expect(outcome.summary.name).toBe('my-spider');
    expect(outcome.summary.description).toMatch(/^Imported in this browser from 'spider\.zip: spider'/);
    expect(outcome.summary.questions.map((q) => q.id)).toEqual(['dev-0000', 'dev-0001', 'train-00000', 'train-00001', 'others-0000']);
    expect(outcome.report.kept).toBe(5);
    expect(outcome.stored).toMatchObject({ name: 'my-spider', kind: 'spider', source: 'spider.zip: spider', databases: 2, questions: 5 });
    expect(outcome.storageError).toBeNull();
    expect(progress[0]).toEqual({ phase: 'reading', done: 0, total: 1 });
    expect(progress).toContainEqual({ phase: 'questions', done: 10, total: 10 });
    expect(progress.at(-1)).toEqual({ phase: 'saving', done: 2, total: 2 });

    // Playable at once, in the same service.
    const reset = await service.reset('play', 'my-spider', { questionId: 'dev-0000' });
    expect(reset.observation.tables).toEqual(['pets']);
    const answer = await service.step('play', 'ANSWER 3');
    expect(answer.info.correct).toBe(true);
  });

  it('refuses a taken or reserved name, and files in the wrong layout, storing nothing', async () => {
    const service = newService();
    const before = await store.list();
    const files = [{ path: 'spider.zip', data: new Blob([new Uint8Array(zip)]) }];
    await expect(service.importSpiderFiles({ importId: 'x', name: 'my-spider', label: 'spider.zip', files })).rejects.toThrow(/already exists/);
    await expect(service.importSpiderFiles({ importId: 'x', name: 'tiny', label: 'spider.zip', files })).rejects.toThrow(/already exists/);
    await expect(service.importSpiderFiles({ importId: 'x', name: 'demo', label: 'spider.zip', files })).rejects.toThrow(/built with the app/);
    const photos = [{ path: 'photos/a.png', data: new Uint8Array(4) }];
    await expect(service.importSpiderFiles({ importId: 'x', name: 'photos', label: 'photos', files: photos })).rejects.toThrow(/'photos' is not in Spider's official layout/);
    await expect(service.importSpiderFiles({ importId: 'x', name: 'half', label: 'half.zip', files: [{ path: 'half.zip', data: zip.slice(0, 100) }] })).rejects.toThrow(/not a readable zip/);
    expect(await store.list()).toEqual(before);
    await expect(service.loadDataset('photos')).rejects.toThrow(/No readable dataset/);
  });

  it('stops when cancelled', async () => {
    const service = newService();
    const running = service.importSpiderFiles({ importId: 'c1', name: 'cancelled', label: 'spider', files: [{ path: 'spider.zip', data: zip }] }, (p) => {
      if (p.phase === 'reading') service.cancelImport('c1');
    });
    await expect(running).rejects.toThrow(/cancelled/);
    expect((await store.list()).map((d) => d.name)).not.toContain('cancelled');
  });

  it('keeps the dataset for the session when storage fails, and says why', async () => {
    const failing: DatasetStore = { ...memoryDatasetStore(), save: () => Promise.reject(new Error('Browser storage is full')) };
    const service = newService(failing);
    const outcome = await service.importSpiderFiles({ importId: 'f', name: 'unsaved', label: 'spider', files: [{ path: 'spider.zip', data: zip }] });
    expect(outcome.stored).toBeNull();
    expect(outcome.storageError).toMatch(/storage is full/);
    expect((await service.loadDataset('unsaved')).questions).toHaveLength(5);
  });
});

describe('openSqliteFile', () => {
  it('opens a SQLite file for free play, stored, and plays it without correctness reward', async () => {
    const service = newService();
    const made = await service.openSqliteFile('concerts', { path: 'music/concerts.sqlite', data: new Blob([new Uint8Array(await tinyDatabaseBytes())]) });
    expect(made.summary.questions).toEqual([expect.objectContaining({ id: FREE_PLAY_QUESTION_ID, freePlay: true, dbId: 'concerts' })]);
    expect(made.stored).toMatchObject({ kind: 'free-play', source: 'concerts.sqlite', databases: 1, questions: 1 });
    await service.reset('free', 'concerts', {});
    const step = await service.step('free', 'ANSWER 5');
    expect(step.info.components.correctness).toBe(0);
    expect(step.observation.text).toMatch(/no gold answer/);
  });

  it('a corrupt file gives a clear error and changes nothing', async () => {
    const service = newService();
    const before = await store.list();
    const corrupt = new Uint8Array([...new TextEncoder().encode('SQLite format 3\u0000'), ...new Uint8Array(1000).fill(9)]);
    await expect(service.openSqliteFile('broken', { path: 'broken.db', data: corrupt })).rejects.toThrow(/'broken\.db' starts like a SQLite database but SQLite cannot read it/);
    await expect(service.openSqliteFile('notes', { path: 'notes.txt', data: new TextEncoder().encode('hello') })).rejects.toThrow(/not a SQLite database/);
    expect(await store.list()).toEqual(before);
  });
});

describe('after a reload (a new service over the same store)', () => {
  it('restores stored datasets, loads one by name, and forgets a removed one', async () => {
    const service = newService();
    expect((await service.storedDatasets()).map((d) => d.name).sort()).toEqual(['concerts', 'my-spider']);
    // A deep link names the dataset before anything restored it.
    expect((await service.loadDataset('my-spider')).questions).toHaveLength(5);
    const restored = await service.restoreStoredDatasets();
    expect(restored.map((d) => d.name).sort()).toEqual(['concerts', 'my-spider']);
    await service.reset('p', 'my-spider', { questionId: 'others-0000' });
    expect((await service.step('p', 'QUERY SELECT count(*) FROM sales')).observation.result?.rows).toEqual([[3]]);
    expect(await service.datasetNameProblem('concerts')).toMatch(/already exists/);

    await service.removeStoredDataset('concerts');
    expect((await service.storedDatasets()).map((d) => d.name)).toEqual(['my-spider']);
    await expect(service.loadDataset('concerts')).rejects.toThrow(/No readable dataset/);
    expect(await service.datasetNameProblem('concerts')).toBeNull();
  });

  it('without a store, nothing is kept and the outcome says so', async () => {
    const service = newService(null);
    expect(await service.storedDatasets()).toEqual([]);
    const made = await service.openSqliteFile('temp', { path: 'temp.db', data: await tinyDatabaseBytes() });
    expect(made.stored).toBeNull();
    expect(made.storageError).toMatch(/lasts until the page is closed/);
  });
});
