/**
 * One shape × weight format of bench:full, in a child process of its own (forked by bench/full.bench.ts, with the
 * same tsx and `?raw` hooks): the process's peak resident memory then belongs to this one run, and the device's
 * memory goes back to the system when the process ends. Reads the model folder (src/model/files-node.ts), opens a
 * device on Dawn (src/gpu/node/node-gpu.ts; SwiftShader where there is no GPU), times load, prefill and decode with
 * the engine bench's code (bench/engine/measure.ts), then one or more GRPO steps with the training bench's code
 * (bench/train/measure.ts) on the toy task, and sends the figures to the parent as one `FullRunMessage`.
 *
 * Memory: the checkpoint's tensors stay in memory as f32 for the whole run (both engines upload from them); on
 * SwiftShader the "GPU" buffers are host memory too, so the peak RSS is roughly tensors + plan + Dawn's copies.
 */
import initSqlJs from 'sql.js';
import { acquireGpu } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import type { SamplingParams } from '../../src/gpu/kernels/sample.ts';
import { loadModelFolder } from '../../src/model/files-node.ts';
import { GpuTrainableModel } from '../../src/train/gpu-model.ts';
import { setupToyTask } from '../../src/train/toy-run.ts';
import { instrumentDevice, measureEngine, type EngineBenchResult } from '../engine/measure.ts';
import { benchLora, measureTraining, type GrpoBenchSettings, type StepFigures } from '../train/measure.ts';

export interface FullRunRequest {
  dir: string;
  quant: WeightFormat;
  batch: number;
  prompt: number;
  decode: number;
  sampling: SamplingParams;
  warmup: { prompt: number; decode: number };
  /** null: no GRPO step (--no-train). */
  train: (GrpoBenchSettings & { contextTokens: number; microBatchTokens: number }) | null;
}

export interface TrainFigures {
  /** GpuTrainableModel.create: plan, allocation, weight upload, adapter, trainer pipelines. */
  createMs: number;
  planBytes: number;
  allocatedPeakBytes: number;
  steps: StepFigures[];
}

export interface FullRunResult {
  driver: string;
  /** Reading and decoding the folder's safetensors to f32 tensors. */
  readMs: number;
  engine: EngineBenchResult;
  train: TrainFigures | null;
  /** Peak resident set size of this process (bytes) after the folder was read, after decode, and at the end. */
  peakRss: { read: number; decode: number; end: number };
}

export type FullRunMessage = { ok: true; result: FullRunResult } | { ok: false; error: { name: string; message: string } };

/** A progress line on stderr, with the seconds since the run began. */
const began = performance.now();
const log = (what: string) => console.error(`    [${((performance.now() - began) / 1000).toFixed(0)} s] ${what}`);

/** Peak RSS of this process so far, in bytes (`maxRSS` is in kibibytes). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

async function runOne(r: FullRunRequest): Promise<FullRunResult> {
  const t0 = performance.now();
  const model = await loadModelFolder(r.dir);
  const readMs = performance.now() - t0;
  const rssRead = peakRss();
  log(`folder read in ${(readMs / 1000).toFixed(1)} s`);
  const { gpu, driver, adapter } = await nodeGpu();
  const ctx = await acquireGpu({ gpu, label: 'bench-full' });
  try {
    const engine = await measureEngine(ctx, model.config, model.tensors, { batch: r.batch, prompt: r.prompt, decode: r.decode, quant: r.quant, sampling: r.sampling, warmup: r.warmup }, log);
    log('decode measured');
    const rssDecode = peakRss();
    let train: TrainFigures | null = null;
    if (r.train) {
      const counters = instrumentDevice(ctx);
      counters.resetPeak();
      const setup = await setupToyTask(await initSqlJs());
      const c0 = performance.now();
      const trainable = await GpuTrainableModel.create(ctx, model.config, model.tensors, setup.tokenizer, {
        lora: benchLora(r.train.rank),
        seed: 0,
        rolloutSlots: r.train.group * r.train.prompts,
        contextTokens: r.train.contextTokens,
        microBatchTokens: r.train.microBatchTokens,
        weights: r.quant,
      });
      try {
        await ctx.device.queue.onSubmittedWorkDone();
        const createMs = performance.now() - c0;
        log(`training model created in ${(createMs / 1000).toFixed(1)} s`);
        const steps = await measureTraining(setup, trainable, r.train, { countSubmits: () => counters.submits, progress: log });
        train = { createMs, planBytes: trainable.gpuBytes(), allocatedPeakBytes: counters.peakBytes, steps };
      } finally {
        trainable.destroy();
      }
    }
    return { driver: `${adapter} via ${driver}`, readMs, engine, train, peakRss: { read: rssRead, decode: rssDecode, end: peakRss() } };
  } finally {
    ctx.destroy();
  }
}

function reply(message: FullRunMessage): void {
  if (!process.send) {
    console.log(JSON.stringify(message));
    process.exit(message.ok ? 0 : 1);
  }
  // Exit once the message is out: Dawn's handles would otherwise keep the process alive.
  process.send(message, () => process.exit(message.ok ? 0 : 1));
}

const request = JSON.parse(process.argv[2] ?? 'null') as FullRunRequest | null;
if (request === null) {
  console.error('bench/full/run-one.ts is started by bench/full.bench.ts with a JSON request as its argument');
  process.exit(2);
}
runOne(request).then(
  (result) => reply({ ok: true, result }),
  (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    reply({ ok: false, error: { name: err.name, message: err.message } });
  },
);
