/**
 * `npm run bench:train`: what one GRPO step costs on this device, and the GPU memory training Qwen3-0.6B would plan.
 *
 *   tsx bench/train.bench.ts [--group G] [--prompts P] [--steps N] [--layers L] [--hidden C] [--heads H]
 *     [--kv-heads KVH] [--head-dim D] [--intermediate I] [--vocab V] [--rank R] [--turns K] [--new-tokens M]
 *     [--micro-batch T] [--peak-sizes 256,512] [--json]
 *
 * The page (bench/train/page.ts, bundled by e2e/model/bundle.ts) runs in Debian's headless Chromium with
 * `--enable-unsafe-webgpu` (SwiftShader where there is no GPU), served from 127.0.0.1 (e2e/model/serve.ts): N real
 * GRPO steps (rollouts of G episodes for each of P toy-task questions against the real environment, then the update)
 * with a random Qwen3 of the given dimensions, then the engine's own matmul at square sizes, every variant. Printed:
 *  - per step: rollout and update seconds, tokens, the update's FLOPs (bench/train/flops.ts states the count:
 *    forward + backward with the per-layer recompute) and its FLOP/s;
 *  - the mean over the steps after the first (which compiles the pipelines) and the update's FLOP/s as a ratio to
 *    the best matmul FLOP/s measured in the same run on the same device;
 *  - where the adapter has 'timestamp-query': one more step, profiled (bench/train/gpu-timer.ts: every dispatch in a
 *    compute pass of its own with GPU timestamps; left out of the means), as a per-kernel table of GPU time, with the
 *    update's wall time and GPU-busy share, and a check that the timestamps are real (one matmul timed both ways);
 *  - the GPU memory planned for training Qwen3-0.6B with G = 4 episodes of 2,048 tokens (memory-plan.ts, from the
 *    config alone, no weights), by kind, for T = 2,048 (one episode per micro-batch) and 8,192 (the whole group);
 *  - the machine's 1-minute load average before and after (the figures are ratios within one run for that reason).
 * `--json` ends the output with one line of JSON holding these figures, `updateOverMatmul` (the update's FLOP/s ÷ the
 * best matmul's) and `kernels` (the per-kernel table) among them.
 */
import { loadavg } from 'node:os';
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import { formatBytes, planMemory, type TensorKind } from '../src/gpu/memory-plan.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { QWEN3_0_6B } from '../src/model/config.ts';
import { DEFAULT_TRAIN_CONFIG } from '../src/train/types.ts';
import type { TrainBenchOptions, TrainBenchResult } from './train/page.ts';

const USAGE =
  'usage: npm run bench:train -- [--group G] [--prompts P] [--steps N] [--layers L] [--hidden C] [--heads H] [--kv-heads KVH] [--head-dim D] [--intermediate I] [--vocab V] [--rank R] [--turns K] [--new-tokens M] [--micro-batch T] [--peak-sizes 256,512] [--json]';

function parseArgs(argv: readonly string[]): TrainBenchOptions & { json: boolean } {
  const a = parseCliArgs(argv, USAGE, { switches: ['json'] });
  const sizes = a.string('peak-sizes') ?? '256,512';
  if (!/^\d+(,\d+)*$/.test(sizes)) throw new UsageError(`--peak-sizes must be comma-separated sizes, not '${sizes}'`);
  const o: TrainBenchOptions & { json: boolean } = {
    json: a.flag('json'),
    group: a.int('group', 4),
    prompts: a.int('prompts', 2),
    steps: a.int('steps', 4),
    layers: a.int('layers', 2),
    hidden: a.int('hidden', 64),
    heads: a.int('heads', 4),
    kvHeads: a.int('kv-heads', 2),
    headDim: a.int('head-dim', 16),
    intermediate: a.int('intermediate', 128),
    vocab: a.int('vocab', 512),
    rank: a.int('rank', 8),
    maxTurns: a.int('turns', 2),
    maxNewTokens: a.int('new-tokens', 8),
    klBeta: 0,
    microBatchTokens: a.int('micro-batch', 1024),
    peakSizes: sizes.split(',').map(Number),
  };
  a.done();
  if (o.heads % o.kvHeads !== 0) throw new UsageError(`--heads ${o.heads} must be a multiple of --kv-heads ${o.kvHeads}`);
  if (o.microBatchTokens < o.group * o.prompts) throw new UsageError(`--micro-batch ${o.microBatchTokens} must be at least G × P = ${o.group * o.prompts}`);
  if (o.steps < 2) throw new UsageError('--steps must be at least 2 (the first step compiles the pipelines and is left out of the means)');
  return o;
}

