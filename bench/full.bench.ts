/**
 * `npm run bench:full`: the real model shapes (Qwen3-0.6B, Qwen2.5-0.5B-Instruct) with random weights, in Node on
 * WebGPU (Dawn; SwiftShader where there is no GPU), in each weight format: load, decode and one GRPO step.
 *
 *   tsx --import ./bin/register-raw.mjs bench/full.bench.ts [--shapes qwen3-0.6b,qwen2.5-0.5b] [--quants f16,q8,q4]
 *     [--layers L] [--cache DIR] [--batch B] [--prompt T] [--decode N] [--no-train] [--group G] [--prompts P]
 *     [--turns K] [--new-tokens M] [--rank R] [--train-steps N] [--kl BETA] [--context S] [--micro-batch T]
 *
 * Each shape's checkpoint is written once into the cache (bench/full/models.ts; default .cache/full-models,
 * gitignored) and reused. Each shape × format then runs in a child process of its own (bench/full/run-one.ts), so its
 * peak RSS is its own; the child times with the same code as bench:engine (bench/engine/measure.ts) and bench:train
 * (bench/train/measure.ts). Printed per shape × format:
 *  - load: reading + decoding the folder to f32, then engine creation (plan, allocation, pipelines) + weight upload
 *    (encoding to the format on the CPU);
 *  - peak RSS of the run's process, and the GPU memory of the decode engine's plan (memory-plan.ts) against the
 *    buffer bytes the device was asked for at the peak (bench/engine/measure.ts `instrumentDevice`); the same for the
 *    training model's plan;
 *  - prefill tokens/s (B prompts of T tokens, first token sampled) and decode tokens/s (N steps × B), after a
 *    short warm-up (a 2-token prefill and one decode step); dispatches (the engine's count) and queue submits per decoded token;
 *  - the GRPO step (G episodes of P toy-task prompts, ≤ K turns of ≤ M tokens, LoRA r on all 7): rollout and update
 *    seconds and the update's FLOP/s (bench/train/flops.ts). klBeta defaults to 0.04 so that the step always updates
 *    (with klBeta = 0 a group of equal rewards, likely from a random model, skips the update).
 * Speeds on SwiftShader are the CPU's (2 cores here), not a GPU's; the counts and memory figures hold anywhere.
 * Default decode settings are small (B = 1, T = 16, N = 4) because SwiftShader takes about a second per token here.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseCliArgs, runCli, UsageError } from '../e2e/model/serve.ts';
import type { SamplingParams } from '../src/gpu/kernels/sample.ts';
import { formatBytes } from '../src/gpu/memory-plan.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { DEFAULT_CACHE, ensureModel, isShapeName, SHAPE_NAMES, SHAPES, shapeConfig, type ShapeName } from './full/models.ts';
import type { FullRunMessage, FullRunRequest, FullRunResult } from './full/run-one.ts';

const USAGE =
  'usage: npm run bench:full -- [--shapes qwen3-0.6b,qwen2.5-0.5b] [--quants f16,q8,q4] [--layers L] [--cache DIR] [--batch B] [--prompt T] [--decode N]\n' +
  '         [--no-train] [--group G] [--prompts P] [--turns K] [--new-tokens M] [--rank R] [--train-steps N] [--kl BETA] [--context S] [--micro-batch T]';
const QUANTS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];
/** Qwen3's generation config (temperature 0.6, top-k 20, top-p 0.95), as bench:engine samples. */
const SAMPLING: SamplingParams = { temperature: 0.6, topK: 20, topP: 0.95 };
const SEED = 0;
/** The untimed warm-up: a 2-token prefill and one decode step (bench/engine/measure.ts; every token is costly here). */
const WARMUP = { prompt: 2, decode: 1 };
const CHILD = fileURLToPath(new URL('./full/run-one.ts', import.meta.url));

interface Args {
  shapes: ShapeName[];
  quants: WeightFormat[];
  layers: number | null;
  cache: string;
  run: Omit<FullRunRequest, 'dir' | 'quant'>;
}

function list<T extends string>(text: string, flag: string, known: readonly string[], is: (s: string) => s is T): T[] {
  const items = text.split(',').filter((s) => s !== '');
  const bad = items.filter((s) => !is(s));
  if (items.length === 0 || bad.length > 0) throw new UsageError(`--${flag} takes a comma-separated list of ${known.join(', ')}; not '${text}'`);
  return [...new Set(items as T[])];
}

