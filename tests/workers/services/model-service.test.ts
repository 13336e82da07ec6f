/**
 * The model service alone, with a fake engine: the policy `qwen` lives in the registry it was given and nowhere
 * else, listeners hear of every change in order, a newer load cancels the one running (its model destroyed), settings
 * applied while the model is dropped are refused, `trainBase` hands training the held model, and `close` stops a load.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import type { LlmLoadOptions, LlmSource } from '../../../src/workers/llm-generate.ts';
import type { TrainModelRequest } from '../../../src/workers/train-service.ts';
import { LLM_POLICY, ModelService, type CreateTrainSession, type LoadLlm } from '../../../src/workers/services/model-service.ts';
import { countingExecutors, fakeLlm, tinyLookup, type CountingExecutors, type FakeLlm } from './service-fixture.ts';
import { CancelledError } from '../../../src/util/cancelled.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

const source = (url: string): LlmSource => ({ kind: 'url', url });
const names = (r: PolicyRegistry) => r.list().map((p) => p.name);

/** Loads a fake model labelled by the source's url; a url starting with 'hang' waits for its signal. */
function fakeEngine(): { loadLlm: LoadLlm; made: FakeLlm[]; options: LlmLoadOptions[] } {
  const made: FakeLlm[] = [];
  const options: LlmLoadOptions[] = [];
  const loadLlm: LoadLlm = async (s, _onProgress, o) => {
    options.push(o);
    const url = s.kind === 'url' ? s.url : 'files';
    if (url.startsWith('hang')) await new Promise<void>((resolve) => o.signal?.addEventListener('abort', () => resolve()));
    const llm = fakeLlm(url);
    made.push(llm);
    return llm;
  };
  return { loadLlm, made, options };
}

/** Resolves once `check` holds, yielding to the event loop between looks (an event, not a fixed delay). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(check(), 'the awaited condition').toBe(true);
}

function service(policies: PolicyRegistry, loadLlm?: LoadLlm, createTrainSession?: CreateTrainSession, dataset = lookup): ModelService {
  return new ModelService({ policies, dataset, createExecutor: executors.create, loadLlm, createTrainSession });
}

describe('ModelService', () => {
  it("registers 'qwen' in its own registry only, and tells listeners of each change in order", async () => {
    const policies = new PolicyRegistry();
    const elsewhere = new PolicyRegistry();
    const models = service(policies, fakeEngine().loadLlm);
    const heard: string[] = [];
    models.listen({ changed: async () => void heard.push(`changed:${names(policies).join(',')}`), dropped: () => void heard.push('dropped') });
    const info = await models.loadModel(source('one'), { weights: 'q8', temperature: 0 });
    expect(info).toMatchObject({ policy: LLM_POLICY, label: 'one', weights: 'f16', shotsBuilt: 0 });
    expect(names(policies)).toEqual(['random', 'oracle', 'qwen']);
    expect(names(elsewhere)).toEqual(['random', 'oracle']);
    expect(models.policyMaker()).not.toBeNull();
    await models.setModelSettings({ temperature: 0.7 });
    models.unloadModel();
    expect(heard).toEqual(['dropped', 'changed:random,oracle,qwen', 'changed:random,oracle,qwen', 'dropped']);
    expect(names(policies)).toEqual(['random', 'oracle']);
    expect(models.loaded()).toBeNull();
    expect(models.policyMaker()).toBeNull();
  });

  it('builds shots on an executor of its own, closed after', async () => {
    const models = service(new PolicyRegistry(), fakeEngine().loadLlm);
    const closed = executors.closed();
    const info = await models.loadModel(source('shots'), { shots: 1, shotDataset: 'tiny' });
    expect(info.shotsBuilt).toBe(1);
    expect(executors.closed()).toBe(closed + 1);
    models.close();
  });

  it('a newer load cancels the one running: it rejects, its model is destroyed, the newer one is held', async () => {
    const engine = fakeEngine();
    const models = service(new PolicyRegistry(), engine.loadLlm);
    const first = models.loadModel(source('hang-first'));
    await until(() => engine.options.length === 1); // the first load is inside the engine, hanging
    const second = await models.loadModel(source('second'));
    const e = await first.catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CancelledError);
    expect(engine.made.find((m) => m.label === 'hang-first')?.destroyed()).toBe(1);
    expect(second.label).toBe('second');
    expect(models.modelInfo()?.label).toBe('second');
    models.close();
  });

  it('refuses settings that finish after the model was dropped', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const slow = async (name: string) => {
      await gate;
      return lookup(name);
    };
    const policies = new PolicyRegistry();
    const models = service(policies, fakeEngine().loadLlm, undefined, slow);
    await models.loadModel(source('m'));
    const applying = models.setModelSettings({ shots: 1, shotDataset: 'tiny' });
    models.unloadModel();
    open();
    await expect(applying).rejects.toThrow('The model changed while its settings were applied.');
    expect(names(policies)).toEqual(['random', 'oracle']);
  });

  it('hands training the held model, and says so when it cannot train', async () => {
    const requests: Array<{ source: LlmSource; label: string }> = [];
    const create: CreateTrainSession = async (s, loaded) => {
      requests.push({ source: s, label: loaded.label });
      return { model: null as never, destroy: () => undefined };
    };
    const request = {} as TrainModelRequest;
    const models = service(new PolicyRegistry(), fakeEngine().loadLlm, create);
    expect(models.trainBase()).toBeNull();
    await models.loadModel(source('base'));
    const base = models.trainBase();
    expect(base?.label).toBe('base');
    await base?.createSession(request);
    expect(requests).toEqual([{ source: source('base'), label: 'base' }]);
    const untrainable = service(new PolicyRegistry(), fakeEngine().loadLlm);
    await untrainable.loadModel(source('base'));
    expect(() => untrainable.trainBase()?.createSession(request)).toThrow(/cannot train models/);
  });

  it('close stops a load in progress and drops the model held', async () => {
    const engine = fakeEngine();
    const policies = new PolicyRegistry();
    const models = service(policies, engine.loadLlm);
    await models.loadModel(source('held'));
    const pending = models.loadModel(source('hang-pending'));
    await until(() => engine.options.length === 2); // the second load is inside the engine, hanging
    models.close();
    await expect(pending).rejects.toThrow(/cancelled/);
    expect(engine.made.map((m) => [m.label, m.destroyed()])).toEqual([
      ['held', 1],
      ['hang-pending', 1],
    ]);
    expect(names(policies)).toEqual(['random', 'oracle']);
  });

  it('refuses to load where no engine runs', async () => {
    await expect(service(new PolicyRegistry()).loadModel(source('x'))).rejects.toThrow(/cannot run language models/);
  });
});