const KINDS: readonly TensorKind[] = ['weight', 'adapter', 'kv-cache', 'activation', 'checkpoint', 'gradient', 'optimizer', 'table'];

/** The training plan of Qwen3-0.6B for G = 4 episodes of 2,048 tokens, LoRA as the default config, by kind. */
function memoryLines(): string[] {
  const c = DEFAULT_TRAIN_CONFIG;
  const lora = { rank: c.loraRank, targets: c.loraTargets };
  const lines = [`GPU memory planned for training Qwen3-0.6B (memory-plan.ts, config only): B = 4 episodes × S = 2048, LoRA r=${lora.rank} on all 7, LM head in chunks of 64 rows:`];
  const w = (s: string) => s.padStart(10);
  lines.push(`  ${'weights'.padEnd(7)} ${'T'.padStart(5)} ${KINDS.map((k) => w(k)).join(' ')} ${w('total')}  (bytes)`);
  for (const weights of ['f16', 'q4'] as WeightFormat[]) {
    for (const T of [2048, 8192]) {
      const plan = planMemory(QWEN3_0_6B, { batch: 4, context: 2048, maxTokens: T, lora, weights, training: { logitChunkRows: 64 } });
      lines.push(`  ${weights.padEnd(7)} ${String(T).padStart(5)} ${KINDS.map((k) => w(formatBytes(plan.byKind[k]))).join(' ')} ${w(formatBytes(plan.totalBytes))}  (${plan.totalBytes})`);
    }
  }
  return lines;
}

/** The run's figures: what `--json` prints and the text report reads. */
function figures(r: TrainBenchResult, load: { before: number; after: number }) {
  const timed = r.steps.slice(1);
  const mean = (f: (s: (typeof timed)[number]) => number) => timed.reduce((a, s) => a + f(s), 0) / timed.length;
  const updated = timed.filter((s) => s.updateFlops > 0);
  const updateGflops = updated.length === 0 ? null : updated.reduce((a, s) => a + s.updateFlops, 0) / updated.reduce((a, s) => a + s.update, 0) / 1e9;
  const bestMatmulGflops = Math.max(...r.matmul.map((m) => m.gflops));
  const p = r.profile;
  return {
    adapter: r.adapter,
    model: r.model,
    load1m: load,
    meanSeconds: { rollout: mean((s) => s.rollout), update: mean((s) => s.update) },
    updatingSteps: updated.length,
    updateGflops,
    bestMatmulGflops,
    updateOverMatmul: updateGflops === null ? null : updateGflops / bestMatmulGflops,
    steps: r.steps,
    matmul: r.matmul,
    profile: p && {
      step: p.step,
      updateSeconds: p.updateSeconds,
      modelSeconds: p.modelSeconds,
      gpuSeconds: p.gpuSeconds,
      dispatches: p.dispatches,
      commandBuffers: p.commandBuffers,
    },
    kernels: (p?.kernels ?? []).map((k) => ({ kernel: k.kernel, dispatches: k.dispatches, ms: k.seconds * 1000, share: p && p.gpuSeconds > 0 ? k.seconds / p.gpuSeconds : 0 })),
    timestampCheck: r.timestampCheck,
  };
}

