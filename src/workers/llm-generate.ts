/**
 * A Qwen model inside the environment worker: its files (read by llm-source.ts from a folder served with the app, the
 * Hugging Face Hub through the browser cache, or a local folder the user picked), its tokenizer, a WebGPU device and a `QwenEngine`, and the
 * `generate` function the `LlmPolicy` is given. The engine holds B sequences (decode-slots.ts: as many as the memory
 * budget allows, up to 8) and a `BatchedGenerator` schedules every turn asked of it (Watch's, Evaluate's episodes
 * played concurrently) onto them: their decode steps run together, one `engine.sample` per token, seeded per
 * sequence (temperature 0 = greedy) until `<|im_end|>` / `<|endoftext|>`, the token limit, or the context's end. Each
 * slot keeps its KV cache between turns: a turn prefills only the tokens past the longest prefix its prompt shares
 * with a slot computed under the same weights and adapter (`Generation.prefillTokens` says how many). Each
 * generation reports its prefill time (until its first token) and its decode time (every later token) apart, so
 * tokens/s can be shown for each. `onToken` hears the count of new tokens after each one (the page shows
 * "Generating… N tokens"; the host throttles what crosses to it); an `onToken` that throws drops that turn alone.
 *
 * Cancel: `options.signal` stops a load between chunks of a download (the Hub's partial bytes stay cached, so the
 * next load resumes) and between phases; the load then rejects with a CancelledError (src/util/cancelled.ts).
 *
 * Device loss: when the GPU device is lost (a driver reset or crash, `GPUDevice.destroy()`) the next
 * turn gets a new device (`GpuContext.recover()`), re-creates the engine and uploads the weights again, read
 * once more from where they came from (the Cache Storage entries, the served folder, or the picked `File`s: nothing
 * is kept on the CPU side in between). A turn that the loss interrupts is played again once on the new device. Each
 * recovery is announced through `onProgress` (phases 'recovering' then 'recovered').
 *
 * Adapters: `generateWith(adapter)` plays with a LoRA adapter on; `generate` plays the base (LoRA off). The engine holds
 * one adapter at a time, in one planned LoRA shape that every adapter is padded to (adapter-slot.ts); an adapter
 * beyond that shape re-plans the engine (weights read and uploaded again, as in a recovery). `release()` frees the
 * engine's GPU memory (while training runs on its own device); the next turn builds it again the same way.
 *
 * Only the tokenizer of `@huggingface/transformers` is used (model.ts → tokenizer.ts); no ONNX session is ever
 * created, so its runtime and WASM are never fetched.
 */
import { acquireGpu, type GpuContext, type GpuState } from '../gpu/device.ts';
import { chooseDecodeSlots } from '../gpu/engine/decode-slots.ts';
import { PROMPT_PIECE_TOKENS, QwenEngine } from '../gpu/engine/qwen-engine.ts';
import { DEFAULT_DECODE_WEIGHTS, type WeightFormat } from '../gpu/quant.ts';
import type { ModelConfig } from '../model/config.ts';
import { contextTokensFor } from '../model/context.ts';
import { loadCheckpoint } from '../model/load.ts';
import { loraScale, type LoraAdapter } from '../model/lora.ts';
import { readTestModelMarker, type TestModelMarker } from '../model/test-model-marker.ts';
import { createTokenizer, type Tokenizer } from '../model/tokenizer.ts';
import { BatchedGenerator, type Variant } from '../policies/llm/batched-generator.ts';
import type { Generate } from '../policies/llm/llm-policy.ts';
import { padAdapter, planCovers, widenPlan, type LoraPlan } from './adapter-slot.ts';
import { loadCancelled, sourceReader, type LlmLoadProgress, type LlmSource } from './llm-source.ts';

// Where a model comes from and how its load reports progress are llm-source.ts's; re-exported for the worker's hosts.
export type { LlmLoadProgress, LlmSource } from './llm-source.ts';

export interface LlmLoadOptions {
  /** Storage of the base matrices on the GPU; default DEFAULT_DECODE_WEIGHTS for real models, 'f16' when the model is tiny. */
  weights?: WeightFormat;
  /** Positions of the KV cache (prompt + reply); default contextTokensFor(config) (src/model/context.ts). */
  contextTokens?: number;
  /** Stops the load (a CancelledError); a Hub download keeps its partial bytes for the next attempt. */
  signal?: AbortSignal;
}

