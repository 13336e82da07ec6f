/**
 * The training store's contract on the in-memory store (IndexedDB's is the same contract, run in the page): a
 * checkpoint round trip keeps typed arrays exactly, older checkpoints of a run are dropped beyond `keepPerRun` only
 * after the new one is saved, full storage fails the new save and keeps the earlier ones, adapters keep their place
 * when replaced; and the padding that lets one engine play adapters of any rank and targets computes exactly what the
 * adapter does (float64 reference logits).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { createLoraAdapter, DEFAULT_LORA_CONFIG, type LoraAdapter } from '../../src/model/lora.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import type { OptimizerState } from '../../src/train/gpu-model.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';
import { adapterId } from '../../src/workers/adapter-library.ts';
import { padAdapter, planCovers, widenPlan } from '../../src/workers/adapter-slot.ts';
import type { AdapterInfo, CheckpointInfo } from '../../src/workers/train-protocol.ts';
import { isQuotaError, memoryTrainStore, typedArrayBytes, type StoredCheckpoint } from '../../src/workers/train-store.ts';

const model = tinyModelConfig({ vocabSize: 40, numLayers: 2, hiddenSize: 16, numHeads: 2, numKvHeads: 1, headDim: 8, intermediateSize: 24 });
const lora = (rank: number, targets = DEFAULT_LORA_CONFIG.targetModules, alpha = 2 * rank) => ({ ...DEFAULT_LORA_CONFIG, rank, alpha, targetModules: [...targets] });
const adapter = (rank: number, seed: number, targets?: LoraAdapter['config']['targetModules']): LoraAdapter =>
  createLoraAdapter(model, lora(rank, targets), createRng(seed), (rng) => rng.next() - 0.5);

function optimizer(a: LoraAdapter): OptimizerState {
  const like = (t: { shape: number[]; data: ArrayLike<number> }, k: number) => ({ shape: t.shape, data: Float32Array.from(t.data, (x) => x * k) });
  return { config: a.config, layers: a.layers.map((l) => Object.fromEntries(Object.entries(l).map(([t, p]) => [t, { a: { m: like(p.a, 0.1), v: like(p.a, 0.01) }, b: { m: like(p.b, 0.1), v: like(p.b, 0.01) } }]))) };
}

function checkpoint(runId: string, step: number, savedAt: number): StoredCheckpoint {
  const a = adapter(2, step);
  const info: CheckpointInfo = { id: `${runId}@${step}`, runId, step, totalSteps: 10, dataset: 'toy', model: 'm', config: DEFAULT_TRAIN_CONFIG, savedAt, bytes: 0 };
  return { info, request: { dataset: 'toy', config: DEFAULT_TRAIN_CONFIG }, adapterId: runId, adapter: a, optimizer: optimizer(a), history: { runId, metrics: [], evals: [], traces: [] } };
}

describe('memoryTrainStore', () => {
  it('keeps checkpoints exactly, newest first, dropping a run’s older ones beyond keepPerRun after the save', async () => {
    const store = memoryTrainStore();
    const first = checkpoint('r1', 1, 100);
    await store.saveCheckpoint(first, 2);
    const back = await store.loadCheckpoint('r1@1');
    expect(back).toEqual(first);
    expect(back!.adapter.layers[0].q_proj!.a.data).toBeInstanceOf(Float64Array);
    expect(back!.optimizer.layers[1].down_proj!.b.v.data).toBeInstanceOf(Float32Array);
    first.adapter.layers[0].q_proj!.a.data[0] = 42; // the store holds its own copy
    expect((await store.loadCheckpoint('r1@1'))!.adapter.layers[0].q_proj!.a.data[0]).not.toBe(42);

    await store.saveCheckpoint(checkpoint('r2', 5, 150), 2);
    await store.saveCheckpoint(checkpoint('r1', 2, 200), 2);
    await store.saveCheckpoint(checkpoint('r1', 3, 300), 2);
    expect((await store.listCheckpoints()).map((c) => c.id)).toEqual(['r1@3', 'r1@2', 'r2@5']);
    await store.deleteCheckpoint('r1@3');
    expect((await store.listCheckpoints()).map((c) => c.id)).toEqual(['r1@2', 'r2@5']);
    expect(await store.loadCheckpoint('r1@3')).toBeNull();
  });

  it('fails a save beyond the quota with QuotaExceededError and keeps what was saved', async () => {
    const one = typedArrayBytes(checkpoint('r', 1, 1));
    const store = memoryTrainStore({ quotaBytes: one * 1.5 });
    await store.saveCheckpoint(checkpoint('r', 1, 1), 1);
    const failed = await store.saveCheckpoint(checkpoint('r', 2, 2), 1).catch((e: unknown) => e);
    expect(isQuotaError(failed)).toBe(true);
    expect((await store.listCheckpoints()).map((c) => c.step)).toEqual([1]);
  });

  it('lists adapters in the order first saved, replacing in place; histories by run', async () => {
    const store = memoryTrainStore();
    const info = (id: string, steps: number): AdapterInfo => ({ id, name: id, origin: 'trained', baseModel: 'm', rank: 2, alpha: 4, targets: ['q_proj'], policy: `qwen+${id}`, steps });
    await store.saveAdapter(info('a', 1), { adapter: adapter(2, 1), modelConfig: model });
    await store.saveAdapter(info('b', 1), { adapter: adapter(2, 2), modelConfig: model });
    await store.saveAdapter(info('a', 7), { adapter: adapter(2, 3), modelConfig: model });
    expect((await store.listAdapters()).map((a) => [a.id, a.steps])).toEqual([['a', 7], ['b', 1]]);
    expect((await store.loadAdapter('a'))!.adapter).toEqual(adapter(2, 3));
    await store.deleteAdapter('a');
    expect(await store.loadAdapter('a')).toBeNull();
    await store.saveHistory({ runId: 'r', metrics: [], evals: [{ step: 0, trainSuccess: 0.5, evalSuccess: 0 }], traces: [] });
    expect((await store.loadHistory('r'))!.evals[0].trainSuccess).toBe(0.5);
    expect(await store.loadHistory('nope')).toBeNull();
  });
});

describe('adapter ids', () => {
  it.each([
    ['GRPO run 1', [], 'grpo-run-1'],
    ['grpo', ['grpo'], 'grpo-2'],
    ['grpo', ['grpo', 'grpo-2'], 'grpo-3'],
    ['???', [], 'adapter'],
  ])('%j with %j taken → %j', (name, taken, id) => expect(adapterId(name, taken)).toBe(id));
});

describe('padding adapters to the engine’s LoRA plan', () => {
  const weights = toReferenceWeights(model, randomModelWeights(model, createRng(3)));
  const ids = [1, 7, 3, 9, 12, 5];
  const logits = (a: LoraAdapter) => modelForward(model, weights, toReferenceLora(a), emptyCache(model), ids).logits;

  it('computes exactly what the adapter does, at a larger rank and with targets it lacks', () => {
    const small = adapter(2, 11, ['q_proj', 'down_proj']);
    const other = adapter(4, 12, ['v_proj']);
    const plan = widenPlan(widenPlan(null, small), other);
    expect(plan).toEqual({ rank: 4, targets: ['q_proj', 'v_proj', 'down_proj'] });
    expect(planCovers(plan, small) && planCovers(plan, other)).toBe(true);
    expect(planCovers(plan, adapter(8, 1, ['q_proj']))).toBe(false);
    const padded = padAdapter(model, small, plan);
    expect(padded.config.rank).toBe(4);
    const want = logits(small);
    const got = logits(padded);
    let worst = 0;
    for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
    // f32 storage of the padded copy is the only difference from the f64 original.
    expect(worst).toBeLessThan(1e-5);
    // The adapter changes the model, so equal logits are not the base's by accident.
    const base = modelForward(model, weights, null, emptyCache(model), ids).logits;
    expect(Math.max(...want.map((x, i) => Math.abs(x - base[i])))).toBeGreaterThan(1e-3);
    expect(() => padAdapter(model, adapter(8, 1, ['q_proj']), plan)).toThrow(/cannot hold a rank-8 adapter/);
  });
});
