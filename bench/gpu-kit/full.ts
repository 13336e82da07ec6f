/**
 * The GPU kit's model phase: the settings' model shape (Qwen3-0.6B on a GPU) with bench:full's random weights, made
 * here (model-folder.ts), then
 *  - load: writing, reading + decoding the folder to f32 (src/model/files-node.ts);
 *  - the engine's last-position logits of one prompt (f32, written beside the report for the PyTorch side), timed:
 *    this first engine compiles every pipeline, which the engines measured next reuse;
 *  - at each batch size B: bench:engine's measurement (bench/engine/measure.ts `measureEngine`: engine creation +
 *    upload, memory planned vs buffer bytes allocated at the peak, prefill and decode tokens/s, dispatches and queue
 *    submits per decode step) and the roofline fraction of decode (below);
 *  - one GRPO step with bench:train's measurement (bench/train/measure.ts `measureTraining`: rollout, update and the
 *    update's forward/backward/optimizer seconds, FLOPs, submits), then one SFT step on the same model, timed the
 *    same way (`FlopCounter`), each with the sequence lengths its update trained on (the PyTorch LoRA step replays
 *    those lengths).
 *
 * Roofline of decode at batch B: a step must read every weight once (the plan's weight bytes: f16 matrices, the tied
 * embedding as the LM head) and the KV cache up to the current position (the plan's KV bytes × the mean filled
 * fraction over the N measured steps); at the measured copy bandwidth (device-info.ts) that takes bytes / bandwidth
 * seconds, so the ceiling is B · bandwidth / bytes tokens/s and the fraction is measured / ceiling.
 */
import initSqlJs from 'sql.js';
import type { GpuContext } from '../../src/gpu/device.ts';
import { QwenEngine } from '../../src/gpu/engine/qwen-engine.ts';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { loadModelFolder } from '../../src/model/files-node.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import type { LoraConfig } from '../../src/model/lora.ts';
import { GpuTrainableModel } from '../../src/train/gpu-model.ts';
import type { ScoredSequence } from '../../src/train/policy-model.ts';
import { setupToyTask, toyConfig, type ToySetup } from '../../src/train/toy-run.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { StepMetrics } from '../../src/train/types.ts';
import { decodeContext, instrumentDevice, measureEngine, promptIds, type EngineBenchResult } from '../engine/measure.ts';
import { installDispatchTimer, profileWork, type KernelProfile } from '../train/gpu-timer.ts';
import { benchLora, FlopCounter, measureTraining, type StepFigures } from '../train/measure.ts';
import { KIT_SAMPLING, MODEL_SEED, type KitSettings } from './settings.ts';
import { writeRandomModel } from './model-folder.ts';

export interface DecodeFigures {
  batch: number;
  engine: EngineBenchResult;
  prefillTokensPerSecond: number;
  decodeTokensPerSecond: number;
  dispatchesPerToken: number;
  submitsPerToken: number;
  roofline: Roofline;
}

export interface Roofline {
  /** Bytes a decode step reads (weights + the KV cache's mean filled part) and the ceiling at `bandwidth`. */
  bytesPerStep: number;
  bandwidth: number;
  ceilingTokensPerSecond: number;
  fraction: number;
}

export interface PhaseSeconds {
  rollout: number;
  update: number;
  forward: number;
  backward: number;
  optimizer: number;
}

export interface TrainStepFigures {
  algo: 'grpo' | 'sft';
  seconds: PhaseSeconds;
  tokens: number;
  generated: number;
  microBatches: number;
  updateFlops: number;
  submits: number | null;
  /** Token count of each sequence the update's forward + backward trained on (micro-batches concatenated). */
  sequenceLengths: number[];
}

