/**
 * The folder store of `sqlenv train` (src/cli/file-train-store.ts), without a GPU: checkpoints come back bit for bit
 * (typed arrays, NaN in a history), only the newest `keepPerRun` of a run stay, a checkpoint can be extended to more
 * steps, the adapter is written as PEFT files (with their model card) and read back exactly, and an adapter to start
 * from is served from its own folder.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTrainStore, INIT_ADAPTER_ID } from '../../src/cli/file-train-store.ts';
import { createRng } from '../../src/data/rng.ts';
import { createLoraAdapter, type LoraAdapter } from '../../src/model/lora.ts';
import type { OptimizerState } from '../../src/train/policy-model.ts';
import { DEFAULT_SFT_CONFIG } from '../../src/train/types.ts';
import type { AdapterInfo, CheckpointInfo } from '../../src/workers/train-protocol.ts';
import type { StoredCheckpoint } from '../../src/workers/train-store.ts';
import { TINY } from './model-fixture.ts';

const LORA = { rank: 2, alpha: 4, targetModules: ['q_proj' as const, 'down_proj' as const], dropout: 0, useRslora: false };

/** A non-zero adapter in f32, as the GPU trainer reads it. */
function adapter(seed: number): LoraAdapter {
  const a = createLoraAdapter(TINY, LORA, createRng(seed), (rng) => rng.next() - 0.5);
  return { config: a.config, layers: a.layers.map((layer) => Object.fromEntries(Object.entries(layer).map(([t, p]) => [t, { a: { shape: p.a.shape, data: Float32Array.from(p.a.data) }, b: { shape: p.b.shape, data: Float32Array.from(p.b.data) } }]))) };
}

function checkpoint(runId: string, step: number): StoredCheckpoint {
  const lora = adapter(step);
  const optimizer: OptimizerState = { config: LORA, layers: lora.layers.map((layer) => Object.fromEntries(Object.entries(layer).map(([t, p]) => [t, { a: { m: p.a, v: p.a }, b: { m: p.b, v: p.b } }]))) };
  const info: CheckpointInfo = { id: `${runId}@${step}`, runId, step, totalSteps: 4, dataset: 'demo', model: '/m', config: { ...DEFAULT_SFT_CONFIG, steps: 4 }, savedAt: 1000 + step, bytes: 0 };
  return { info, request: { dataset: 'demo', config: info.config, adapterName: 'x' }, adapterId: 'x', adapter: lora, optimizer, history: { runId, metrics: [], evals: [{ step: 0, trainSuccess: NaN, evalSuccess: 0.5 }], traces: [] } };
}

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sqlenv-store-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('FileTrainStore', () => {
  it('keeps checkpoints bit for bit, the newest two of a run, and extends one to more steps', async () => {
    const store = new FileTrainStore(join(root, 'run'));
    for (const step of [1, 2, 3]) await store.saveCheckpoint(checkpoint('run-a', step), 2);
    await store.saveCheckpoint(checkpoint('run-b', 1), 2);
    expect((await store.listCheckpoints()).map((c) => c.id)).toEqual(['run-a@3', 'run-a@2', 'run-b@1']);
    expect(await store.loadCheckpoint('run-a@1')).toBeNull();
    const back = await store.loadCheckpoint('run-a@3');
    expect(back).toEqual(checkpoint('run-a', 3));
    expect(back!.adapter.layers[1].down_proj!.b.data).toBeInstanceOf(Float32Array);
    expect(Number.isNaN(back!.history.evals[0].trainSuccess)).toBe(true);

    await store.extendCheckpoint('run-a@3', 9);
    const extended = await store.loadCheckpoint('run-a@3');
    expect(extended!.request.config.steps).toBe(9);
    expect(extended!.info.totalSteps).toBe(9);
    expect((await store.listCheckpoints())[0].totalSteps).toBe(9);
    await store.deleteCheckpoint('run-b@1');
    expect((await readdir(join(root, 'run', 'checkpoints'))).sort()).toEqual(['run-a@2.json', 'run-a@2.v8', 'run-a@3.json', 'run-a@3.v8']);
  });

  it('writes the adapter as PEFT files that read back exactly, and serves an adapter to start from', async () => {
    const dir = join(root, 'adapter');
    const store = new FileTrainStore(dir);
    const info: AdapterInfo = { id: 'sft-run', name: 'sft run', origin: 'trained', baseModel: '/models/tiny', rank: 2, alpha: 4, targets: ['q_proj', 'down_proj'], policy: 'qwen+sft-run', steps: 3 };
    const saved = adapter(11);
    await store.saveAdapter(info, { adapter: saved, modelConfig: TINY });
    expect((await readdir(dir)).sort()).toEqual(['README.md', 'adapter-info.json', 'adapter_config.json', 'adapter_model.safetensors']);
    expect(await store.listAdapters()).toEqual([info]);
    const back = await store.loadAdapter('sft-run');
    expect(back!.adapter.layers).toEqual(saved.layers);
    expect(back!.adapter.config).toMatchObject({ rank: 2, alpha: 4, targetModules: ['q_proj', 'down_proj'] });
    expect(await store.loadAdapter('other')).toBeNull();

    const next = new FileTrainStore(join(root, 'grpo'), { initAdapter: { dir, modelConfig: TINY } });
    expect((await next.loadAdapter(INIT_ADAPTER_ID))!.adapter.layers).toEqual(saved.layers);
    expect(await next.listAdapters()).toEqual([]);
    await store.deleteAdapter('sft-run');
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes a model card: library_name peft, and base_model with the Hub id when the base came from the Hub', async () => {
    const cases = [
      // `sqlenv train --model` on a Hugging Face cache snapshot: the Hub id is in the path.
      { baseModel: '/root/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/snapshots/c1899de2/', hubId: 'Qwen/Qwen3-0.6B' },
      // A folder of unknown origin: no base_model in the card, the path as PEFT would write it in the config.
      { baseModel: '/models/tiny', hubId: null },
    ];
    for (const [i, { baseModel, hubId }] of cases.entries()) {
      const dir = join(root, `card-${i}`);
      const info: AdapterInfo = { id: 'run', name: 'run', origin: 'trained', baseModel, rank: 2, alpha: 4, targets: ['q_proj', 'down_proj'], policy: 'qwen+run', steps: 3 };
      await new FileTrainStore(dir).saveAdapter(info, { adapter: adapter(3), modelConfig: TINY });
      const card = await readFile(join(dir, 'README.md'), 'utf8');
      const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(card)![1].split('\n');
      expect(frontMatter).toContain('library_name: peft');
      expect(frontMatter.filter((line) => line.startsWith('base_model:'))).toEqual(hubId === null ? [] : [`base_model: ${hubId}`]);
      const config = JSON.parse(await readFile(join(dir, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
      expect(config.base_model_name_or_path).toBe(hubId ?? baseModel);
    }
  });
});