/** An adapter to play with: `key` names it (the engine keeps the last one loaded), `load` reads its tensors. */
export interface AdapterSource {
  key: string;
  load(): Promise<LoraAdapter>;
}

export interface LoadedLlm {
  label: string;
  config: ModelConfig;
  /** The mark of a model with random test weights (config.json, test-model-marker.ts); null or absent: a real model. */
  testModel?: TestModelMarker | null;
  tokenizer: Tokenizer;
  /** The base model (no adapter). */
  generate: Generate;
  /** The model with an adapter on (absent where the model cannot take adapters: its adapters are not offered). */
  generateWith?(adapter: AdapterSource): Generate;
  /** Frees the engine's GPU memory until the next turn (which builds it again from the source). */
  release?(): void;
  contextTokens: number;
  /** B: turns decoded together (Evaluate plays this many episodes at once). */
  slots?: number;
  /** The adapter, as `vendor/architecture [+f16]`. */
  adapter: string;
  weights: WeightFormat;
  /** Device losses recovered from so far. */
  recoveries(): number;
  destroy(): void;
}

type Progress = (p: LlmLoadProgress) => void;

/** The context's state as of now (a call, so a check after an await is not narrowed by one before it). */
const stateOf = (ctx: GpuContext): GpuState => ctx.state;

