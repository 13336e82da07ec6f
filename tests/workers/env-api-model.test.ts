/**
 * The environment API's model methods in Node, with the real source reader (a picked folder's files), the real Qwen3
 * tokenizer and a fake `generate` in place of the WebGPU engine: settings checked before anything loads, a bad folder
 * failing with the reader's typed error and changing nothing, the policy list before / after load / after unload,
 * settings reaching the policy (1-shot and 3-shot prompts longer than zero-shot, the prompt size in the transcript),
 * cancel keeping the model held before, and the model cache listed and cleared through the service.
 */
import { dirname } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderBundleReader, writeBundleFolder } from '../../src/data/bundle-node.ts';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import { createRng } from '../../src/data/rng.ts';
import { CacheStorageFileStore } from '../../src/model/cache.ts';
import { toHfConfigJson } from '../../src/model/config.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import { fileKey } from '../../src/model/hub.ts';
import { loadCheckpoint } from '../../src/model/load.ts';
import { LocalModelFileError, type LocalFile } from '../../src/model/local-folder.ts';
import { writeSafetensors } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { createEnvApi, type EnvApi } from '../../src/workers/env-api.ts';
import type { EnvServicesOptions } from '../../src/workers/services/env-services.ts';
import type { LlmLoadProgress, LoadedLlm } from '../../src/workers/llm-generate.ts';
import { sourceReader, type LlmSource } from '../../src/workers/llm-source.ts';
import { LlmSettingsError } from '../../src/workers/llm-settings.ts';
import { CancelledError } from '../../src/util/cancelled.ts';

const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

function tinyFolder(prefix: string): LocalFile[] {
  const config = tinyModelConfig({ vocabSize: 64 });
  const weights = randomModelWeights(config, createRng(5));
  const files: Record<string, Uint8Array> = {
    'config.json': enc(toHfConfigJson(config)),
    'tokenizer.json': enc({ model: {} }),
    'tokenizer_config.json': enc({}),
    'model.safetensors': writeSafetensors(new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: t.data }]))),
  };
  return Object.entries(files).map(([name, bytes]) => ({ path: prefix + name, data: new Blob([bytes.slice().buffer]) }));
}

/** Cache Storage in memory (Node has Request and Response but no `caches`). */
function memoryCaches(): CacheStorage {
  const all = new Map<string, Map<string, Response>>();
  const url = (r: RequestInfo | URL) => (typeof r === 'string' ? r : r instanceof URL ? r.href : r.url);
  return {
    open: async (name: string) => {
      let entries = all.get(name);
      if (!entries) all.set(name, (entries = new Map<string, Response>()));
      const m = entries;
      return {
        match: async (r: RequestInfo) => m.get(url(r))?.clone(),
        put: async (r: RequestInfo, res: Response) => void m.set(url(r), res),
        delete: async (r: RequestInfo) => m.delete(url(r)),
        keys: async () => [...m.keys()].map((u) => new Request(u)),
      };
    },
    delete: async (name: string) => all.delete(name),
  } as unknown as CacheStorage;
}

let dir: string;
let tokenizer: Tokenizer;
const prompts: number[][] = [];
let loads = 0;
let destroyed = 0;
/** While set, a load waits for its signal (to test cancel). */
let hang = false;

const loadLlm: NonNullable<EnvServicesOptions['loadLlm']> = async (source: LlmSource, onProgress: (p: LlmLoadProgress) => void, options) => {
  loads++;
  if (hang) {
    await new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(new CancelledError('Loading second/ was cancelled.'))));
  }
  const reader = sourceReader(source, 'http://127.0.0.1/');
  const files = await reader.read(onProgress, options.signal);
  const model = loadCheckpoint(files.checkpoint);
  const llm: LoadedLlm = {
    label: reader.label,
    config: model.config,
    tokenizer,
    contextTokens: 8192,
    adapter: 'fake/none',
    weights: options.weights ?? 'q4',
    generate: async (ids) => {
      prompts.push(ids);
      // Three new tokens: the first comes with the prefill (0.02 s), two more in 0.5 s of decode.
      return { tokenIds: [40, 41, tokenizer.special.imEnd], text: 'I will not call a tool.', prefillSeconds: 0.02, decodeSeconds: 0.5 };
    },
    recoveries: () => 0,
    destroy: () => void destroyed++,
  };
  return llm;
};

