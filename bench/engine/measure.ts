/**
 * The engine bench's measurement, window-free: the same code times the engine in the bench page (bench/engine/
 * page.ts, headless Chromium) and in Node on Dawn (bench/full.bench.ts). Given a device and a loaded checkpoint's
 * tensors it plans a `QwenEngine` (src/gpu/engine/qwen-engine.ts), uploads the weights, and times prefill and
 * batched decode, both with sampling on the GPU (`QwenEngine.sample`), so each step reads back 16 bytes per sequence.
 *
 * Counts that do not depend on the hardware come from two sources:
 *  - dispatches: the engine's own count (`lastStepDispatches`, from the Recorder's `dispatchCount`);
 *  - queue submits and GPU buffer bytes: `instrumentDevice` wraps this device's `queue.submit` and `createBuffer`
 *    (the engine exposes neither count). Buffer bytes are what the device was asked to allocate, live (created and
 *    not yet destroyed) and at their peak, to set against the memory plan's total.
 */
import type { GpuContext } from '../../src/gpu/device.ts';
import { QwenEngine, type TensorLike } from '../../src/gpu/engine/qwen-engine.ts';
import { GREEDY, type SamplingParams } from '../../src/gpu/kernels/sample.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { profileWork, type DispatchTimer, type KernelProfile } from '../train/gpu-timer.ts';

export interface EngineBenchOptions {
  batch: number;
  prompt: number;
  decode: number;
  quant: WeightFormat;
  sampling: SamplingParams;
  /**
   * The untimed warm-up before the measurement: a prefill of this many prompt tokens per slot and this many decode
   * steps (default: the measured prompt and 2 steps). Pipelines are compiled when the engine is created, so a short
   * warm-up covers the first-use costs where every token is expensive (full-size models on SwiftShader).
   */
  warmup?: { prompt: number; decode: number };
  /**
   * Per-kernel GPU time (bench/train/gpu-timer.ts): after the measured steps, up to PROFILED_DECODE_STEPS more decode
   * steps run with the timer on (left out of the decode figures: a pass per dispatch slows them), as `profile`.
   */
  timer?: DispatchTimer | null;
}

/** Decode steps profiled after the measured ones, where the planned context leaves room for them. */
export const PROFILED_DECODE_STEPS = 4;

export interface EngineBenchResult {
  adapter: string;
  model: { architecture: string; layers: number; hidden: number; vocab: number };
  /** Tokens per forward planned (T) and context per slot (S). */
  maxTokens: number;
  context: number;
  /** Bytes of the engine's memory plan (memory-plan.ts), and GPU buffer bytes the device was asked for at the peak. */
  planBytes: number;
  allocatedPeakBytes: number;
  /** Engine creation (plan, allocation, pipelines) and weight upload (CPU encoding to the plan's format + writes). */
  createMs: number;
  uploadMs: number;
  prefill: { tokens: number; ms: number; dispatches: number; submits: number };
  decode: { steps: number; tokens: number; ms: number; dispatchesPerStep: number[]; submitsPerStep: number[] };
  /** Compile + first run (not in the timings). */
  warmupMs: number;
  /** The profiled decode steps (`o.timer`), or null without a timer or room in the context. */
  profile: KernelProfile | null;
}

/** Counters of one device, kept by `instrumentDevice`. */
export interface DeviceCounters {
  /** `queue.submit` calls so far. */
  readonly submits: number;
  /** Bytes of buffers created and not destroyed (through this device), and the most there were at once. */
  readonly liveBytes: number;
  readonly peakBytes: number;
  /** Starts the peak again from the live bytes (to measure one phase). */
  resetPeak(): void;
}

const instrumented = new WeakMap<GPUDevice, DeviceCounters>();

/**
 * Wraps `ctx.device`'s `queue.submit` and `createBuffer` (and each created buffer's `destroy`) with counters; once per
 * device (a second call returns the same counters). Behaviour is unchanged: the wrappers call the originals.
 */