export interface FullReport {
  label: string;
  config: ModelConfig;
  seed: number;
  modelDir: string;
  load: { writeSeconds: number; readSeconds: number };
  /**
   * The logits prompt's ids and file; `firstEngineSeconds`: the process's first engine — creation with every pipeline
   * compiled (later engines on the device reuse Dawn's compiled pipelines), upload and one prefill.
   */
  logits: { ids: number[]; file: string; vocab: number; firstEngineSeconds: number };
  /** Every slot's prompt ids of the decode measurement (bench/engine/measure.ts `promptIds`), for the largest B. */
  decodePrompts: number[][];
  promptTokens: number;
  decodeTokens: number;
  decode: DecodeFigures[];
  train: {
    rank: number;
    targets: string[];
    createSeconds: number;
    planBytes: number;
    allocatedPeakBytes: number;
    grpo: TrainStepFigures;
    sft: TrainStepFigures;
    /** A second SFT step with every dispatch timed (the update's kernels; null without 'timestamp-query'). */
    sftProfile: KernelProfile | null;
  } | null;
}

export function roofline(config: ModelConfig, batch: number, prompt: number, decode: number, tokensPerSecond: number, bandwidth: number): Roofline {
  const context = decodeContext(prompt, decode);
  const plan = planMemory(config, { batch, context, maxTokens: Math.max(batch, Math.min(prompt, 512)), weights: 'f16' });
  // Mean position over the measured steps: the prompt, the first sampled token, then half the decoded ones.
  const filled = (prompt + 1 + decode / 2) / context;
  const bytesPerStep = plan.byKind.weight + plan.byKind['kv-cache'] * filled;
  const ceilingTokensPerSecond = (batch * bandwidth) / bytesPerStep;
  return { bytesPerStep, bandwidth, ceilingTokensPerSecond, fraction: tokensPerSecond / ceilingTokensPerSecond };
}

/** The engine's logits of the last prompt position (V floats): prefill of `ids` in one slot, f16 weights, no LoRA. */
async function lastPositionLogits(ctx: GpuContext, config: ModelConfig, tensors: Parameters<QwenEngine['loadWeights']>[0], ids: number[]): Promise<Float32Array> {
  const engine = await QwenEngine.create(ctx, config, { batch: 1, context: decodeContext(ids.length, 0), maxTokens: ids.length, lora: null, weights: 'f16' });
  try {
    engine.loadWeights(tensors);
    return (await engine.step([{ slot: 0, ids }])).slice(0, config.vocabSize);
  } finally {
    engine.destroy();
  }
}

/** Records the lengths of the sequences each backward trains on (the forward with the adapter just before it). */
function recordUpdateLengths(model: GpuTrainableModel): { take(): number[] } {
  const forward = model.forward.bind(model);
  const backward = model.backward.bind(model);
  let pending: number[] = [];
  let trained: number[] = [];
  model.forward = (batch: readonly ScoredSequence[], options = {}) => {
    if (options.adapter !== false) pending = batch.map((s) => s.tokenIds.length);
    return forward(batch, options);
  };
  model.backward = (dlogprob: Float32Array) => {
    trained.push(...pending);
    pending = [];
    return backward(dlogprob);
  };
  return {
    take() {
      const out = trained;
      trained = [];
      return out;
    },
  };
}

const perSecond = (count: number, ms: number) => (count * 1000) / ms;
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** "GPU 12.3 ms of 40.1 ms wall per step (31 %); matmul 60 %, attention 20 %, …" (the five slowest kernels). */
function describeProfile(p: KernelProfile): string {
  const perStep = (x: number) => `${((1000 * x) / p.steps).toFixed(2)} ms`;
  const share = (k: { seconds: number }) => `${((100 * k.seconds) / Math.max(p.gpuSeconds, 1e-12)).toFixed(0)} %`;
  const top = p.kernels.slice(0, 5).map((k) => `${k.kernel || '(unlabelled)'} ${share(k)}`).join(', ');
  return `GPU ${perStep(p.gpuSeconds)} of ${perStep(p.wallSeconds)} wall per step (${((100 * p.gpuSeconds) / p.wallSeconds).toFixed(0)} % busy), ${p.dispatches} dispatches; ${top}`;
}

