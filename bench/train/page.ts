/**
 * The training bench page: bundled by e2e/model/bundle.ts and served on 127.0.0.1 by bench/train.bench.ts. It runs
 * real GRPO steps (src/train/trainer.ts) with the WebGPU model (src/train/gpu-model.ts) on the toy task (sql.js in
 * the page, src/gpu-tests/toy-gpu.ts) with a random model of the requested dimensions (its vocabulary at least the
 * toy tokenizer's; ids above it decode as U+FFFD, i.e. invalid actions), and reports per step the rollout and update
 * seconds and the FLOPs the update executed (flops.ts, counted from the micro-batches the trainer actually sent to
 * `forward`/`backward`: zero-advantage episodes are skipped there). Then, on the same device, the engine's own matmul
 * (src/gpu-tests/bench.ts `timeMatmul`) at a few square sizes and every variant: the best FLOP/s is the reference.
 */
import { createRng } from '../../src/data/rng.ts';
import type { GpuContext } from '../../src/gpu/device.ts';
import { timeMatmul, type OpTiming } from '../../src/gpu-tests/bench.ts';
import { withToyModel, type PageResult } from '../../src/gpu-tests/toy-gpu.ts';
import type { ToySetup } from '../../src/train/toy-run.ts';
import type { MatmulVariant } from '../../src/gpu/kernels/matmul.ts';
import { DEFAULT_LORA_CONFIG } from '../../src/model/lora.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { GpuTrainableModel } from '../../src/train/gpu-model.ts';
import type { AdamWSettings, ForwardOptions, GenerateRequest, ScoredSequence, TrainableModel } from '../../src/train/policy-model.ts';
import { scoredCount } from '../../src/train/policy-model.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { StepMetrics } from '../../src/train/types.ts';
import { forwardOnlyFlops, updateFlops, type FlopBatch, type LoraDims } from './flops.ts';

export interface TrainBenchOptions {
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  rank: number;
  group: number;
  prompts: number;
  steps: number;
  maxTurns: number;
  maxNewTokens: number;
  microBatchTokens: number;
  /** Square matmul sizes timed for the reference FLOP/s. */
  peakSizes: number[];
}

export interface StepFigures {
  step: number;
  rollout: number;
  update: number;
  tokens: number;
  generated: number;
  microBatches: number;
  /** FLOPs the update executed (0 when every group had equal rewards: no update). */
  updateFlops: number;
}

export interface TrainBenchResult {
  adapter: string;
  model: string;
  plan: { B: number; S: number; T: number; bytes: number };
  steps: StepFigures[];
  matmul: OpTiming[];
}

/** A `TrainableModel` that passes everything to the GPU model and counts the FLOPs of its forwards and backwards. */
class FlopCounter implements TrainableModel {
  flops = 0;
  private last: FlopBatch | null = null;
  constructor(
    private readonly inner: GpuTrainableModel,
    private readonly lora: LoraDims,
  ) {}
  get tokenizer() {
    return this.inner.tokenizer;
  }
  get contextTokens() {
    return this.inner.contextTokens;
  }
  get microBatchLimits() {
    return this.inner.microBatchLimits;
  }
  generate(requests: readonly GenerateRequest[]) {
    return this.inner.generate(requests);
  }
  forward(batch: readonly ScoredSequence[], options: ForwardOptions = {}) {
    const b = { lengths: batch.map((s) => s.tokenIds.length), scored: scoredCount(batch) };
    if (options.adapter === false) this.flops += forwardOnlyFlops(this.inner.engine.model, b);
    else this.last = b;
    return this.inner.forward(batch, options);
  }
  backward(dlogprob: Float32Array) {
    if (this.last) this.flops += updateFlops(this.inner.engine.model, this.lora, this.last);
    return this.inner.backward(dlogprob);
  }
  optimizerStep(settings: AdamWSettings) {
    return this.inner.optimizerStep(settings);
  }
  gpuBytes() {
    return this.inner.gpuBytes();
  }
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
      lora: benchLora(o),
      seed: 0,
      rolloutSlots: o.group * o.prompts,
      contextTokens: 256,
      microBatchTokens: o.microBatchTokens,
    });
  };
}

const benchLora = (o: TrainBenchOptions) => ({ ...DEFAULT_LORA_CONFIG, rank: o.rank, alpha: 2 * o.rank });

function run(o: TrainBenchOptions): Promise<PageResult<TrainBenchResult>> {
  return withToyModel(
    'train-bench',
    async (ctx, s, model) => {
      const lora = benchLora(o);
      const counter = new FlopCounter(model, { rank: lora.rank, targets: lora.targetModules });
      const steps: StepFigures[] = [];
      const onStep = (m: StepMetrics) => {
        steps.push({ step: m.step, rollout: m.seconds.rollout, update: m.seconds.update, tokens: m.tokens, generated: m.generatedTokens, microBatches: m.microBatches, updateFlops: counter.flops });
        counter.flops = 0;
      };
      const trainer = new Trainer(
        { model: counter, dataset: s.dataset, executor: s.executor },
        { algo: 'grpo', steps: o.steps, lr: 1e-3, warmupSteps: 0, groupSize: o.group, promptsPerStep: o.prompts, maxTurns: o.maxTurns, maxNewTokensPerTurn: o.maxNewTokens, evalEvery: 0, traceEvery: 0, checkpointEvery: 0 },
        { onStep },
      );
      await trainer.run();
      const matmul: OpTiming[] = [];
      for (const n of o.peakSizes) for (const v of VARIANTS) matmul.push(await timeMatmul(ctx, n, n, n, v));
      const config = model.engine.model;
      const { batch: B, context: S, maxTokens: T } = model.engine.plan.options;
      const adapter = `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`;
      const name = `qwen3 L=${config.numLayers} C=${config.hiddenSize} I=${config.intermediateSize} H=${config.numHeads}/${config.numKvHeads}×${config.headDim} V=${config.vocabSize}, LoRA r=${lora.rank} on all 7`;
      return { adapter, model: name, plan: { B, S, T, bytes: model.gpuBytes() }, steps, matmul };
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