export function instrumentDevice(ctx: GpuContext): DeviceCounters {
  const device = ctx.device;
  const known = instrumented.get(device);
  if (known) return known;
  let submits = 0;
  let liveBytes = 0;
  let peakBytes = 0;
  const queue = device.queue;
  const submit = queue.submit.bind(queue);
  queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
    submits++;
    submit(buffers);
  };
  const createBuffer = device.createBuffer.bind(device);
  device.createBuffer = (descriptor: GPUBufferDescriptor) => {
    const buffer = createBuffer(descriptor);
    const size = buffer.size;
    liveBytes += size;
    peakBytes = Math.max(peakBytes, liveBytes);
    const destroy = buffer.destroy.bind(buffer);
    let destroyed = false;
    buffer.destroy = () => {
      if (!destroyed) liveBytes -= size;
      destroyed = true;
      destroy();
    };
    return buffer;
  };
  const counters: DeviceCounters = {
    get submits() {
      return submits;
    },
    get liveBytes() {
      return liveBytes;
    },
    get peakBytes() {
      return peakBytes;
    },
    resetPeak() {
      peakBytes = liveBytes;
    },
  };
  instrumented.set(device, counters);
  return counters;
}

/** Deterministic prompt ids of one slot, spread over the vocabulary. */
export function promptIds(slot: number, n: number, V: number): number[] {
  return Array.from({ length: n }, (_, i) => (1000 + i * 7919 + slot * 104729) % V);
}

/** "vendor/architecture", with " +f16" when the device has shader-f16. */
export function adapterName(ctx: GpuContext): string {
  return `${ctx.adapterInfo.vendor}/${ctx.adapterInfo.architecture}${ctx.features.shaderF16 ? ' +f16' : ''}`;
}

/** The context S (a multiple of 16) that holds a prompt of T tokens, N decoded tokens and the first sampled one. */
export function decodeContext(prompt: number, decode: number): number {
  return Math.ceil((prompt + decode + 1) / 16) * 16;
}

/**
 * Plans an engine for B sequences of the prompt + N decoded tokens, uploads `tensors` (HF names, as src/model/load.ts
 * gives them), warms up (`o.warmup`), then times one prefill of every slot's prompt and N
 * decode steps of B tokens. The engine is destroyed before returning; `ctx` stays the caller's. `progress` is told
 * when each phase ends (for logs of long runs).
 */
