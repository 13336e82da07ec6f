/**
 * The training bench page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by bench/train.bench.ts. It runs
 * real GRPO steps with measure.ts (the same code bench/full.bench.ts runs in Node) on the toy task (sql.js in the
 * page, src/gpu-tests/toy-gpu.ts) with a random model of the requested dimensions, then, on the same device, the
 * engine's own matmul (src/gpu-tests/bench.ts `timeMatmul`) at a few square sizes and every variant: the best FLOP/s
 * is the reference the update's FLOP/s is set against.
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
import { benchLora, describeTrainModel, measureTraining, trainPlan, type GrpoBenchSettings, type StepFigures } from './measure.ts';

export type { StepFigures } from './measure.ts';

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
  return withToyModel(
    'train-bench',
    async (ctx, s, model) => {
      const steps = await measureTraining(s, model, o);
      const matmul: OpTiming[] = [];
      for (const n of o.peakSizes) for (const v of VARIANTS) matmul.push(await timeMatmul(ctx, n, n, n, v));
      return { adapter: adapterName(ctx), model: describeTrainModel(model, o.rank), plan: trainPlan(model), steps, matmul };
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
