/**
 * A model folder on the Node GPU engine, for the CLI's model commands (`logits`, `eval --policy qwen`, `train`):
 * the folder read and checked by src/model/files-node.ts (config, weights, tokenizer), an optional PEFT adapter
 * folder read by src/model/adapter-file.ts, a WebGPU device from Dawn (src/gpu/node/node-gpu.ts; SwiftShader where
 * the machine has no GPU), and a `QwenEngine` planned for B sequences of S positions with the adapter padded into the
 * engine's one LoRA shape (src/workers/adapter-slot.ts), exactly as the page's worker does it (llm-generate.ts).
 *
 * How to think about it: everything here is loading; what runs on the engine lives in the commands (logits), in
 * batch-generate.ts (eval) and in GpuTrainableModel (train, through `nodeTrainBase`). Progress goes to stderr.
 *
 * Ownership: `openNodeGpu` gives a `GpuContext` the caller destroys; `createInferenceEngine` gives an engine the
 * caller destroys before its context; a train session destroys its model and its own context.
 */
import type { KvCacheFormat } from '../gpu/kv-format.ts';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import { QwenEngine } from '../gpu/engine/qwen-engine.ts';
import { nodeGpu } from '../gpu/node/node-gpu.ts';
import type { WeightFormat } from '../gpu/quant.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, AdapterFileError, readPeftAdapter } from '../model/adapter-file.ts';
import { checkFileSize, fileCap } from '../model/file-caps.ts';
import type { ModelConfig } from '../model/config.ts';
import { loadModelFolder, loadTokenizerFolder } from '../model/files-node.ts';
import type { LoadedModel } from '../model/load.ts';
import { loraScale, type LoraAdapter } from '../model/lora.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { GpuTrainableModel } from '../train/gpu-model.ts';
import { padAdapter, widenPlan } from '../workers/adapter-slot.ts';
import type { TrainBase, TrainModelRequest, TrainSession } from '../workers/train-service.ts';

/** A model folder read into memory: its config, its decoded tensors and its tokenizer. */
export interface FolderModel {
  /** The folder as given on the command line. */
  dir: string;
  /** The folder's absolute path: the model's label in checkpoints and in adapter_config.json. */
  label: string;
  config: ModelConfig;
  tensors: LoadedModel['tensors'];
  tokenizer: Tokenizer;
}

/** A device on the Node GPU, and its adapter as `vendor/architecture [+f16]` (what the page shows). */
export interface NodeGpuContext {
  ctx: GpuContext;
  adapter: string;
}

/** Reads and checks a model folder (weights and tokenizer); typed errors name the file at fault. */
export async function readModelFolder(dir: string): Promise<FolderModel> {
  const [model, tokenizer] = await Promise.all([loadModelFolder(dir), loadTokenizerFolder(dir)]);
  if (tokenizer.size > model.config.vocabSize) {
    throw new RangeError(`${dir}: the tokenizer has ${tokenizer.size} ids but config.json's vocab_size is ${model.config.vocabSize}; the tokenizer belongs to another model.`);
  }
  return { dir, label: resolve(dir), config: model.config, tensors: model.tensors, tokenizer };
}

/** Reads a PEFT adapter folder (adapter_model.safetensors + adapter_config.json), checked against `config`. */
export async function readAdapterFolder(dir: string, config: ModelConfig): Promise<LoraAdapter> {
  const read = async <T>(file: string, as: () => Promise<T>): Promise<T> => {
    try {
      return await as();
    } catch (e) {
      throw new AdapterFileError(join(dir, file), `could not be read (${(e as Error).message}): is ${dir} a PEFT adapter folder?`, null, { cause: e });
    }
  };
  const safetensors = await read(ADAPTER_WEIGHTS_FILE, async () => new Uint8Array(await readFile(join(dir, ADAPTER_WEIGHTS_FILE))));
  // The config is capped before it is read (file-caps.ts), as every loader of the page does.
  const configPath = join(dir, ADAPTER_CONFIG_FILE);
  const configSize = await read(ADAPTER_CONFIG_FILE, async () => (await stat(configPath)).size);
  checkFileSize(configPath, configSize, fileCap(ADAPTER_CONFIG_FILE));
  const configJson = await read(ADAPTER_CONFIG_FILE, () => readFile(configPath, 'utf8'));
  return readPeftAdapter({ safetensors, configJson }, config);
}

/** A device on the process's Node GPU (Dawn; SwiftShader when no driver gives an adapter). The caller destroys it. */
export async function openNodeGpu(label: string): Promise<NodeGpuContext> {
  const { gpu } = await nodeGpu();
  const ctx = await acquireGpu({ gpu, label });
  const info = ctx.adapterInfo;
  return { ctx, adapter: `${info.vendor || 'unknown'}/${info.architecture || 'unknown'}${ctx.features.shaderF16 ? ' +f16' : ''}` };
}

export interface InferenceEngineOptions {
  /** B: sequences decoded together. */
  batch: number;
  /** S: positions per sequence (prompt + reply). */
  context: number;
  /** T: tokens per forward; default the plan's max(B, min(S, 512)). */
  maxTokens?: number;
  weights: WeightFormat;
  /** Played on every sequence (LoRA on); null: the base model. */
  adapter: LoraAdapter | null;
  /** The KV cache's storage; default the engine's (f16). */
  kvCache?: KvCacheFormat;
}

/**
 * A `QwenEngine` with the model's weights (and the adapter, padded to its own plan, as the page pads it) uploaded.
 * The caller destroys the engine; `model.tensors` stay the caller's.
 */
export async function createInferenceEngine(ctx: GpuContext, model: FolderModel, options: InferenceEngineOptions): Promise<QwenEngine> {
  const plan = options.adapter ? widenPlan(null, options.adapter) : null;
  const engine = await QwenEngine.create(ctx, model.config, { batch: options.batch, context: options.context, maxTokens: options.maxTokens, weights: options.weights, kvCache: options.kvCache, lora: plan });
  try {
    engine.loadWeights(model.tensors);
    if (options.adapter && plan) engine.loadLora(padAdapter(model.config, options.adapter, plan).layers, loraScale(options.adapter.config));
    return engine;
  } catch (e) {
    engine.destroy();
    throw e;
  }
}

/**
 * The model as TrainService's base: each run gets a device of its own and a `GpuTrainableModel` planned for it (the
 * page's createGpuTrainSession, with the weights already in memory instead of read again from the browser's source).
 */
export function nodeTrainBase(model: FolderModel, weights: WeightFormat): TrainBase {
  return {
    label: model.label,
    config: model.config,
    async createSession(request: TrainModelRequest): Promise<TrainSession> {
      request.onProgress(0, 1, 'Planning GPU memory and uploading the weights…');
      const { ctx } = await openNodeGpu('sqlenv-train');
      try {
        const trainable = await GpuTrainableModel.create(ctx, model.config, model.tensors, model.tokenizer, {
          lora: request.lora,
          seed: request.seed,
          rolloutSlots: request.rolloutSlots,
          contextTokens: request.contextTokens,
          microBatchTokens: request.microBatchTokens,
          weights,
        });
        request.onProgress(1, 1, 'Ready');
        return {
          model: trainable,
          destroy: () => {
            trainable.destroy();
            ctx.destroy();
          },
          deviceLost: () => (ctx.state === 'lost' ? ctx.lostError : null),
        };
      } catch (e) {
        ctx.destroy();
        throw e;
      }
    },
  };
}
