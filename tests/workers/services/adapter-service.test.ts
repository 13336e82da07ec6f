/**
 * The adapter service alone, with a fake model: kept adapters of the loaded model play as `qwen+<id>` in the
 * service's registry (registered when the model comes, when an adapter is added, dropped when it is deleted or the
 * model goes), adapters of another base model and models that take no adapters offer none, and nothing loads without
 * a model. The model cache service is checked here too, where there is no cache.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src/data/rng.ts';
import type { Dataset } from '../../../src/data/types.ts';
import { createLoraAdapter } from '../../../src/model/lora.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { TOY_LORA } from '../../../src/train/toy-run.ts';
import { memoryTrainStore } from '../../../src/workers/train-store.ts';
import { AdapterService } from '../../../src/workers/services/adapter-service.ts';
import { ModelCacheService } from '../../../src/workers/services/model-cache-service.ts';
import { ModelService } from '../../../src/workers/services/model-service.ts';
import { countingExecutors, fakeLlm, tinyLookup, type CountingExecutors, type FakeLlm } from './service-fixture.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

function setup(llm: () => FakeLlm) {
  const policies = new PolicyRegistry();
  const models = new ModelService({ policies, dataset: lookup, createExecutor: executors.create, loadLlm: async () => llm() });
  const adapters = new AdapterService({ store: memoryTrainStore(), policies, models, cache: null });
  const names = () => policies.list().map((p) => p.name);
  return { policies, models, adapters, names };
}

const adapterFor = (llm: FakeLlm) => createLoraAdapter(llm.config, TOY_LORA, createRng(3));

describe('AdapterService', () => {
  it('plays every kept adapter of the loaded model as qwen+<id>, following the model and the library', async () => {
    const model = fakeLlm('toy');
    const { models, adapters, names } = setup(() => model);
    // Kept before any model is loaded: no policy yet, and nothing can be checked against a model.
    await adapters.library.add(adapterFor(model), 'early', 'file', { label: 'toy', config: model.config });
    await adapters.library.add(adapterFor(model), 'other base', 'file', { label: 'another-model', config: model.config });
    expect(names()).toEqual(['random', 'oracle']);
    await expect(adapters.loadAdapterFiles({ safetensors: new Uint8Array(), configJson: '{}' }, 'x')).rejects.toThrow(/No model is loaded/);
    await expect(adapters.loadAdapterFromHub('someone/adapter')).rejects.toThrow(/No model is loaded/);

    await models.loadModel({ kind: 'url', url: 'toy' });
    expect(names()).toEqual(['random', 'oracle', 'qwen', 'qwen+early']);
    const files = await adapters.adapterFiles('early');
    const added = await adapters.loadAdapterFiles({ safetensors: files['adapter_model.safetensors'], configJson: files['adapter_config.json'] }, 'Early again');
    expect(added).toMatchObject({ id: 'early-again', origin: 'file', baseModel: 'toy', policy: 'qwen+early-again' });
    expect(names()).toEqual(['random', 'oracle', 'qwen', 'qwen+early', 'qwen+early-again']);
    expect(model.adapterKeys.at(-1)).toMatch(/^early-again#\d+$/);

    await adapters.deleteAdapter('early');
    expect(names()).toEqual(['random', 'oracle', 'qwen', 'qwen+early-again']);
    models.unloadModel();
    expect(names()).toEqual(['random', 'oracle']);
    expect((await adapters.listAdapters()).map((a) => a.id)).toEqual(expect.arrayContaining(['early-again', 'other-base']));
  });

  it('offers no adapter policies for a model that takes no adapters', async () => {
    const model = fakeLlm('toy', { adapters: false });
    const { models, adapters, names } = setup(() => model);
    await models.loadModel({ kind: 'url', url: 'toy' });
    await adapters.library.add(adapterFor(model), 'kept', 'file', { label: 'toy', config: model.config });
    expect(names()).toEqual(['random', 'oracle', 'qwen']);
  });
});

describe('ModelCacheService without a cache', () => {
  it('lists nothing and clears nothing', async () => {
    const cache = new ModelCacheService(null);
    expect(await cache.cachedModels()).toEqual([]);
    expect(await cache.clearCachedModel('Qwen/Qwen3-0.6B')).toBe(0);
    await expect(cache.clearModelCache()).resolves.toBeUndefined();
  });
});
