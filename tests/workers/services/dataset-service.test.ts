/**
 * The dataset service alone (no sessions, no worker): a name is read once however many ask at the same time, a failed
 * read is tried again next time, a store holding the name wins over the bundle, and `onReplaced` hears exactly of the
 * datasets registered anew or forgotten (so the episode service can drop stale sessions).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { toManifest, type BundleReader } from '../../../src/data/bundle.ts';
import { memoryDatasetStore } from '../../../src/data/dataset-store.ts';
import type { Dataset } from '../../../src/data/types.ts';
import { DatasetService, summarizeDataset } from '../../../src/workers/services/dataset-service.ts';
import { buildTinyDataset } from '../../fixtures/tiny-dataset.ts';

let tiny: Dataset;
beforeAll(async () => {
  tiny = await buildTinyDataset();
});

/** A bundle reader for 'tiny' only, counting manifest reads; `failures` first reads fail. */
function reader(failures = 0): { read: (name: string) => BundleReader; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    read: (name) => ({
      location: `bundles/${name}/`,
      readText: async () => {
        reads++;
        if (name !== 'tiny' || reads <= failures) throw new Error('HTTP 404');
        return JSON.stringify(toManifest(tiny));
      },
      readBytes: async () => tiny.loadDatabase('concerts'),
    }),
  };
}

describe('DatasetService', () => {
  it('reads a bundle once for callers that ask together, and summarises it without gold rows', async () => {
    const r = reader();
    const service = new DatasetService({ bundleReader: r.read, bundleNames: async () => ['tiny'], store: null });
    const [a, b] = await Promise.all([service.get('tiny'), service.get('tiny')]);
    expect(a).toBe(b);
    await service.loadDataset('tiny');
    expect(r.reads()).toBe(1);
    expect(summarizeDataset(a).questions.every((q) => !('goldResult' in q))).toBe(true);
    await expect(service.question('tiny', 'tiny-9')).rejects.toThrow("No question 'tiny-9' in dataset 'tiny'.");
  });

  it('tries a failed read again on the next call', async () => {
    const r = reader(1);
    const service = new DatasetService({ bundleReader: r.read, bundleNames: async () => ['tiny'], store: null });
    await expect(service.get('tiny')).rejects.toThrow();
    expect((await service.get('tiny')).name).toBe('tiny');
  });

  it('prefers a stored dataset of that name to the bundle', async () => {
    const store = memoryDatasetStore();
    await store.save({ ...tiny, description: 'stored copy' }, { kind: 'free-play', source: 'x.sqlite', createdAt: 1 });
    const r = reader();
    const service = new DatasetService({ bundleReader: r.read, bundleNames: async () => ['tiny'], store });
    expect((await service.get('tiny')).description).toBe('stored copy');
    expect(r.reads()).toBe(0);
  });

  it('tells onReplaced of datasets registered anew or forgotten, not of those merely unloaded', async () => {
    const replaced: string[] = [];
    const store = memoryDatasetStore();
    const service = new DatasetService({ bundleReader: reader().read, bundleNames: async () => ['tiny'], store, onReplaced: (name) => replaced.push(name) });
    service.addDataset({ ...tiny, name: 'mine' });
    const made = await service.keep({ ...tiny, name: 'kept' }, 'free-play', 'kept.sqlite');
    expect(made.stored).toMatchObject({ name: 'kept', kind: 'free-play' });
    service.removeDataset('mine');
    await service.removeStoredDataset('kept');
    expect(replaced).toEqual(['mine', 'kept', 'kept']);
  });

  it('names a taken name whether a bundle, a registered or a stored dataset holds it', async () => {
    const store = memoryDatasetStore();
    await store.save({ ...tiny, name: 'stored' }, { kind: 'free-play', source: 's.sqlite', createdAt: 1 });
    const service = new DatasetService({ bundleReader: reader().read, bundleNames: async () => ['tiny'], store });
    service.addDataset({ ...tiny, name: 'registered' });
    for (const name of ['tiny', 'registered', 'stored']) expect(await service.datasetNameProblem(name)).toMatch(/already exists|built with the app/);
    expect(await service.datasetNameProblem('fresh')).toBeNull();
  });
});
