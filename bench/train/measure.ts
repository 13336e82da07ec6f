/**
 * The training bench's measurement, window-free: real GRPO steps (src/train/trainer.ts) on the toy task with a
 * `GpuTrainableModel` (src/train/gpu-model.ts), reporting per step the rollout and update seconds and the FLOPs the
 * update executed (flops.ts, counted from the micro-batches the trainer actually sent to `forward`/`backward`:
 * zero-advantage episodes are skipped there unless klBeta > 0). The training bench page (bench/train/page.ts, headless
 * Chromium, a random model of the requested dimensions) and bench/full.bench.ts (Node on Dawn, the full-size random
 * checkpoints) both call `measureTraining`; each makes its own device, toy setup and model.
 *
 * The model's vocabulary is at least the toy tokenizer's (31 ids); ids above it decode as U+FFFD, i.e. invalid
 * actions, so a model with the real vocabulary plays the toy task as a random policy would.
 */
import { DEFAULT_LORA_CONFIG, type LoraConfig } from '../../src/model/lora.ts';
import { GpuTrainableModel } from '../../src/train/gpu-model.ts';
import type { AdamWSettings, ForwardOptions, GenerateRequest, ScoredSequence, TrainableModel } from '../../src/train/policy-model.ts';
import { scoredCount } from '../../src/train/policy-model.ts';
import type { ToySetup } from '../../src/train/toy-run.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { StepMetrics } from '../../src/train/types.ts';
import { forwardOnlyFlops, updateFlops, type FlopBatch, type LoraDims } from './flops.ts';
import type { DispatchTimer, KernelTime } from './gpu-timer.ts';

/** The GRPO settings of a measured run (G episodes for each of P prompts per step). */
export interface GrpoBenchSettings {
  rank: number;
  group: number;
  prompts: number;
  steps: number;
  maxTurns: number;
  maxNewTokens: number;
  /** KL coefficient to the base model; > 0 makes every step update (zero-advantage episodes are trained too). */
  klBeta: number;
}

export interface StepFigures {
  step: number;
  rollout: number;
  update: number;
  tokens: number;
  generated: number;
  microBatches: number;
  /** FLOPs the update executed (0 when every group had equal rewards and klBeta = 0: no update). */
  updateFlops: number;
  /** Queue submits of the step (rollout and update), when the caller counts them. */
  submits?: number;
  /** Wall seconds inside the model's forward, backward and optimizerStep calls (the update's GPU-facing part). */
  modelSeconds: { forward: number; backward: number; optimizer: number };
}

/** Where one profiled step's update spent its GPU time (gpu-timer.ts). */
export interface UpdateProfile {
  /** The profiled step (run after the measured ones, left out of their means). */
  step: number;
  /** Wall seconds of the step's update, and of its model calls (forward, backward, optimizerStep). */
  updateSeconds: number;
  modelSeconds: number;
  /** Sum of every timed dispatch's GPU duration. */
  gpuSeconds: number;
  dispatches: number;
  /** Command buffers submitted by the model calls. */
  commandBuffers: number;
  /** Per kernel, slowest first. */
  kernels: KernelTime[];
}

/** A `TrainableModel` that passes everything to the GPU model and counts the FLOPs of its forwards and backwards. */
export class FlopCounter implements TrainableModel {
  flops = 0;
  /** Wall seconds of the model calls since the last step (see StepFigures.modelSeconds). */
  seconds = { forward: 0, backward: 0, optimizer: 0 };
  /** When set, its `enabled` is raised for the duration of each forward, backward and optimizerStep. */
  timer: DispatchTimer | null = null;
  private last: FlopBatch | null = null;
  constructor(
    private readonly inner: GpuTrainableModel,
    private readonly lora: LoraDims,
    private readonly progress: (what: string) => void = () => undefined,
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
    this.progress(`generate: ${requests.length} request(s), prompts of ${requests.map((r) => r.promptTokenIds.length).join('/')} tokens`);
    return this.inner.generate(requests);
  }
  forward(batch: readonly ScoredSequence[], options: ForwardOptions = {}) {
    const b = { lengths: batch.map((s) => s.tokenIds.length), scored: scoredCount(batch) };
    if (options.adapter === false) this.flops += forwardOnlyFlops(this.inner.engine.model, b);
    else this.last = b;
    this.progress(`forward${options.adapter === false ? ' (adapter off)' : ''}: ${b.lengths.join('+')} tokens, ${b.scored} scored`);
    return this.timed('forward', () => this.inner.forward(batch, options));
  }
  backward(dlogprob: Float32Array) {
    if (this.last) this.flops += updateFlops(this.inner.engine.model, this.lora, this.last);
    this.progress('backward');
    return this.timed('backward', () => this.inner.backward(dlogprob));
  }
  optimizerStep(settings: AdamWSettings) {
    return this.timed('optimizer', () => this.inner.optimizerStep(settings));
  }
  private async timed<T>(what: keyof FlopCounter['seconds'], call: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    if (this.timer) this.timer.enabled = true;
    try {
      return await call();
    } finally {
      if (this.timer) this.timer.enabled = false;
      this.seconds[what] += (performance.now() - t0) / 1000;
    }
  }
  gpuBytes() {
    return this.inner.gpuBytes();
  }
}

