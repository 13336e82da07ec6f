/**
 * The training service on the float64 reference, for Node tests: an `EnvApi` holding the toy dataset
 * (src/train/toy-task.ts) and a "loaded model" whose generate runs the reference model (base, or with a kept
 * adapter), with trainable sessions made of `ReferenceTrainableModel`s — so a real run, real checkpoints and a real
 * adapter policy go through the service's code unchanged.
 */
import initSqlJs from 'sql.js';
import { createRng } from '../../src/data/rng.ts';
import type { Dataset } from '../../src/data/types.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { randomModelWeights } from '../../src/model/tiny-model.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { Tensor } from '../../src/model/weights.ts';
import type { Generate } from '../../src/policies/llm/llm-policy.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { buildToyDataset, createToyTokenizer } from '../../src/train/toy-task.ts';
import { createEnvApi, type EnvApi } from '../../src/workers/env-api.ts';
import type { AdapterSource, LoadedLlm } from '../../src/workers/llm-generate.ts';
import type { TrainModelRequest, TrainSession, TrainSessionModel } from '../../src/workers/train-service.ts';
import type { TrainStore } from '../../src/workers/train-store.ts';
import { toyModelConfig, TOY_LORA } from '../train/toy-fixture.ts';

export interface TrainServiceFixture {
  dataset: Dataset;
  tokenizer: Tokenizer;
  config: ModelConfig;
  weights: Map<string, Tensor>;
  /** Sessions made so far (the latest last). */
  sessions: TrainSessionModel[];
  /** Replace to make sessions fail or misbehave; default: a fresh reference session. */
  makeSession: (request: TrainModelRequest) => Promise<TrainSession>;
  service(store: TrainStore): EnvApi;
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
      const model = new ReferenceTrainableModel(config, weights, tokenizer, { lora: request.lora, seed: request.seed, contextTokens: request.contextTokens });
      f.sessions.push(model);
      return { model, destroy: () => undefined };
    },
    service: (store) => {
      const service = createEnvApi({
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
    model.loadAdapter(adapter);
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
