/**
 * The toy task (src/train/toy-run.ts) in a browser page, on the WebGPU model: sql.js with its WASM bundled into the
 * page (Vite `?url`, inlined by the library build that bundles test and bench pages: no request leaves the page), the
 * toy setup, and a fresh `GpuTrainableModel` on its tiny base model. In Node (the checks' Node run,
 * tests/gpu/checks-node*.test.ts) sql.js loads the WASM beside its own script, as the CPU tests do: there `?url` is a
 * server path ('/node_modules/…') that is no file. Shared by the learning check
 * (checks/train-learning.ts) and the `train:toy` page (scripts/train-toy/page.ts).
 */
import initSqlJs from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import { GpuTrainableModel, type GpuTrainableModelOptions } from '../train/gpu-model.ts';
import { setupToyTask, TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA, type ToySetup } from '../train/toy-run.ts';

/** Sequence slots: one GRPO step's 4 × 8 episodes decode together (the 64 fresh episodes in two waves). */
export const TOY_ROLLOUT_SLOTS = 32;
/** Tokens per micro-batch: a step's 32 episodes of ≤ ~60 tokens in one or two micro-batches. */
export const TOY_MICRO_BATCH_TOKENS = 1024;

let setup: Promise<ToySetup> | null = null;

const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** The toy task (built once per page, or per Node process). */
export function toySetup(): Promise<ToySetup> {
  setup ??= initSqlJs(inNode ? {} : { locateFile: () => wasmUrl }).then((sql) => setupToyTask(sql));
  return setup;
}

/** A fresh WebGPU model on the toy base weights: the adapter of the CPU reference's toy model (same seed), f16 weights. */
export function toyGpuModel(ctx: GpuContext, s: ToySetup, options: Partial<GpuTrainableModelOptions> = {}): Promise<GpuTrainableModel> {
  return GpuTrainableModel.create(ctx, s.config, s.weights, s.tokenizer, {
    lora: TOY_LORA,
    seed: TOY_ADAPTER_SEED,
    rolloutSlots: TOY_ROLLOUT_SLOTS,
    contextTokens: TOY_CONTEXT_TOKENS,
    microBatchTokens: TOY_MICRO_BATCH_TOKENS,
    ...options,
  });
}

/** What a page hands back to its script: the result, or the error as plain data (it crosses `page.evaluate`). */
export type PageResult<T> = T | { error: { name: string; message: string } };

/**
 * Runs `fn` with a fresh device, the toy setup and a model made by `create` (default: `toyGpuModel`), then destroys
 * the model and the device; any failure comes back as `{ error }`.
 */
export async function withToyModel<T>(
  label: string,
  fn: (ctx: GpuContext, s: ToySetup, model: GpuTrainableModel) => Promise<T>,
  create: (ctx: GpuContext, s: ToySetup) => Promise<GpuTrainableModel> = toyGpuModel,
): Promise<PageResult<T>> {
  try {
    const ctx = await acquireGpu({ label });
    try {
      const s = await toySetup();
      const model = await create(ctx, s);
      try {
        return await fn(ctx, s, model);
      } finally {
        model.destroy();
      }
    } finally {
      ctx.destroy();
    }
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    return { error: { name: err.name, message: err.message } };
  }
}