function parseArgs(argv: readonly string[]): Args {
  const a = parseCliArgs(argv, USAGE, { switches: ['no-train'] });
  const shapes = list(a.string('shapes') ?? SHAPE_NAMES.join(','), 'shapes', SHAPE_NAMES, isShapeName);
  const quants = list(a.string('quants') ?? QUANTS.join(','), 'quants', QUANTS, (s): s is WeightFormat => QUANTS.includes(s as WeightFormat));
  const klText = a.string('kl') ?? '0.04';
  const kl = Number(klText);
  if (!/^\d*\.?\d+$/.test(klText) || !Number.isFinite(kl)) throw new UsageError(`--kl must be a number >= 0, not '${klText}'`);
  const train = {
    rank: a.int('rank', 8),
    group: a.int('group', 2),
    prompts: a.int('prompts', 1),
    steps: a.int('train-steps', 1),
    maxTurns: a.int('turns', 1),
    maxNewTokens: a.int('new-tokens', 4),
    klBeta: kl,
    contextTokens: a.int('context', 256),
    microBatchTokens: a.int('micro-batch', 256),
  };
  const args: Args = {
    shapes,
    quants,
    layers: a.int('layers') ?? null,
    cache: a.string('cache') ?? DEFAULT_CACHE,
    run: { batch: a.int('batch', 1), prompt: a.int('prompt', 16), decode: a.int('decode', 4), sampling: SAMPLING, warmup: WARMUP, train: a.flag('no-train') ? null : train },
  };
  a.done();
  if (train.microBatchTokens < train.group * train.prompts) throw new UsageError(`--micro-batch ${train.microBatchTokens} must be at least G × P = ${train.group * train.prompts}`);
  if (train.group < 2) throw new UsageError('--group must be at least 2: GRPO compares episodes of one prompt');
  return args;
}

/** Runs one shape × format in its own process (run-one.ts); rejects with the child's error. */
function runChild(request: FullRunRequest): Promise<FullRunResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(request)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let message: FullRunMessage | null = null;
    child.on('message', (m) => {
      message = m as FullRunMessage;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const m = message;
      if (m?.ok) resolve(m.result);
      else if (m) reject(new Error(`${m.error.name}: ${m.error.message}`));
      else reject(new Error(`the run's process ended without a result (${signal ? `signal ${signal}` : `exit code ${code}`}); out of memory?`));
    });
  });
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const rate = (tokens: number, ms: number) => ((tokens * 1000) / ms).toFixed(2);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

interface Row {
  shape: string;
  quant: WeightFormat;
  r: FullRunResult;
}

function printRun(row: Row, B: number): void {
  const { r } = row;
  const e = r.engine;
  console.log(`  device: ${r.driver}; engine ${e.adapter}; B=${B} S=${e.context} T=${e.maxTokens}`);
  console.log(`  load: read ${s(r.readMs)} s + engine ${s(e.createMs)} s + upload ${s(e.uploadMs)} s; warm-up ${s(e.warmupMs)} s`);
  console.log(`  GPU memory (decode): plan ${formatBytes(e.planBytes)}, buffers allocated at the peak ${formatBytes(e.allocatedPeakBytes)}; peak RSS ${gib(r.peakRss.read)} after read, ${gib(r.peakRss.decode)} after decode, ${gib(r.peakRss.end)} at the end`);
  console.log(`  prefill ${e.prefill.tokens} tokens in ${s(e.prefill.ms)} s = ${rate(e.prefill.tokens, e.prefill.ms)} tokens/s; decode ${e.decode.tokens} tokens in ${s(e.decode.ms)} s = ${rate(e.decode.tokens, e.decode.ms)} tokens/s`);
  console.log(`  per decode step: dispatches ${[...new Set(e.decode.dispatchesPerStep)].join('/')}, queue submits ${[...new Set(e.decode.submitsPerStep)].join('/')}`);
  const t = r.train;
  if (!t) return;
  console.log(`  training model: created in ${s(t.createMs)} s; GPU memory plan ${formatBytes(t.planBytes)}, buffers allocated at the peak ${formatBytes(t.allocatedPeakBytes)}`);
  for (const st of t.steps) {
    const gf = st.updateFlops / 1e9;
    console.log(`  GRPO step ${st.step}: rollout ${st.rollout.toFixed(1)} s + update ${st.update.toFixed(1)} s; ${st.tokens} tokens (${st.generated} generated), ${st.microBatches} micro-batch(es); update ${gf.toFixed(1)} GFLOP = ${(st.update > 0 ? gf / st.update : 0).toFixed(3)} GFLOP/s; ${st.submits ?? '?'} queue submits`);
  }
}

