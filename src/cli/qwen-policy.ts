/**
 * The Qwen policy of `sqlenv eval --policy qwen`: a model folder (+ optional PEFT adapter) on the Node GPU engine,
 * planned for B sequences, with a `BatchDecoder` that decodes the turns of up to B episodes together, and the page's
 * `LlmPolicy` on top with the Model panel's settings (src/workers/llm-settings.ts: thinking, 0/1/3 Oracle shots from
 * the dataset's train split, temperature, top-p, per-turn token limit, weight format) and the page's policy names
 * (`qwen`, or `qwen+<adapter folder name>` with an adapter).
 *
 * `evaluateQwen` plays an evaluation with it (concurrent-evaluate.ts, up to B episodes at once) and sums up how
 * the decoding went (engine steps, mean batch, tokens per second).
 *
 * Ownership: `close()` destroys the engine, then the device; `evaluateQwen` closes what it creates.
 */
import { basename, resolve } from 'node:path';
import type { Dataset } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import type { EnvConfig } from '../env/types.ts';
import type { EvalReport, EvaluateOptions } from '../eval/evaluate.ts';
import { contextTokensFor } from '../model/context.ts';
import { createLlmPolicy, type LlmPolicy } from '../policies/llm/llm-policy.ts';
import { buildOracleShots, selectShotQuestions } from '../policies/llm/prompt.ts';
import type { SqlExecutor } from '../sql/executor.ts';
import { adapterPolicy } from '../workers/adapter-library.ts';
import type { ResolvedLlmSettings } from '../workers/llm-settings.ts';
import { BatchDecoder } from './batch-generate.ts';
import { evaluateConcurrently } from './concurrent-evaluate.ts';
import { createProgress } from './progress.ts';
import { createInferenceEngine, openNodeGpu, readAdapterFolder, readModelFolder } from './node-model.ts';

export interface QwenPolicyOptions {
  model: string;
  adapter: string | null;
  settings: ResolvedLlmSettings;
  /** B: episodes decoded together. */
  batch: number;
  /** S: positions per sequence (prompt + reply), within the model's maximum. */
  context: number;
}

export interface QwenPolicySetup {
  policy: LlmPolicy;
  decoder: BatchDecoder;
  /** The GPU adapter, `vendor/architecture [+f16]`. */
  gpu: string;
  contextTokens: number;
  shots: number;
  close(): void;
}

export async function createQwenPolicy(options: QwenPolicyOptions, dataset: Dataset, executor: SqlExecutor, envConfig: Partial<EnvConfig>): Promise<QwenPolicySetup> {
  const { settings } = options;
  process.stderr.write(`Reading ${options.model}…\n`);
  const model = await readModelFolder(options.model);
  const adapter = options.adapter === null ? null : await readAdapterFolder(options.adapter, model.config);
  const shots = settings.shots > 0 ? await buildOracleShots(new SqlEnv(dataset, executor, envConfig), selectShotQuestions(dataset, settings.shots)) : [];
  const gpu = await openNodeGpu('sqlenv-eval');
  try {
    const context = contextTokensFor(model.config, options.context);
    process.stderr.write(`WebGPU: ${gpu.adapter}; uploading ${settings.weights} weights for ${options.batch} sequence(s) of ${context} tokens…\n`);
    const engine = await createInferenceEngine(gpu.ctx, model, { batch: options.batch, context, weights: settings.weights, adapter });
    model.tensors.clear(); // uploaded: the GPU holds its own copy
    const decoder = new BatchDecoder(engine, model.tokenizer);
    const name = options.adapter === null ? 'qwen' : adapterPolicy(basename(resolve(options.adapter)));
    const policy = createLlmPolicy(settings, { generate: decoder.generateFor(), tokenizer: model.tokenizer, contextTokens: context, concurrency: options.batch }, { shots, name });
    return {
      policy,
      decoder,
      gpu: gpu.adapter,
      contextTokens: context,
      shots: shots.length,
      close: () => {
        engine.destroy();
        gpu.ctx.destroy();
      },
    };
  } catch (e) {
    gpu.ctx.destroy();
    throw e;
  }
}

/** How a qwen evaluation decoded (the `generation` field of `sqlenv eval --json`). */
export interface QwenGenerationSummary {
  model: string;
  gpu: string;
  weights: string;
  /** B: sequences the engine holds; `mean_batch` of them advanced per engine step on average. */
  batch: number;
  context: number;
  shots: number;
  steps: number;
  mean_batch: number;
  max_batch: number;
  prompt_tokens: number;
  /** Prompt tokens computed; the rest came from the slots' KV caches (earlier turns, shared system prompts). */
  prefill_tokens: number;
  new_tokens: number;
  seconds: number;
  new_tokens_per_second: number;
}

/** Plays the evaluation with up to B episodes at once; the device is freed before it returns. */
export async function evaluateQwen(
  options: QwenPolicyOptions,
  dataset: Dataset,
  executor: SqlExecutor,
  envConfig: Partial<EnvConfig>,
  evaluation: Pick<EvaluateOptions, 'episodes' | 'seed' | 'split'>,
): Promise<{ report: EvalReport; generation: QwenGenerationSummary }> {
  const setup = await createQwenPolicy(options, dataset, executor, envConfig);
  try {
    const progress = createProgress(setup.policy.name);
    const started = performance.now();
    const report = await evaluateConcurrently(() => new SqlEnv(dataset, executor, envConfig), setup.policy, { ...evaluation, concurrency: options.batch, onProgress: (d, t) => progress.update(d, t) });
    progress.finish();
    const seconds = (performance.now() - started) / 1000;
    const s = setup.decoder.stats;
    const meanBatch = s.steps > 0 ? s.rows / s.steps : 0;
    const rate = s.newTokens / Math.max(seconds, 1e-9);
    process.stderr.write(`${s.newTokens} new tokens (${s.promptTokens} prompt tokens, ${s.prefillTokens} of them computed: the rest reused from the KV cache) in ${s.steps} engine steps, mean batch ${meanBatch.toFixed(2)} (B = ${options.batch}), ${seconds.toFixed(1)} s: ${rate.toFixed(2)} new tokens/s\n`);
    const generation: QwenGenerationSummary = {
      model: options.model,
      gpu: setup.gpu,
      weights: options.settings.weights,
      batch: options.batch,
      context: setup.contextTokens,
      shots: setup.shots,
      steps: s.steps,
      mean_batch: meanBatch,
      max_batch: s.maxBatch,
      prompt_tokens: s.promptTokens,
      prefill_tokens: s.prefillTokens,
      new_tokens: s.newTokens,
      seconds,
      new_tokens_per_second: rate,
    };
    return { report, generation };
  } finally {
    setup.close();
  }
}