export async function measureEngine(
  ctx: GpuContext,
  config: ModelConfig,
  tensors: ReadonlyMap<string, TensorLike>,
  o: EngineBenchOptions,
  progress: (phase: string) => void = () => undefined,
): Promise<EngineBenchResult> {
  const counters = instrumentDevice(ctx);
  counters.resetPeak();
  const B = o.batch;
  const context = decodeContext(o.prompt, o.decode);
  const maxTokens = Math.max(B, Math.min(o.prompt, 512));
  const c0 = performance.now();
  const engine = await QwenEngine.create(ctx, config, { batch: B, context, maxTokens, weights: o.quant });
  try {
    const u0 = performance.now();
    engine.loadWeights(tensors);
    await ctx.device.queue.onSubmittedWorkDone();
    const uploadMs = performance.now() - u0;
    const createMs = u0 - c0;
    progress(`engine created in ${(createMs / 1000).toFixed(1)} s, weights uploaded in ${(uploadMs / 1000).toFixed(1)} s`);
    const slots = Array.from({ length: B }, (_, s) => s);
    const prefillInputs = slots.map((s) => ({ slot: s, ids: promptIds(s, o.prompt, config.vocabSize), key: { seed: 1, sequence: s, step: 0 } }));

    // Warm-up: one prefill and a few decode steps (first-use costs), then forget the slots.
    const warmup = o.warmup ?? { prompt: o.prompt, decode: 2 };
    const w0 = performance.now();
    let warm = await engine.sample(
      prefillInputs.map((input) => ({ ...input, ids: input.ids.slice(0, warmup.prompt) })),
      o.sampling,
    );
    for (let step = 1; step <= warmup.decode; step++) {
      warm = await engine.sample(
        slots.map((s) => ({ slot: s, ids: [warm.tokens[s]], key: { seed: 1, sequence: s, step } })),
        o.sampling,
      );
    }
    const warmupMs = performance.now() - w0;
    progress(`warm-up in ${(warmupMs / 1000).toFixed(1)} s`);
    for (const s of slots) engine.reset(s);

    // Prefill: every slot's prompt in one call (split into forwards of ≤ T tokens by the engine), first token sampled.
    let s0 = counters.submits;
    const p0 = performance.now();
    let sampled = await engine.sample(prefillInputs, o.sampling);
    const prefillMs = performance.now() - p0;
    const prefill = { tokens: B * o.prompt, ms: prefillMs, dispatches: engine.lastStepDispatches, submits: counters.submits - s0 };
    progress(`prefill in ${(prefillMs / 1000).toFixed(1)} s`);

    // Decode: N steps of one token per sequence, all B sequences in each step, sampled on the GPU.
    const dispatchesPerStep: number[] = [];
    const submitsPerStep: number[] = [];
    const d0 = performance.now();
    for (let step = 1; step <= o.decode; step++) {
      s0 = counters.submits;
      sampled = await engine.sample(
        slots.map((s) => ({ slot: s, ids: [sampled.tokens[s]], key: { seed: 1, sequence: s, step } })),
        o.sampling,
      );
      dispatchesPerStep.push(engine.lastStepDispatches);
      submitsPerStep.push(counters.submits - s0);
    }
    const decodeMs = performance.now() - d0;

    // The last fed position is prompt + decode − 1 so far; each profiled step feeds the next one, within the context.
    const room = Math.min(PROFILED_DECODE_STEPS, context - o.prompt - o.decode);
    let profile: KernelProfile | null = null;
    if (o.timer && room > 0) {
      profile = await profileWork(o.timer, room, async () => {
        for (let k = 1; k <= room; k++) {
          const step = o.decode + k;
          sampled = await engine.sample(
            slots.map((s) => ({ slot: s, ids: [sampled.tokens[s]], key: { seed: 1, sequence: s, step } })),
            o.sampling,
          );
        }
      });
    }
    return {
      adapter: adapterName(ctx),
      model: { architecture: config.architecture, layers: config.numLayers, hidden: config.hiddenSize, vocab: config.vocabSize },
      maxTokens,
      context,
      planBytes: engine.plan.totalBytes,
      allocatedPeakBytes: counters.peakBytes,
      createMs,
      uploadMs,
      prefill,
      decode: { steps: o.decode, tokens: B * o.decode, ms: decodeMs, dispatchesPerStep, submitsPerStep },
      warmupMs,
      profile,
    };
  } finally {
    engine.destroy();
  }
}

/** Dispatches the engine records for one decode step of one sequence at a model's shape, fused and unfused. */
export interface ShapeDispatches {
  /** Per layer, and the rest (embedding, final norm, LM head chunks, sampler): perToken = other + perLayer · layers. */
  perLayer: number;
  other: number;
  perToken: number;
  /** Queue submits of that decode step. */
  submits: number;
}

/**
 * What a B = 1 decode step records at `config`'s shape, without the model's weights or its full depth: the engine is
 * planned with 1 and then 2 of its layers (weights left zero, so nothing is uploaded), one token is decoded and
 * sampled on each, and the difference of their `lastStepDispatches` is the per-layer count. The LM head and the
 * embedding keep their real size (their chunking is part of the count). `fused` picks the engine's forward.
 */
export async function countShapeDispatches(ctx: GpuContext, config: ModelConfig, quant: WeightFormat, fused: boolean): Promise<ShapeDispatches> {
  const counters = instrumentDevice(ctx);
  const step = async (layers: number) => {
    const engine = await QwenEngine.create(ctx, { ...config, numLayers: layers }, { batch: 1, context: 16, maxTokens: 1, weights: quant, fused });
    try {
      const s0 = counters.submits;
      await engine.sample([{ slot: 0, ids: [0], key: { seed: 1, sequence: 0, step: 0 } }], GREEDY);
      return { dispatches: engine.lastStepDispatches, submits: counters.submits - s0 };
    } finally {
      engine.destroy();
    }
  };
  const one = await step(1);
  const two = await step(2);
  const perLayer = two.dispatches - one.dispatches;
  const other = one.dispatches - perLayer;
  return { perLayer, other, perToken: other + perLayer * config.numLayers, submits: two.submits };
}
