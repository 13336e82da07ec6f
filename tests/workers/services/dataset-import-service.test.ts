/**
 * The import service alone (its happy paths run through the API in env-api-data.test.ts): a taken name is refused
 * before any executor is made, cancelling an unknown import is harmless, and `close` stops an import in progress,
 * storing nothing and closing its executor.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDatasetStore } from '../../../src/data/dataset-store.ts';
import { DatasetImportService } from '../../../src/workers/services/dataset-import-service.ts';
import { DatasetService } from '../../../src/workers/services/dataset-service.ts';
import { buildSpiderFixture } from '../../data/spider-fixture.ts';
import { countingExecutors, type CountingExecutors } from './service-fixture.ts';

let dir: string;
let files: Array<{ path: string; data: Uint8Array }>;
let executors: CountingExecutors;
beforeAll(async () => {
  dir = await buildSpiderFixture();
  files = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push({ path: `spider/${relative(dir, join(entry.parentPath, entry.name)).replaceAll('\\', '/')}`, data: new Uint8Array(await readFile(join(entry.parentPath, entry.name))) });
  }
  executors = await countingExecutors();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function setup() {
  const store = memoryDatasetStore();
  const datasets = new DatasetService({ bundleReader: () => ({ location: 'none/', readText: () => Promise.reject(new Error('HTTP 404')), readBytes: () => Promise.reject(new Error('HTTP 404')) }), bundleNames: async () => ['bundled'], store });
  return { store, datasets, imports: new DatasetImportService({ datasets, createExecutor: executors.create }) };
}

describe('DatasetImportService', () => {
  it('refuses a taken name before making an executor', async () => {
    const { imports } = setup();
    const made = executors.made();
    await expect(imports.importSpiderFiles({ importId: 'i', name: 'bundled', label: 'spider', files })).rejects.toThrow(/already exists/);
    await expect(imports.openSqliteFile('bundled', files[0])).rejects.toThrow(/already exists/);
    expect(executors.made()).toBe(made);
    expect(() => imports.cancelImport('never-started')).not.toThrow();
  });

  it('close stops an import in progress, stores nothing and closes its executor', async () => {
    const { imports, store, datasets } = setup();
    const closed = executors.closed();
    const running = imports.importSpiderFiles({ importId: 'c', name: 'closed', label: 'spider', files }, (p) => {
      if (p.phase === 'questions') imports.close();
    });
    await expect(running).rejects.toThrow(/abort/i);
    expect(await store.list()).toEqual([]);
    await expect(datasets.loadDataset('closed')).rejects.toThrow();
    expect(executors.closed()).toBe(closed + 1);
  });
});