export async function runFull(ctx: GpuContext, s: KitSettings, workDir: string, bandwidth: number, log: (line: string) => void, writeLogits: (file: string, values: Float32Array) => Promise<void>): Promise<FullReport> {
  const modelDir = `${workDir}/model`;
  const writeSeconds = await writeRandomModel(modelDir, s.config, MODEL_SEED);
  log(`random ${s.label} (seed ${MODEL_SEED}, bf16) written to ${modelDir} in ${writeSeconds.toFixed(1)} s`);
  const r0 = performance.now();
  const model = await loadModelFolder(modelDir);
  const readSeconds = (performance.now() - r0) / 1000;
  log(`folder read in ${readSeconds.toFixed(1)} s`);
  const config = model.config;

  const ids = promptIds(0, s.logitsPrompt, config.vocabSize);
  const logitsFile = `${workDir}/engine-logits.f32`;
  const l0 = performance.now();
  await writeLogits(logitsFile, await lastPositionLogits(ctx, config, model.tensors, ids));
  const firstEngineSeconds = (performance.now() - l0) / 1000;
  log(`engine logits of a ${ids.length}-token prompt written to ${logitsFile} (first engine: ${firstEngineSeconds.toFixed(1)} s)`);

  // Per-kernel GPU time where the device has timestamps (main.ts asks for them): decode steps and an SFT update.
  const timer = installDispatchTimer(ctx.device);
  log(timer ? 'timestamp-query: kernels timed in a few profiled steps' : 'no timestamp-query on this device: no per-kernel times');
  const decode: DecodeFigures[] = [];
  for (const batch of s.batches) {
    const engine = await measureEngine(ctx, config, model.tensors, { batch, prompt: s.prompt, decode: s.decode, quant: 'f16', sampling: KIT_SAMPLING, warmup: s.warmup, timer }, log);
    if (engine.profile) log(`B=${batch} decode profiled: ${describeProfile(engine.profile)}`);
    const decodeTokensPerSecond = perSecond(engine.decode.tokens, engine.decode.ms);
    const figures: DecodeFigures = {
      batch,
      engine,
      prefillTokensPerSecond: perSecond(engine.prefill.tokens, engine.prefill.ms),
      decodeTokensPerSecond,
      dispatchesPerToken: mean(engine.decode.dispatchesPerStep) / batch,
      submitsPerToken: mean(engine.decode.submitsPerStep) / batch,
      roofline: roofline(config, batch, s.prompt, s.decode, decodeTokensPerSecond, bandwidth),
    };
    decode.push(figures);
    log(`B=${batch}: prefill ${figures.prefillTokensPerSecond.toFixed(1)} tok/s, decode ${decodeTokensPerSecond.toFixed(1)} tok/s (${(100 * figures.roofline.fraction).toFixed(1)} % of the roofline), ${figures.dispatchesPerToken.toFixed(1)} dispatches and ${figures.submitsPerToken.toFixed(2)} submits per token`);
  }

  const t = s.train;
  const counters = instrumentDevice(ctx);
  counters.resetPeak();
  const setup = await setupToyTask(await initSqlJs());
  const lora = benchLora(t.rank);
  const c0 = performance.now();
  const trainable = await GpuTrainableModel.create(ctx, config, model.tensors, setup.tokenizer, {
    lora,
    seed: 0,
    rolloutSlots: t.group,
    contextTokens: t.contextTokens,
    microBatchTokens: t.microBatchTokens,
    weights: 'f16',
  });
  try {
    await ctx.device.queue.onSubmittedWorkDone();
    const createSeconds = (performance.now() - c0) / 1000;
    log(`training model created in ${createSeconds.toFixed(1)} s`);
    const lengths = recordUpdateLengths(trainable);
    const [g] = await measureTraining(
      setup,
      trainable,
      { rank: t.rank, group: t.group, prompts: 1, steps: 1, maxTurns: t.turns, maxNewTokens: t.newTokens, klBeta: t.klBeta },
      { countSubmits: () => counters.submits, progress: log },
    );
    const grpo = grpoFigures(g, lengths.take());
    log(`GRPO step: rollout ${grpo.seconds.rollout.toFixed(2)} s + update ${grpo.seconds.update.toFixed(2)} s, ${grpo.tokens} tokens`);
    const sft = await sftStep(setup, trainable, lora, t.sftExamples, t.contextTokens, () => counters.submits, log);
    const sftFigures = { ...sft, sequenceLengths: lengths.take() };
    log(`SFT step: examples ${sft.seconds.rollout.toFixed(2)} s + update ${sft.seconds.update.toFixed(2)} s, ${sft.tokens} tokens`);
    const sftProfile = timer ? await profileWork(timer, 1, async () => void (await sftStep(setup, trainable, lora, t.sftExamples, t.contextTokens, () => counters.submits, () => undefined))) : null;
    if (sftProfile) log(`SFT step profiled: ${describeProfile(sftProfile)}`);
    return {
      label: s.label,
      config,
      seed: MODEL_SEED,
      modelDir,
      load: { writeSeconds, readSeconds },
      logits: { ids, file: logitsFile, vocab: config.vocabSize, firstEngineSeconds },
      decodePrompts: Array.from({ length: Math.max(...s.batches) }, (_, slot) => promptIds(slot, s.prompt, config.vocabSize)),
      promptTokens: s.prompt,
      decodeTokens: s.decode,
      decode,
      train: { rank: lora.rank, targets: [...lora.targetModules], createSeconds, planBytes: trainable.gpuBytes(), allocatedPeakBytes: counters.peakBytes, grpo, sft: sftFigures, sftProfile },
    };
  } finally {
    trainable.destroy();
  }
}

