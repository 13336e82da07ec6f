/**
 * The composition: two hosts made side by side share no policies (a model loaded in one is not offered, nor
 * playable, in the other), registering a dataset again drops the sessions on the old one, and `close` stops runs,
 * drops the model and closes the interactive executor.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { createEnvServices, type EnvServices } from '../../../src/workers/services/env-services.ts';
import { countingExecutors, fakeLlm, tinyLookup, type CountingExecutors, type FakeLlm } from './service-fixture.ts';

let tiny: Dataset;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ dataset: tiny } = await tinyLookup());
  executors = await countingExecutors();
});

function host(models: FakeLlm[] = []): EnvServices {
  const services = createEnvServices({
    createExecutor: executors.create,
    bundleReader: () => {
      throw new Error('no bundles in this test');
    },
    bundleNames: async () => [],
    datasetStore: null,
    modelCache: null,
    loadLlm: async (source) => {
      const llm = fakeLlm(source.kind === 'url' ? source.url : 'files');
      models.push(llm);
      return llm;
    },
  });
  services.datasets.addDataset(tiny);
  return services;
}

const names = (s: EnvServices) => s.policies.list().map((p) => p.name);

describe('createEnvServices', () => {
  it('gives each host its own policies: a model loaded in one is not offered by the other', async () => {
    const a = host();
    const b = host();
    await a.models.loadModel({ kind: 'url', url: 'toy' });
    expect(names(a)).toEqual(['random', 'oracle', 'qwen']);
    expect(names(b)).toEqual(['random', 'oracle']);
    await expect(b.episodes.reset('w', 'tiny', { questionId: 'tiny-1' }, 'qwen')).rejects.toThrow(/Unknown policy 'qwen'/);
    await expect(b.evaluation.evaluate({ runId: 'r', dataset: 'tiny', policy: 'qwen', split: 'all', episodes: 1, seed: 0 })).rejects.toThrow(/Unknown policy 'qwen'/);
    await a.episodes.reset('w', 'tiny', { questionId: 'tiny-1' }, 'qwen');
    await Promise.all([a.close(), b.close()]);
  });

  it('drops the sessions of a dataset registered again', async () => {
    const s = host();
    await s.episodes.reset('p', 'tiny', { questionId: 'tiny-1' });
    s.datasets.addDataset(tiny);
    await expect(s.episodes.step('p', 'DESCRIBE singer')).rejects.toThrow(/No session 'p'/);
    await s.close();
  });

  it('close stops an evaluation, drops the model and closes the interactive executor', async () => {
    const models: FakeLlm[] = [];
    const s = host(models);
    await s.models.loadModel({ kind: 'url', url: 'toy' });
    await s.episodes.reset('p', 'tiny', { questionId: 'tiny-1' });
    const closedBefore = executors.closed();
    const closing: Array<Promise<void>> = [];
    const running = s.evaluation.evaluate({ runId: 'r', dataset: 'tiny', policy: 'random', split: 'all', episodes: 500, seed: 0 }, () => {
      if (closing.length === 0) closing.push(s.close());
    });
    await expect(running).rejects.toThrow(/abort/i);
    await Promise.all(closing);
    expect(closing).toHaveLength(1);
    expect(models[0].destroyed()).toBe(1);
    expect(names(s)).toEqual(['random', 'oracle']);
    expect(executors.closed() - closedBefore).toBe(2); // the run's and the interactive one
    expect(s.training.status()).toEqual({ phase: 'idle' });
  });
});