function report(o: TrainBenchOptions, r: TrainBenchResult, f: ReturnType<typeof figures>): void {
  console.log(`adapter: ${r.adapter}; model: ${r.model}; G=${o.group} × P=${o.prompts} episodes per step, ≤ ${o.maxTurns} turns of ≤ ${o.maxNewTokens} tokens; plan B=${r.plan.B} S=${r.plan.S} T=${r.plan.T} (${formatBytes(r.plan.bytes)}); load ${f.load1m.before.toFixed(2)} → ${f.load1m.after.toFixed(2)}`);
  console.log(`  ${'step'.padStart(4)} ${'rollout s'.padStart(10)} ${'update s'.padStart(9)} ${'fwd/bwd/opt s'.padStart(16)} ${'tokens'.padStart(7)} ${'generated'.padStart(9)} ${'micro-b.'.padStart(8)} ${'update GFLOP'.padStart(12)} ${'update GFLOP/s'.padStart(14)}`);
  for (const s of r.steps) {
    const gf = s.updateFlops / 1e9;
    const calls = [s.modelSeconds.forward, s.modelSeconds.backward, s.modelSeconds.optimizer].map((x) => x.toFixed(2)).join('/');
    console.log(`  ${String(s.step).padStart(4)} ${s.rollout.toFixed(2).padStart(10)} ${s.update.toFixed(2).padStart(9)} ${calls.padStart(16)} ${String(s.tokens).padStart(7)} ${String(s.generated).padStart(9)} ${String(s.microBatches).padStart(8)} ${gf.toFixed(3).padStart(12)} ${(s.update > 0 ? gf / s.update : 0).toFixed(3).padStart(14)}`);
  }
  console.log(`mean of steps 2..${r.steps.length}: ${(f.meanSeconds.rollout + f.meanSeconds.update).toFixed(2)} s per step = rollout ${f.meanSeconds.rollout.toFixed(2)} s + update ${f.meanSeconds.update.toFixed(2)} s`);
  console.log('engine matmul (timeMatmul, median of 3 after a warm-up):');
  for (const m of r.matmul) console.log(`  ${m.op.padEnd(25)} ${m.shape.padEnd(20)} ${m.ms.toFixed(1).padStart(8)} ms ${m.gflops.toFixed(3).padStart(8)} GFLOP/s`);
  if (f.updateGflops === null) console.log('no step after the first made an update (every group had equal rewards): no update FLOP/s');
  else console.log(`update: ${f.updateGflops.toFixed(3)} GFLOP/s over ${f.updatingSteps} updating steps = ${(f.updateOverMatmul ?? 0).toFixed(3)} of the best matmul's ${f.bestMatmulGflops.toFixed(3)} GFLOP/s`);
  const p = r.profile;
  if (!p) console.log('per-kernel GPU time: not measured (the adapter has no timestamp-query)');
  else if (p.dispatches === 0) console.log(`per-kernel GPU time: profiled step ${p.step} made no update (equal rewards in every group)`);
  else {
    console.log(
      `per-kernel GPU time of step ${p.step}'s update (profiled: each dispatch in its own pass with timestamps; not in the means): update ${p.updateSeconds.toFixed(2)} s wall, ${p.modelSeconds.toFixed(2)} s in model calls, GPU busy ${p.gpuSeconds.toFixed(3)} s (${((100 * p.gpuSeconds) / p.modelSeconds).toFixed(0)}% of the model calls) over ${p.dispatches} dispatches in ${p.commandBuffers} command buffers`,
    );
    console.log(`  ${'kernel'.padEnd(40)} ${'dispatches'.padStart(10)} ${'GPU ms'.padStart(9)} ${'share'.padStart(6)} ${'µs/dispatch'.padStart(12)}`);
    for (const k of f.kernels) console.log(`  ${k.kernel.padEnd(40)} ${String(k.dispatches).padStart(10)} ${k.ms.toFixed(1).padStart(9)} ${(100 * k.share).toFixed(1).padStart(5)}% ${((1000 * k.ms) / k.dispatches).toFixed(0).padStart(12)}`);
  }
  const c = r.timestampCheck;
  if (c) console.log(`timestamps check: matmul.v0 ${c.shape}: ${c.gpuMs.toFixed(1)} ms GPU per dispatch vs ${c.wallMs.toFixed(1)} ms wall (median): ${c.gpuMs > 0.5 * c.wallMs && c.gpuMs <= 1.05 * c.wallMs ? 'consistent' : 'NOT consistent: read the table with care'}`);
  for (const line of memoryLines()) console.log(line);
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const before = loadavg()[0];
  const r = await withChromium('bench/train/page.ts', 'train-bench', {}, (page) => page.evaluate((opts) => window.trainBench!.run(opts), o));
  if ('error' in r) throw new Error(`bench:train on WebGPU: ${r.error.name}: ${r.error.message}`);
  const f = figures(r, { before, after: loadavg()[0] });
  report(o, r, f);
  if (o.json) console.log(JSON.stringify(f));
}

runCli(main, USAGE);
