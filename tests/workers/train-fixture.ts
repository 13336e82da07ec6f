/**
 * The training service on the float64 reference, for Node tests: an `EnvService` holding the toy dataset
 * (src/train/toy-task.ts) and a "loaded model" whose generate runs the reference model (base, or with a kept
 * adapter), with trainable sessions made of `ReferenceTrainableModel`s — so a real run, real checkpoints and a real
 * adapter policy go through the service's code unchanged.
 *
 * `referenceSession` adds what the service needs beyond `TrainableModel` (adapter and AdamW state in and out). The
 * reference keeps its AdamW moments private, so they are reached through a cast here; a `readOptimizerState` on
 * ReferenceTrainableModel itself would remove it.
 */
import initSqlJs from 'sql.js';
import { createRng } from '../../src/data/rng.ts';
import type { Dataset } from '../../src/data/types.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import type { LoraAdapter, LoraTarget } from '../../src/model/lora.ts';
import type { LoraGrads } from '../../src/model/reference/backward.ts';
import { randomModelWeights } from '../../src/model/tiny-model.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { Tensor } from '../../src/model/weights.ts';
import type { Generate } from '../../src/policies/llm/llm-policy.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import type { OptimizerState } from '../../src/train/gpu-model.ts';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { buildToyDataset, createToyTokenizer } from '../../src/train/toy-task.ts';
import { EnvService } from '../../src/workers/env-service.ts';
import type { AdapterSource, LoadedLlm } from '../../src/workers/llm-generate.ts';
import type { TrainSession, TrainSessionModel } from '../../src/workers/train-service.ts';
import type { TrainStore } from '../../src/workers/train-store.ts';
import { toyModelConfig, TOY_LORA } from '../train/toy-fixture.ts';

type Moments = { moments: LoraGrads; moments2: LoraGrads };

function copyAdapter(a: LoraAdapter): LoraAdapter {
  return { config: { ...a.config, targetModules: [...a.config.targetModules] }, layers: a.layers.map((l) => Object.fromEntries(Object.entries(l).map(([t, p]) => [t, { a: { shape: [...p.a.shape], data: p.a.data.slice() }, b: { shape: [...p.b.shape], data: p.b.data.slice() } }]))) };
}

/** Copies `from`'s values into `to`'s arrays (same shapes), in place: the reference's LoRA reads those arrays. */
function assignAdapter(to: LoraAdapter, from: LoraAdapter): void {
  to.layers.forEach((layer, l) => {
    for (const [t, pair] of Object.entries(layer)) {
      const src = from.layers[l][t as LoraTarget];
      if (!src || src.a.data.length !== pair.a.data.length || src.b.data.length !== pair.b.data.length) throw new RangeError(`adapter layer ${l} ${t}: shapes differ`);
      pair.a.data.set(src.a.data);
      pair.b.data.set(src.b.data);
    }
  });
}

/** The reference model as a training session model (adapter and AdamW moments readable and loadable). */
export function referenceSession(model: ReferenceTrainableModel): TrainSessionModel {
  const moments = model as unknown as Moments;
  const tensor = (data: Float64Array, shape: number[]): Tensor => ({ shape: [...shape], data: data.slice() });
  const extras: Pick<TrainSessionModel, 'readAdapter' | 'loadAdapter' | 'readOptimizerState' | 'loadOptimizerState'> = {
    readAdapter: async () => copyAdapter(model.adapter),
    loadAdapter: (adapter) => assignAdapter(model.adapter, adapter),
    readOptimizerState: async (): Promise<OptimizerState> => ({
      config: model.adapter.config,
      layers: model.adapter.layers.map((layer, l) =>
        Object.fromEntries(
          Object.entries(layer).map(([t, pair]) => {
            const m = moments.moments[l][t as LoraTarget]!;
            const v = moments.moments2[l][t as LoraTarget]!;
            return [t, { a: { m: tensor(m.da, pair.a.shape), v: tensor(v.da, pair.a.shape) }, b: { m: tensor(m.db, pair.b.shape), v: tensor(v.db, pair.b.shape) } }];
          }),
        ),
      ),
    }),
    loadOptimizerState: (state) => {
      state.layers.forEach((layer, l) => {
        for (const [t, pair] of Object.entries(layer)) {
          const m = moments.moments[l][t as LoraTarget]!;
          const v = moments.moments2[l][t as LoraTarget]!;
          m.da.set(pair.a.m.data);
          m.db.set(pair.b.m.data);
          v.da.set(pair.a.v.data);
          v.db.set(pair.b.v.data);
        }
      });
    },
  };
  return Object.assign(model, extras);
}

