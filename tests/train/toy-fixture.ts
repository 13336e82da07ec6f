/**
 * The toy task (src/train/toy-task.ts, set up by src/train/toy-run.ts) with a tiny random Qwen3 on the float64
 * reference, for the training tests: vocabulary = the toy tokenizer's (31 ids), 2 layers, hidden 32, LoRA rank 4 on
 * every projection.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll } from 'vitest';
import { ReferenceTrainableModel, type ReferenceModelOptions } from '../../src/train/reference-model.ts';
import type { TrainConfig } from '../../src/train/types.ts';
import { setupToyTask, TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA, type ToySetup } from '../../src/train/toy-run.ts';

export { TOY_LORA, toyModelConfig } from '../../src/train/toy-run.ts';

/** A GRPO run small enough for the float64 reference: 4 episodes of 2 prompts, 2 turns of 3 tokens, nothing periodic. */
export const SMALL_GRPO: Partial<TrainConfig> = {
  algo: 'grpo',
  steps: 3,
  lr: 0.02,
  warmupSteps: 0,
  groupSize: 4,
  promptsPerStep: 2,
  maxTurns: 2,
  maxNewTokensPerTurn: 3,
  evalEvery: 0,
  traceEvery: 0,
  checkpointEvery: 0,
  evalTrainSamples: 2,
  evalEvalSamples: 2,
};

export interface ToyFixture extends ToySetup {
  /** A fresh model (fresh adapter) on the fixture's base weights. */
  model(options?: Partial<ReferenceModelOptions>): ReferenceTrainableModel;
}

export function useToyTask(modelSeed = 1): ToyFixture {
  const f = {} as ToyFixture;
  beforeAll(async () => {
    Object.assign(f, await setupToyTask(await initSqlJs(), modelSeed));
    f.model = (options = {}) => new ReferenceTrainableModel(f.config, f.weights, f.tokenizer, { lora: TOY_LORA, seed: TOY_ADAPTER_SEED, contextTokens: TOY_CONTEXT_TOKENS, ...options });
  });
  afterAll(() => f.executor.close());
  return f;
}
