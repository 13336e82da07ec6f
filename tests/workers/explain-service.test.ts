/**
 * The worker's "what the adapter changed" (services/explain-service.ts) through `EnvApi`, on the toy model and the
 * float64 reference (train-fixture.ts): an episode the adapter policy `qwen+<id>` played in an evaluation is
 * explained with the held model's settings, on a trainable copy made for it and destroyed after; every token's base
 * and adapter log-prob equals a log-softmax computed here from the reference's forward without and with that adapter.
 * Refusals name their reason: no model, an unknown adapter, an adapter of another base model, a non-model episode.
 * Seeds are drawn per run and printed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { explainTurns, firstObservation } from '../../src/eval/explain.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { writePeftAdapter } from '../../src/model/adapter-file.ts';
import { createLoraAdapter, type LoraAdapter } from '../../src/model/lora.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import type { EnvApi } from '../../src/workers/env-api.ts';
import type { ExplainProgress } from '../../src/workers/services/explain-service.ts';
import { memoryTrainStore } from '../../src/workers/train-store.ts';
import { TOY_LORA } from '../train/toy-fixture.ts';
import { trainServiceFixture, type TrainServiceFixture } from './train-fixture.ts';
import initSqlJs from 'sql.js';
import { testSeed } from '../fixtures/seed.ts';

const SEED = testSeed('tests/workers/explain-service.test.ts');

let f: TrainServiceFixture;
let destroyed = 0;
beforeAll(async () => {
  f = await trainServiceFixture();
  const make = f.makeSession;
  f.makeSession = async (request) => {
    const session = await make(request);
    return { ...session, destroy: () => (destroyed++, session.destroy()) };
  };
});

/** log p(ids[t] | ids[..t]) for t ≥ from, from the reference's forward and a log-softmax written here. */
function logProbs(ids: readonly number[], from: number, adapter: LoraAdapter | null): number[] {
  const V = f.config.vocabSize;
  const { logits } = modelForward(f.config, toReferenceWeights(f.config, f.weights), adapter && toReferenceLora(adapter), emptyCache(f.config), ids);
  const out: number[] = [];
  for (let t = from; t < ids.length; t++) {
    const row = logits.subarray((t - 1) * V, t * V);
    const max = Math.max(...row);
    out.push(row[ids[t]] - max - Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0)));
  }
  return out;
}

async function withAdapter(service: EnvApi, name: string, baseLabel = 'toy-model'): Promise<{ id: string; adapter: LoraAdapter }> {
  const adapter = createLoraAdapter(f.config, TOY_LORA, createRng(SEED), (rng) => 0.3 * (rng.next() * 2 - 1));
  const files = writePeftAdapter(adapter, { modelId: baseLabel, config: f.config });
  const info = await service.loadAdapterFiles({ safetensors: files['adapter_model.safetensors'], configJson: files['adapter_config.json'] }, name);
  return { id: info.id, adapter };
}

describe('ExplainService', () => {
  it('scores the adapter policy’s replies under the base and the adapter, as the reference does', async () => {
    const service = f.service(memoryTrainStore());
    const record0: EpisodeRecord = (await service.evaluate({ runId: 'o', dataset: 'toy', policy: 'oracle', split: 'train', episodes: 1, seed: 0 })).records[0];
    await expect(service.explainEpisode({ record: record0, adapterId: 'x' })).rejects.toThrow(/No model is loaded/);

    await service.loadModel({ kind: 'url', url: 'toy' }, { maxNewTokens: 3, temperature: 1, topP: 1 });
    const { id, adapter } = await withAdapter(service, 'trained');
    await expect(service.explainEpisode({ record: record0, adapterId: 'missing' })).rejects.toThrow(/No adapter 'missing'/);
    await expect(service.explainEpisode({ record: record0, adapterId: id })).rejects.toThrow(/no model replies/);

    const report = await service.evaluate({ runId: 'r', dataset: 'toy', policy: `qwen+${id}`, split: 'train', episodes: 1, seed: SEED % 1000 });
    const record = report.records[0];
    const progress: ExplainProgress[] = [];
    const before = destroyed;
    const explanation = await service.explainEpisode({ record, adapterId: id }, (p) => progress.push(p));
    expect(destroyed).toBe(before + 1);
    expect(progress.at(-1)).toMatchObject({ phase: 'scoring', done: progress.at(-1)!.total });

    const executor = new LocalSqlExecutor(await initSqlJs());
    const first = await firstObservation(new SqlEnv(f.dataset, executor), record);
    await executor.close();
    const turns = explainTurns(record, first, f.tokenizer, { shots: [], thinking: false, contextTokens: 256, maxNewTokens: 3 });
    expect(explanation.actions).toHaveLength(turns.length);
    turns.forEach((t, i) => {
      const ids = [...t.promptTokenIds, ...t.replyTokenIds];
      const base = logProbs(ids, t.promptTokenIds.length, null);
      const withIt = logProbs(ids, t.promptTokenIds.length, adapter);
      explanation.actions[i].tokens.forEach((tok, k) => {
        expect(tok.base).toBeCloseTo(base[k], 5);
        expect(tok.adapter).toBeCloseTo(withIt[k], 5);
      });
    });
    expect(explanation.actions.some((a) => Math.abs(a.delta) > 1e-4)).toBe(true);
  });

  it('refuses an adapter made for another base model', async () => {
    const store = memoryTrainStore();
    const adapter = createLoraAdapter(f.config, TOY_LORA, createRng(SEED));
    const { rank, alpha, targetModules } = adapter.config;
    await store.saveAdapter({ id: 'foreign', name: 'Foreign', origin: 'file', baseModel: 'another-model', rank, alpha, targets: [...targetModules], policy: 'qwen+foreign' }, { adapter, modelConfig: f.config });
    const service = f.service(store);
    await service.loadModel({ kind: 'url', url: 'toy' }, { maxNewTokens: 3 });
    const report = await service.evaluate({ runId: 'r', dataset: 'toy', policy: 'qwen', split: 'train', episodes: 1, seed: 1 });
    await expect(service.explainEpisode({ record: report.records[0], adapterId: 'foreign' })).rejects.toThrow(/made for another-model, but toy-model is loaded/);
  });
});