const cache = new CacheStorageFileStore(memoryCaches());
let service: EnvApi;

beforeAll(async () => {
  tokenizer = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
  dir = mkdtempSync(join(tmpdir(), 'sqlenv-bundles-'));
  await writeBundleFolder(join(dir, 'demo'), await buildDemoDataset());
  service = createEnvApi({
    createExecutor: () => createNodeSqlExecutor({ limits: { timeoutMs: 2000 } }),
    bundleReader: (name) => folderBundleReader(join(dir, name)),
    bundleNames: async () => ['demo'],
    datasetStore: null,
    loadLlm,
    modelCache: cache,
  });
});
afterAll(() => service.close());

const names = () => service.policies().map((p) => p.name);

/** The prompt length of the first turn of a fixed eval question. */
async function firstPromptLength(): Promise<number> {
  const { questions } = await service.loadDataset('demo');
  const id = questions.find((q) => q.split === 'eval')!.id;
  await service.reset('w', 'demo', { questionId: id, seed: 1 }, 'qwen');
  const { step } = await service.policyStep('w');
  expect(step.generation?.promptTokens).toBe(prompts.at(-1)!.length);
  return prompts.at(-1)!.length;
}

describe('EnvApi model methods', () => {
  it('refuses to load where no engine runs', async () => {
    const bare = createEnvApi({ createExecutor: () => createNodeSqlExecutor(), bundleReader: () => folderBundleReader(dir), bundleNames: async () => [], datasetStore: null });
    await expect(bare.loadModel({ kind: 'url', url: 'models/tiny/' })).rejects.toThrow(/cannot run language models/);
    await bare.close();
  });

  it('checks settings before loading anything', async () => {
    const before = loads;
    await expect(service.loadModel({ kind: 'files', files: tinyFolder('tiny/') }, { maxNewTokens: 0 })).rejects.toBeInstanceOf(LlmSettingsError);
    await expect(service.loadModel({ kind: 'files', files: tinyFolder('tiny/') }, { shots: 2 as 1 })).rejects.toThrow(/'shots'/);
    expect(loads).toBe(before);
    expect(names()).not.toContain('qwen');
  });

  it('a folder without config.json fails with the reader error and registers nothing', async () => {
    const files = tinyFolder('broken/').filter((f) => !f.path.endsWith('config.json') || f.path.endsWith('tokenizer_config.json'));
    const e = await service.loadModel({ kind: 'files', files }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(LocalModelFileError);
    expect((e as Error).message).toMatch(/config\.json in the folder 'broken' is missing/);
    expect(names()).toEqual(['random', 'oracle']);
    expect(service.modelInfo()).toBeNull();
  });

  it('lists the qwen policy once loaded, with its settings, and drops it on unload', async () => {
    expect(names()).toEqual(['random', 'oracle']);
    const progress: string[] = [];
    const info = await service.loadModel({ kind: 'files', files: tinyFolder('tiny/') }, { temperature: 0, maxNewTokens: 32, weights: 'q8' }, (p) => progress.push(p.phase));
    expect(progress).toContain('download');
    expect(info).toMatchObject({ policy: 'qwen', label: 'tiny', architecture: 'qwen3', weights: 'q8', maxNewTokens: 32, shotsBuilt: 0 });
    expect(info.settings).toMatchObject({ thinking: false, shots: 0, temperature: 0, maxNewTokens: 32, weights: 'q8' });
    expect(names()).toEqual(['random', 'oracle', 'qwen']);
    expect(service.policies().find((p) => p.name === 'qwen')?.description).toMatch(/zero-shot, thinking off, greedy, at most 32 new tokens a turn, q8 weights/);
    const destroyedBefore = destroyed;
    service.unloadModel();
    expect(destroyed).toBe(destroyedBefore + 1);
    expect(names()).toEqual(['random', 'oracle']);
    expect(service.modelInfo()).toBeNull();
    await expect(service.setModelSettings({})).rejects.toThrow(/No model is loaded/);
  });

  it('settings reach the policy: 1-shot and 3-shot prompts are longer than zero-shot, thinking changes the prompt', async () => {
    await service.loadModel({ kind: 'files', files: tinyFolder('tiny/') }, { shots: 0 });
    const zero = await firstPromptLength();
    const one = await service.setModelSettings({ shots: 1, shotDataset: 'demo' });
    expect(one.shotsBuilt).toBe(1);
    const oneShot = await firstPromptLength();
    expect(oneShot).toBeGreaterThan(zero + 20);
    await service.setModelSettings({ shots: 3 });
    const threeShot = await firstPromptLength();
    expect(threeShot).toBeGreaterThan(oneShot + 20);
    await service.setModelSettings({ shots: 0, thinking: true });
    expect(await firstPromptLength()).not.toBe(zero);
    await expect(service.setModelSettings({ topP: 0 })).rejects.toBeInstanceOf(LlmSettingsError);
    service.unloadModel();
  });

  it('records prefill and decode speeds apart in the transcript', async () => {
    await service.loadModel({ kind: 'files', files: tinyFolder('tiny/') });
    await firstPromptLength();
    const { step } = await service.policyStep('w');
    expect(step.generation?.prefillTokensPerSecond).toBeCloseTo(prompts.at(-1)!.length / 0.02, 6);
    expect(step.generation?.decodeTokensPerSecond).toBeCloseTo(2 / 0.5, 9); // prefill excluded: tokens after the first
    expect(step.generation?.newTokens).toBe(3);
    service.unloadModel();
  });

  it('cancelling a load rejects it and keeps the model held before', async () => {
    await service.loadModel({ kind: 'files', files: tinyFolder('first/') });
    hang = true;
    const loadsBefore = loads;
    const pending = service.loadModel({ kind: 'files', files: tinyFolder('second/') });
    // Wait for the event (the load has reached the engine and hangs there), not for a fixed delay.
    for (let i = 0; i < 10_000 && loads === loadsBefore; i++) await new Promise((r) => setTimeout(r, 0));
    expect(loads, 'the second load reached the engine').toBe(loadsBefore + 1);
    service.cancelModelLoad();
    const e = await pending.catch((err: unknown) => err);
    hang = false;
    expect(e).toBeInstanceOf(CancelledError);
    expect(service.modelInfo()?.label).toBe('first');
    expect(names()).toContain('qwen');
    service.unloadModel();
  });

  it('lists the cached models with sizes and clears one or all', async () => {
    expect(await service.cachedModels()).toEqual([]);
    const base = 'https://huggingface.co';
    await cache.put(fileKey(base, 'Qwen/Qwen3-0.6B', 'main', 'config.json'), new Uint8Array(100));
    await cache.putPartial(fileKey(base, 'Qwen/Qwen3-0.6B', 'main', 'model.safetensors'), new Uint8Array(1000));
    await cache.put(fileKey(base, 'Qwen/Qwen2.5-0.5B-Instruct', 'main', 'config.json'), new Uint8Array(50));
    const listed = await service.cachedModels();
    expect(listed.map((m) => [m.repo, m.bytes, m.files.filter((f) => f.partial).length])).toEqual([
      ['Qwen/Qwen2.5-0.5B-Instruct', 50, 0],
      ['Qwen/Qwen3-0.6B', 1100, 1],
    ]);
    expect(await service.clearCachedModel('Qwen/Qwen3-0.6B', { revision: 'main', base })).toBe(2);
    expect((await service.cachedModels()).map((m) => m.repo)).toEqual(['Qwen/Qwen2.5-0.5B-Instruct']);
    await service.clearModelCache();
    expect(await service.cachedModels()).toEqual([]);
  });
});