export interface TrainServiceFixture {
  dataset: Dataset;
  tokenizer: Tokenizer;
  config: ModelConfig;
  weights: Map<string, Tensor>;
  /** Sessions made so far (the latest last). */
  sessions: TrainSessionModel[];
  /** Replace to make sessions fail or misbehave; default: a fresh reference session. */
  makeSession: (request: Parameters<NonNullable<ConstructorParameters<typeof EnvService>[0]['createTrainSession']>>[2]) => Promise<TrainSession>;
  service(store: TrainStore): EnvService;
}

export async function trainServiceFixture(): Promise<TrainServiceFixture> {
  const sql = await initSqlJs();
  const dataset = await buildToyDataset(sql);
  const tokenizer = createToyTokenizer();
  const config = toyModelConfig(tokenizer.size);
  const weights = randomModelWeights(config, createRng(1));
  const f: TrainServiceFixture = {
    dataset,
    tokenizer,
    config,
    weights,
    sessions: [],
    makeSession: async (request) => {
      const model = referenceSession(new ReferenceTrainableModel(config, weights, tokenizer, { lora: request.lora, seed: request.seed, contextTokens: request.contextTokens }));
      f.sessions.push(model);
      return { model, destroy: () => undefined };
    },
    service: (store) => {
      const service = new EnvService({
        createExecutor: () => new LocalSqlExecutor(sql),
        bundleReader: () => {
          throw new Error('no bundles in this test');
        },
        bundleNames: async () => [],
        datasetStore: null,
        trainStore: store,
        loadLlm: async () => referenceLlm(config, weights, tokenizer),
        createTrainSession: (_source, _loaded, request) => f.makeSession(request),
      });
      service.addDataset(dataset);
      return service;
    },
  };
  return f;
}

/** A "loaded model" on the reference: the base, or a kept adapter loaded into a reference model of its own. */
function referenceLlm(config: ModelConfig, weights: Map<string, Tensor>, tokenizer: Tokenizer): LoadedLlm {
  const generateOn =
    (model: () => Promise<ReferenceTrainableModel>): Generate =>
    async (promptTokenIds, o) => {
      const [g] = await (await model()).generate([{ promptTokenIds, maxNewTokens: o.maxNewTokens, temperature: o.temperature, topP: o.topP, seed: o.seed >>> 0 }]);
      return g;
    };
  const fresh = (lora = TOY_LORA) => new ReferenceTrainableModel(config, weights, tokenizer, { lora, seed: 7, contextTokens: 256 });
  const base = fresh();
  const withAdapter = async (source: AdapterSource): Promise<ReferenceTrainableModel> => {
    const adapter = await source.load();
    const model = fresh(adapter.config);
    assignAdapter(model.adapter, adapter);
    return model;
  };
  return {
    label: 'toy-model',
    config,
    tokenizer,
    contextTokens: 256,
    adapter: 'reference/f64',
    weights: 'f16',
    generate: generateOn(async () => base), // a fresh adapter (B = 0) leaves the model unchanged
    generateWith: (source) => {
      let model: Promise<ReferenceTrainableModel> | null = null;
      return generateOn(() => (model ??= withAdapter(source)));
    },
    release: () => undefined,
    recoveries: () => 0,
    destroy: () => undefined,
  };
}