/** LoRA r on all 7 projections, alpha = 2r: the benches' adapter. */
export const benchLora = (rank: number): LoraConfig => ({ ...DEFAULT_LORA_CONFIG, rank, alpha: 2 * rank });

export interface TrainingHooks {
  /** Reads the device's queue-submit count (bench/engine/measure.ts `instrumentDevice`). */
  countSubmits?: () => number;
  /** Told each call the trainer makes to the model (for logs of long runs). */
  progress?: (what: string) => void;
  /**
   * Per-kernel GPU time: one more step runs after `o.steps` with this timer on during the model calls; its figures
   * come back as `profile` and it is not among the returned steps.
   */
  timer?: DispatchTimer;
}

/**
 * Runs `o.steps` GRPO steps of `model` (made with `benchLora(o.rank)`) on the toy task and returns each step's
 * figures (with `hooks.timer`, one more, profiled: see `profileTraining`).
 */
export async function measureTraining(s: ToySetup, model: GpuTrainableModel, o: GrpoBenchSettings, hooks: TrainingHooks = {}): Promise<StepFigures[]> {
  return (await profileTraining(s, model, o, hooks)).steps;
}

/** `measureTraining`, plus the profiled step's figures when `hooks.timer` is given. */
export async function profileTraining(
  s: ToySetup,
  model: GpuTrainableModel,
  o: GrpoBenchSettings,
  hooks: TrainingHooks = {},
): Promise<{ steps: StepFigures[]; profile: UpdateProfile | null }> {
  const { countSubmits, progress, timer } = hooks;
  const lora = benchLora(o.rank);
  const counter = new FlopCounter(model, { rank: lora.rank, targets: lora.targetModules }, progress);
  const steps: StepFigures[] = [];
  const out = { profile: null as UpdateProfile | null };
  let submits0 = countSubmits?.() ?? 0;
  const onStep = (m: StepMetrics) => {
    const submits = countSubmits ? { submits: countSubmits() - submits0 } : {};
    const modelSeconds = { ...counter.seconds };
    if (m.step <= o.steps) {
      steps.push({ step: m.step, rollout: m.seconds.rollout, update: m.seconds.update, tokens: m.tokens, generated: m.generatedTokens, microBatches: m.microBatches, updateFlops: counter.flops, ...submits, modelSeconds });
    } else if (timer) {
      const callSeconds = modelSeconds.forward + modelSeconds.backward + modelSeconds.optimizer;
      out.profile = { step: m.step, updateSeconds: m.seconds.update, modelSeconds: callSeconds, gpuSeconds: 0, dispatches: timer.counts.dispatches, commandBuffers: timer.counts.encoders, kernels: [] };
    }
    counter.flops = 0;
    counter.seconds = { forward: 0, backward: 0, optimizer: 0 };
    // The next step is the profiled one.
    if (timer && m.step === o.steps) {
      timer.reset();
      counter.timer = timer;
    }
    submits0 = countSubmits?.() ?? 0;
  };
  const trainer = new Trainer(
    { model: counter, dataset: s.dataset, executor: s.executor },
    {
      algo: 'grpo',
      steps: o.steps + (timer ? 1 : 0),
      lr: 1e-3,
      warmupSteps: 0,
      groupSize: o.group,
      promptsPerStep: o.prompts,
      maxTurns: o.maxTurns,
      maxNewTokensPerTurn: o.maxNewTokens,
      klBeta: o.klBeta,
      evalEvery: 0,
      traceEvery: 0,
      checkpointEvery: 0,
    },
    { onStep },
  );
  await trainer.run();
  counter.timer = null;
  const done = out.profile;
  if (timer && done) {
    const kernels = await timer.drain();
    return { steps, profile: { ...done, kernels, gpuSeconds: kernels.reduce((a, k) => a + k.seconds, 0) } };
  }
  return { steps, profile: null };
}

/** "qwen3 L=… C=… I=… H=…/…×… V=…, LoRA r=… on all 7": the model line of a report. */
export function describeTrainModel(model: GpuTrainableModel, rank: number): string {
  const c = model.engine.model;
  const arch = 'architecture' in c && typeof c.architecture === 'string' ? c.architecture : 'qwen';
  return `${arch} L=${c.numLayers} C=${c.hiddenSize} I=${c.intermediateSize} H=${c.numHeads}/${c.numKvHeads}×${c.headDim} V=${c.vocabSize}, LoRA r=${rank} on all 7`;
}

/** The plan's B, S, T and total bytes. */
export function trainPlan(model: GpuTrainableModel): { B: number; S: number; T: number; bytes: number } {
  const { batch: B, context: S, maxTokens: T } = model.engine.plan.options;
  return { B, S, T, bytes: model.gpuBytes() };
}
