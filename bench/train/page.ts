/**
 * The training bench page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by bench/train.bench.ts. It runs
 * real GRPO steps with measure.ts (the same code bench/full.bench.ts runs in Node) on the toy task (sql.js in the
 * page, src/gpu-tests/toy-gpu.ts) with a random model of the requested dimensions, then, on the same device, the
 * engine's own matmul (src/gpu-tests/bench.ts `timeMatmul`) at a few square sizes and every variant: the best FLOP/s
 * is the reference the update's FLOP/s is set against. Where the adapter offers 'timestamp-query' (gpu-timer.ts), one
 * more GRPO step runs with every dispatch timed on the GPU (the per-kernel table), and one matmul is timed both ways
 * (GPU timestamps and wall clock) to show whether this device's timestamps are real.
 */
import { createRng } from '../../src/data/rng.ts';
import type { GpuContext } from '../../src/gpu/device.ts';
import { timeMatmul, type OpTiming } from '../../src/gpu-tests/bench.ts';
import { withToyModel, type PageResult } from '../../src/gpu-tests/toy-gpu.ts';
import type { ToySetup } from '../../src/train/toy-run.ts';
import type { MatmulVariant } from '../../src/gpu/kernels/matmul.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { GpuTrainableModel } from '../../src/train/gpu-model.ts';
import { adapterName } from '../engine/measure.ts';
import { installDispatchTimer, requestTimestampFeature, type DispatchTimer } from './gpu-timer.ts';
import { benchLora, describeTrainModel, profileTraining, trainPlan, type GrpoBenchSettings, type StepFigures, type UpdateProfile } from './measure.ts';

export type { StepFigures, UpdateProfile } from './measure.ts';

export interface TrainBenchOptions extends GrpoBenchSettings {
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  microBatchTokens: number;
  /** Square matmul sizes timed for the reference FLOP/s. */
  peakSizes: number[];
}

export interface TrainBenchResult {
  adapter: string;
  model: string;
  plan: { B: number; S: number; T: number; bytes: number };
  steps: StepFigures[];
  matmul: OpTiming[];
  /** The profiled step, or null where the device has no timestamps (or that step made no update). */
  profile: UpdateProfile | null;
  /** One matmul (the first peak size, v0) timed by timestamps and by the wall clock: real timestamps agree. */
  timestampCheck: { shape: string; gpuMs: number; wallMs: number } | null;
}

/** Times `timeMatmul(n³, v0)` with the timer on: GPU ms per dispatch vs the median wall ms. */
async function checkTimestamps(ctx: GpuContext, timer: DispatchTimer, n: number): Promise<TrainBenchResult['timestampCheck']> {
  timer.reset();
  timer.enabled = true;
  const wall = await timeMatmul(ctx, n, n, n, 'v0').finally(() => (timer.enabled = false));
  const kernels = await timer.drain();
  const dispatches = kernels.reduce((a, k) => a + k.dispatches, 0);
  const seconds = kernels.reduce((a, k) => a + k.seconds, 0);
  return dispatches > 0 ? { shape: wall.shape, gpuMs: (seconds / dispatches) * 1000, wallMs: wall.ms } : null;
}

const VARIANTS: readonly MatmulVariant[] = ['v0', 'v1', 'v2'];

/** A random Qwen3 of the requested dimensions with the toy tokenizer, LoRA r on all 7 targets, B = G × P slots. */
function benchModel(o: TrainBenchOptions) {
  return (ctx: GpuContext, s: ToySetup): Promise<GpuTrainableModel> => {
    const config = tinyModelConfig({
      vocabSize: Math.max(o.vocab, s.tokenizer.size),
      numLayers: o.layers,
      hiddenSize: o.hidden,
      numHeads: o.heads,
      numKvHeads: o.kvHeads,
      headDim: o.headDim,
      intermediateSize: o.intermediate,
    });
    return GpuTrainableModel.create(ctx, config, randomModelWeights(config, createRng(0)), s.tokenizer, {
      lora: benchLora(o.rank),
      seed: 0,
      rolloutSlots: o.group * o.prompts,
      contextTokens: 256,
      microBatchTokens: o.microBatchTokens,
    });
  };
}

function run(o: TrainBenchOptions): Promise<PageResult<TrainBenchResult>> {
  requestTimestampFeature();
  return withToyModel(
    'train-bench',
    async (ctx, s, model) => {
      const timer = installDispatchTimer(ctx.device) ?? undefined;
      const { steps, profile } = await profileTraining(s, model, o, { timer });
      const matmul: OpTiming[] = [];
      for (const n of o.peakSizes) {
        for (const v of VARIANTS) matmul.push(await timeMatmul(ctx, n, n, n, v));
        matmul.push(await timeMatmul(ctx, n, n, n, 'v2', 3, false)); // v2 reads x in quads by default (matmul-x4.wgsl)
      }
      const timestampCheck = timer ? await checkTimestamps(ctx, timer, o.peakSizes[0]) : null;
      return { adapter: adapterName(ctx), model: describeTrainModel(model, o.rank), plan: trainPlan(model), steps, matmul, profile, timestampCheck };
    },
    benchModel(o),
  );
}

declare global {
  interface Window {
    trainBench?: { run: typeof run };
  }
}

window.trainBench = { run };
document.title = 'train-bench ready';
