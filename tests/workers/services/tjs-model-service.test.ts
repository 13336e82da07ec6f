/**
 * The transformers.js model service with a fake backend: `qwen-tjs` registered beside the engine's `qwen` in the
 * registry it was given, playing the engine's `LlmPolicy` with the settings asked (the shots built from the dataset,
 * the token limit reaching `generate`), re-registered by new settings, dropped on unload; a cancelled load keeps the
 * model held before; settings are checked before anything loads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { createRng } from '../../../src/data/rng.ts';
import type { GenerateOptions } from '../../../src/policies/llm/llm-policy.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { LlmSettingsError } from '../../../src/workers/llm-settings.ts';
import { TJS_POLICY, TjsModelService, type LoadTjs } from '../../../src/workers/services/tjs-model-service.ts';
import type { LoadedTjs } from '../../../src/workers/tjs/tjs-generate.ts';
import { countingExecutors, fakeLlm, tinyLookup, type CountingExecutors } from './service-fixture.ts';
import { CancelledError } from '../../../src/util/cancelled.ts';

let executors: CountingExecutors;
let lookup: (name: string) => Promise<Dataset>;
let dataset: Dataset;

beforeAll(async () => {
  executors = await countingExecutors();
  ({ dataset, lookup } = await tinyLookup());
});

/** A fake transformers.js model: answers with the end token, records each turn's options; 'hang' waits for cancel. */
function fakeBackend() {
  const turns: GenerateOptions[] = [];
  const destroyed: string[] = [];
  const loadTjs: LoadTjs = async (source, options) => {
    const label = source.kind === 'url' ? source.url : 'files';
    if (label.startsWith('hang')) await new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve()));
    const base = fakeLlm(label);
    const model: LoadedTjs = {
      label,
      config: base.config,
      tokenizer: base.tokenizer,
      device: options.device === 'wasm' ? 'wasm' : 'webgpu',
      dtype: 'q4',
      contextTokens: 256,
      generate: async (_ids, o) => {
        turns.push(o);
        return { tokenIds: [base.tokenizer.special.imEnd], text: 'no tool' };
      },
      destroy: () => void destroyed.push(label),
    };
    return model;
  };
  return { loadTjs, turns, destroyed };
}

const names = (r: PolicyRegistry) => r.list().map((p) => p.name);
const request = (url: string) => ({ source: { kind: 'url', url } as const, dtype: 'auto' as const, device: 'wasm' as const });

describe('TjsModelService', () => {
  it("registers 'qwen-tjs' as an LlmPolicy with the settings asked, and drops it on unload", async () => {
    const policies = new PolicyRegistry();
    const b = fakeBackend();
    const s = new TjsModelService({ policies, dataset: lookup, createExecutor: executors.create, loadTjs: b.loadTjs });
    const info = await s.loadTjsModel({ ...request('one'), settings: { maxNewTokens: 17, temperature: 0, shots: 1, shotDataset: dataset.name } });
    expect(info).toMatchObject({ policy: TJS_POLICY, label: 'one', device: 'wasm', dtype: 'q4', shotsBuilt: 1 });
    expect(names(policies)).toEqual(['random', 'oracle', 'qwen-tjs']);
    expect(policies.list()[2].label).toBe('Qwen (transformers.js, one)');

    const policy = policies.create(TJS_POLICY);
    const q = dataset.questions[0];
    const first = { text: 'question', question: q.question, dbId: q.dbId, tables: [], stepsLeft: 5 } as never;
    await policy.act({ first, history: [], observation: first, question: q, rng: createRng(1) });
    expect(b.turns.map((t) => [t.maxNewTokens, t.temperature])).toEqual([[17, 0]]);

    expect((await s.setTjsSettings({ maxNewTokens: 5 })).settings.maxNewTokens).toBe(5);
    s.unloadTjsModel();
    expect(names(policies)).toEqual(['random', 'oracle']);
    expect(b.destroyed).toEqual(['one']);
    expect(s.tjsModelInfo()).toBeNull();
  });

  it('checks settings before loading, and a cancelled load keeps the model held', async () => {
    const policies = new PolicyRegistry();
    const b = fakeBackend();
    const s = new TjsModelService({ policies, dataset: lookup, createExecutor: executors.create, loadTjs: b.loadTjs });
    await expect(s.loadTjsModel({ ...request('one'), settings: { topP: 0 } })).rejects.toBeInstanceOf(LlmSettingsError);
    expect(names(policies)).toEqual(['random', 'oracle']);
    await s.loadTjsModel(request('one'));
    const hanging = s.loadTjsModel(request('hang'));
    s.cancelTjsLoad();
    await expect(hanging).rejects.toBeInstanceOf(CancelledError);
    expect(s.tjsModelInfo()?.label).toBe('one');
    expect(b.destroyed).toEqual(['hang']);
  });

  it('refuses to load where no backend exists', async () => {
    const s = new TjsModelService({ policies: new PolicyRegistry(), dataset: lookup, createExecutor: executors.create });
    await expect(s.loadTjsModel(request('x'))).rejects.toThrow(/cannot run transformers\.js/);
  });
});
