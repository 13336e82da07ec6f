/**
 * The worker's trainable model for a run: the loaded model's files read again from where they came from (Cache
 * Storage, the served folder or the picked files; nothing is kept on the CPU side between inference and training),
 * a GPU device of its own, and a `GpuTrainableModel` planned for the run. Destroying the session destroys both.
 */
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import type { TensorLike } from '../gpu/engine/qwen-engine.ts';
import type { ModelConfig } from '../model/config.ts';
import { loadCheckpoint } from '../model/load.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { GpuTrainableModel } from '../train/gpu-model.ts';
import type { ReadsSetup } from '../train/toy-reads-run.ts';
import { loadCancelled, sourceReader, type LlmSource } from './llm-source.ts';
import type { TrainModelRequest, TrainSession } from './train-service.ts';

export async function createGpuTrainSession(source: LlmSource, baseUrl: string, tokenizer: Tokenizer, request: TrainModelRequest): Promise<TrainSession> {
  const reader = sourceReader(source, baseUrl);
  const files = await reader.read((p) => request.onProgress(p.loaded, p.total, p.file ? `Reading ${p.file}` : `Reading ${reader.label}`), request.signal);
  if (request.signal?.aborted) throw loadCancelled(reader.label);
  const checkpoint = loadCheckpoint(files.checkpoint);
  files.checkpoint.safetensors.length = 0; // decoded: let the file bytes go
  request.onProgress(0, 1, 'Planning GPU memory and uploading the weights…');
  const ctx = await acquireGpu({ label: 'sqlenv-train' });
  try {
    if (request.signal?.aborted) throw loadCancelled(reader.label);
    const session = await sessionOnDevice(ctx, checkpoint.config, checkpoint.tensors, tokenizer, request);
    checkpoint.tensors.clear();
    request.onProgress(1, 1, 'Ready');
    return session;
  } catch (e) {
    ctx.destroy();
    throw e;
  }
}

/**
 * The toy task's trainable model (train-reads-session.ts): its tiny base weights and tokenizer come with the setup
 * (nothing is read or downloaded), on a GPU device of its own. Destroying the session destroys both.
 */
export async function createGpuReadsSession(setup: Pick<ReadsSetup, 'config' | 'weights' | 'tokenizer'>, request: TrainModelRequest): Promise<TrainSession> {
  request.onProgress(0, 1, 'Planning GPU memory and uploading the tiny model…');
  const ctx = await acquireGpu({ label: 'sqlenv-train-reads' });
  try {
    const session = await sessionOnDevice(ctx, setup.config, setup.weights, setup.tokenizer, request);
    request.onProgress(1, 1, 'Ready');
    return session;
  } catch (e) {
    ctx.destroy();
    throw e;
  }
}

/** The run's `GpuTrainableModel` on `ctx`, as a session whose destroy frees the model and then the device. */
async function sessionOnDevice(ctx: GpuContext, config: ModelConfig, weights: ReadonlyMap<string, TensorLike>, tokenizer: Tokenizer, request: TrainModelRequest): Promise<TrainSession> {
  const model = await GpuTrainableModel.create(ctx, config, weights, tokenizer, {
    lora: request.lora,
    seed: request.seed,
    rolloutSlots: request.rolloutSlots,
    contextTokens: request.contextTokens,
    microBatchTokens: request.microBatchTokens,
  });
  return {
    model,
    destroy: () => {
      model.destroy();
      ctx.destroy();
    },
    deviceLost: () => (ctx.state === 'lost' ? ctx.lostError : null),
  };
}
