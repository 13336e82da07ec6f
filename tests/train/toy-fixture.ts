/**
 * The toy task (src/train/toy-task.ts) with a tiny random Qwen3 on the float64 reference, for the training tests:
 * vocabulary = the toy tokenizer's (31 ids), 2 layers, hidden 32, LoRA rank 4 on every projection.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import type { Dataset } from '../../src/data/types.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { DEFAULT_LORA_CONFIG, type LoraConfig } from '../../src/model/lora.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { Tensor } from '../../src/model/weights.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { ReferenceTrainableModel, type ReferenceModelOptions } from '../../src/train/reference-model.ts';
import { buildToyDataset, createToyTokenizer } from '../../src/train/toy-task.ts';

export const TOY_LORA: LoraConfig = { ...DEFAULT_LORA_CONFIG, rank: 4, alpha: 8 };

export interface ToyFixture {
  dataset: Dataset;
  executor: LocalSqlExecutor;
  tokenizer: Tokenizer;
  config: ModelConfig;
  weights: Map<string, Tensor>;
  /** A fresh model (fresh adapter) on the fixture's base weights. */
  model(options?: Partial<ReferenceModelOptions>): ReferenceTrainableModel;
}

export function toyModelConfig(vocabSize: number): ModelConfig {
  return tinyModelConfig({ vocabSize, numLayers: 2, hiddenSize: 32, numHeads: 4, numKvHeads: 2, headDim: 8, intermediateSize: 64 });
}

export function useToyTask(modelSeed = 1): ToyFixture {
  const f = {} as ToyFixture;
  beforeAll(async () => {
    const sql = await initSqlJs();
    f.dataset = await buildToyDataset(sql);
    f.executor = new LocalSqlExecutor(sql);
    f.tokenizer = createToyTokenizer();
    f.config = toyModelConfig(f.tokenizer.size);
    f.weights = randomModelWeights(f.config, createRng(modelSeed));
    f.model = (options = {}) => new ReferenceTrainableModel(f.config, f.weights, f.tokenizer, { lora: TOY_LORA, seed: 7, contextTokens: 256, ...options });
  });
  afterAll(() => f.executor.close());
  return f;
}