function grpoFigures(g: StepFigures | undefined, sequenceLengths: number[]): TrainStepFigures {
  if (!g) throw new Error('gpu-kit: the GRPO step reported no figures');
  return {
    algo: 'grpo',
    seconds: { rollout: g.rollout, update: g.update, ...g.modelSeconds },
    tokens: g.tokens,
    generated: g.generated,
    microBatches: g.microBatches,
    updateFlops: g.updateFlops,
    submits: g.submits ?? null,
    sequenceLengths,
  };
}

/** One SFT step (toy task, Oracle demonstrations) through the trainer, timed like the GRPO step. */
async function sftStep(
  setup: ToySetup,
  model: GpuTrainableModel,
  lora: LoraConfig,
  examples: number,
  contextTokens: number,
  countSubmits: () => number,
  log: (line: string) => void,
): Promise<Omit<TrainStepFigures, 'sequenceLengths'>> {
  const counter = new FlopCounter(model, { rank: lora.rank, targets: lora.targetModules }, log);
  let metrics: StepMetrics | null = null;
  const submits0 = countSubmits();
  const trainer = new Trainer(
    { model: counter, dataset: setup.dataset, executor: setup.executor },
    toyConfig('sft', { steps: 1, lr: 1e-3, sftExamplesPerStep: examples, maxEpisodeTokens: contextTokens }),
    { onStep: (m) => (metrics = m) },
  );
  await trainer.run();
  // Set in the callback, which TypeScript's narrowing does not follow.
  const m = metrics as StepMetrics | null;
  if (!m) throw new Error('gpu-kit: the SFT step reported no metrics');
  return {
    algo: 'sft',
    seconds: { rollout: m.seconds.rollout, update: m.seconds.update, ...counter.seconds },
    tokens: m.tokens,
    generated: m.generatedTokens,
    microBatches: m.microBatches,
    updateFlops: counter.flops,
    submits: countSubmits() - submits0,
  };
}