/** Downloads or reads the model's files, builds the tokenizer and the engine; `baseUrl` resolves relative folders. */
export async function loadLlm(source: LlmSource, baseUrl: string, onProgress: Progress = () => undefined, options: LlmLoadOptions = {}): Promise<LoadedLlm> {
  const { signal } = options;
  const reader = sourceReader(source, baseUrl);
  const label = reader.label;
  const checkCancel = (): void => {
    if (signal?.aborted) throw loadCancelled(label);
  };
  const files = await reader.read(onProgress, signal);
  checkCancel();
  const testModel = readTestModelMarker(files.checkpoint.configJson);
  onProgress({ phase: 'tokenizer', loaded: 0, total: 1 });
  const tokenizer = await createTokenizer(files.tokenizerJson, files.tokenizerConfigJson);
  checkCancel();
  onProgress({ phase: 'weights', loaded: 0, total: 1 });
  const model = loadCheckpoint(files.checkpoint);
  files.checkpoint.safetensors.length = 0; // the file bytes are decoded: let them go
  const config = model.config;
  checkCancel();

  onProgress({ phase: 'gpu', loaded: 0, total: 1 });
  const tiny = config.hiddenSize <= 256;
  const weights = options.weights ?? (tiny ? 'f16' : DEFAULT_DECODE_WEIGHTS);
  const contextTokens = Math.max(64, contextTokensFor(config, options.contextTokens));
  let loraPlan: LoraPlan | null = null;
  const slots = chooseDecodeSlots(config, { context: contextTokens, weights });
  const engineOptions = () => ({ batch: slots, context: contextTokens, weights, lora: loraPlan });
  const ctx: GpuContext = await acquireGpu({ label: 'sqlenv-llm' });
  let engine: QwenEngine;
  try {
    checkCancel();
    engine = await QwenEngine.create(ctx, config, engineOptions());
    engine.loadWeights(model.tensors);
  } catch (e) {
    ctx.destroy();
    throw e;
  }
  model.tensors.clear();
  onProgress({ phase: 'ready', loaded: 1, total: 1 });

  /** The adapter in the engine's LoRA buffers (null: none loaded); `released`: the engine is gone until rebuilt. */
  let loadedKey: string | null = null;
  let released = false;
  /** Engines built so far, and adapters loaded into them: part of every cache key, so no cache outlives its weights. */
  let epoch = 0;
  let loraLoads = 0;
  /** A new engine with the current LoRA plan, the weights read from the source again and uploaded. */
  const rebuild = async (): Promise<void> => {
    const again = await reader.read(() => undefined);
    const reloaded = loadCheckpoint(again.checkpoint);
    engine = await QwenEngine.create(ctx, config, engineOptions());
    engine.loadWeights(reloaded.tensors);
    reloaded.tensors.clear();
    loadedKey = null;
    released = false;
    epoch++;
    scheduler.forgetCaches();
  };

  let recoveries = 0;
  /** A new device, a new engine, the weights read and uploaded again. */
  const recover = async (): Promise<void> => {
    const reason = ctx.lostError?.reason ?? 'unknown';
    const started = performance.now();
    onProgress({ phase: 'recovering', loaded: 0, total: 1, message: `The GPU device was lost (${reason}): getting a new device and uploading the weights again…` });
    engine.destroy(); // the old device's buffers are gone already; this drops our handles
    try {
      await ctx.recover();
      await rebuild();
    } catch (e) {
      onProgress({ phase: 'recovered', loaded: 0, total: 1, message: `Recovery from the lost GPU device (${reason}) failed: ${(e as Error).message} Load the model again.` });
      throw e;
    }
    recoveries++;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    onProgress({ phase: 'recovered', loaded: 1, total: 1, message: `Recovered from a lost GPU device (${reason}) in ${seconds} s: new device, engine re-created, weights uploaded again (recovery ${recoveries}).` });
  };

  /** Whether `error` came with (or shortly before) a device loss: the loss resolves `device.lost` asynchronously. */
  const lostDuring = async (): Promise<boolean> => {
    if (ctx.state === 'lost') return true;
    if (ctx.state === 'destroyed') return false;
    await Promise.race([ctx.device.lost, new Promise((resolve) => setTimeout(resolve, 200))]);
    await Promise.resolve();
    return stateOf(ctx) === 'lost'; // read again: the device's lost handler may have changed it while we waited
  };

  const scheduler: BatchedGenerator = new BatchedGenerator({
    engine: () => engine,
    endTokens: [tokenizer.special.imEnd, tokenizer.special.endOfText],
    decode: (ids) => tokenizer.decode(ids),
    // The prompt in pieces, each its own submit: a reload or another tab never waits long behind one (SwiftShader).
    prefillChunk: PROMPT_PIECE_TOKENS,
  });

  /** The engine ready for a batch with `adapter` on (null: the base); returns the key its caches are computed under. */
  const prepare = async (adapter: AdapterSource | null): Promise<string> => {
    if (ctx.state === 'lost') await recover();
    ctx.assertReady();
    if (released) await rebuild();
    if (adapter === null) {
      if (engine.loraEnabled) engine.setLoraEnabled(false);
      return `base@${epoch}`;
    }
    if (loadedKey !== adapter.key) {
      const lora = await adapter.load();
      if (!planCovers(loraPlan, lora)) {
        loraPlan = widenPlan(loraPlan, lora);
        engine.destroy();
        released = true; // a failed rebuild is tried again at the next turn
        await rebuild();
      }
      engine.loadLora(padAdapter(config, lora, loraPlan!).layers, loraScale(lora.config));
      loadedKey = adapter.key;
      loraLoads++;
    }
    engine.setLoraEnabled(true);
    return `${adapter.key}@${epoch}.${loraLoads}`;
  };

  const variantOf = (adapter: AdapterSource | null): Variant => ({ name: adapter === null ? 'base' : `adapter:${adapter.key}`, prepare: () => prepare(adapter) });

  /** A turn's generate; a turn the device loss interrupted is played again, once, on the recovered device. */
  const generateFor =
    (adapter: AdapterSource | null): Generate =>
    async (promptIds, o) => {
      const variant = variantOf(adapter);
      try {
        return await scheduler.generate(promptIds, o, variant);
      } catch (e) {
        if (!(await lostDuring())) throw e;
        return scheduler.generate(promptIds, o, variant);
      }
    };

  return {
    label,
    config,
    testModel,
    tokenizer,
    generate: generateFor(null),
    generateWith: generateFor,
    release: () => {
      // Once no turn is in progress, so a turn never loses its engine midway.
      scheduler.whenIdle(() => {
        if (released) return;
        engine.destroy();
        released = true;
        scheduler.forgetCaches();
      });
    },
    contextTokens,
    slots,
    adapter: `${ctx.adapterInfo.vendor || 'unknown'}/${ctx.adapterInfo.architecture || 'unknown'}${ctx.features.shaderF16 ? ' +f16' : ''}`,
    weights,
    recoveries: () => recoveries,
    destroy: () => {
      engine.destroy();
      ctx.destroy();
    },
  };
}