function updateRate(r: FullRunResult): string {
  const steps = r.train?.steps.filter((st) => st.updateFlops > 0) ?? [];
  if (steps.length === 0) return r.train ? 'no update' : '–';
  return (steps.reduce((a, st) => a + st.updateFlops, 0) / steps.reduce((a, st) => a + st.update, 0) / 1e9).toFixed(3);
}

function printTable(rows: readonly Row[], B: number): void {
  console.log('');
  console.log('| shape | format | load s (read + engine + upload) | peak RSS | GPU plan / allocated (decode) | prefill tok/s | decode tok/s | dispatches / token | submits / token | GRPO step s (rollout + update) | GPU plan / allocated (train) | update GFLOP/s |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { shape, quant, r } of rows) {
    const e = r.engine;
    const load = r.readMs + e.createMs + e.uploadMs;
    const t = r.train;
    const step = t ? t.steps.map((st) => `${(st.rollout + st.update).toFixed(0)} (${st.rollout.toFixed(0)} + ${st.update.toFixed(0)})`).join(', ') : '–';
    const trainMem = t ? `${formatBytes(t.planBytes)} / ${formatBytes(t.allocatedPeakBytes)}` : '–';
    const cells = [
      shape,
      quant,
      `${s(load)} (${s(r.readMs)} + ${s(e.createMs)} + ${s(e.uploadMs)})`,
      gib(r.peakRss.end),
      `${formatBytes(e.planBytes)} / ${formatBytes(e.allocatedPeakBytes)}`,
      rate(e.prefill.tokens, e.prefill.ms),
      rate(e.decode.tokens, e.decode.ms),
      (mean(e.decode.dispatchesPerStep) / B).toFixed(1),
      (mean(e.decode.submitsPerStep) / B).toFixed(1),
      step,
      trainMem,
      updateRate(r),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const B = args.run.batch;
  const t = args.run.train;
  console.log(
    `bench:full: shapes ${args.shapes.join(', ')}${args.layers === null ? '' : ` (${args.layers} layers)`}; formats ${args.quants.join(', ')}; decode B=${B} prompt=${args.run.prompt} N=${args.run.decode}; ` +
      (t ? `GRPO ${t.steps} step(s) G=${t.group} × P=${t.prompts}, ≤ ${t.maxTurns} turn(s) of ≤ ${t.maxNewTokens} tokens, r=${t.rank}, klBeta ${t.klBeta}, S=${t.contextTokens} T=${t.microBatchTokens}` : 'no GRPO step'),
  );
  const rows: Row[] = [];
  const failed: string[] = [];
  const started = performance.now();
  for (const shape of args.shapes) {
    const c = shapeConfig(shape, args.layers);
    const { dir, writeSeconds } = await ensureModel(args.cache, shape, args.layers, SEED);
    const label = `${SHAPES[shape].label}${args.layers === null ? '' : ` (L=${args.layers})`}`;
    console.log(`${label}: L=${c.numLayers} C=${c.hiddenSize} H=${c.numHeads}/${c.numKvHeads}×${c.headDim} I=${c.intermediateSize} V=${c.vocabSize}, random bf16 weights (seed ${SEED}) in ${dir}${writeSeconds === null ? ' (cached)' : ` (written in ${writeSeconds.toFixed(1)} s)`}`);
    for (const quant of args.quants) {
      const t0 = performance.now();
      console.log(`${label} ${quant}: running…`);
      try {
        const r = await runChild({ dir, quant, ...args.run });
        rows.push({ shape: label, quant, r });
        printRun(rows[rows.length - 1], B);
        console.log(`  (${s(performance.now() - t0)} s in all)`);
      } catch (e) {
        const what = `${label} ${quant}: ${e instanceof Error ? e.message : String(e)}`;
        failed.push(what);
        console.log(`  failed: ${what}`);
      }
    }
  }
  printTable(rows, B);
  console.log(`(${s(performance.now() - started)} s in all; speeds are this machine's, counts and bytes hold on any adapter)`);
  if (failed.length > 0) throw new Error(`${failed.length} run(s) failed:\n${failed.join('\n')}`);
}

runCli(main, USAGE);
