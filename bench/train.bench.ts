/**
 * `npm run bench:train`: what one GRPO step costs on this device, and the GPU memory training Qwen3-0.6B would plan.
 *
 *   tsx bench/train.bench.ts [--group G] [--prompts P] [--steps N] [--layers L] [--hidden C] [--heads H]
 *     [--kv-heads KVH] [--head-dim D] [--intermediate I] [--vocab V] [--rank R] [--turns K] [--new-tokens M]
 *     [--micro-batch T] [--peak-sizes 256,512]
 *
 * The page (bench/train/page.ts, bundled by e2e/model/bundle.ts) runs in Debian's headless Chromium with
 * `--enable-unsafe-webgpu` (SwiftShader where there is no GPU), served from 127.0.0.1 (e2e/model/serve.ts): N real
 * GRPO steps (rollouts of G episodes for each of P toy-task questions against the real environment, then the update)
 * with a random Qwen3 of the given dimensions, then the engine's own matmul at square sizes, every variant. Printed:
 *  - per step: rollout and update seconds, tokens, the update's FLOPs (bench/train/flops.ts states the count:
 *    forward + backward with the per-layer recompute) and its FLOP/s;
 *  - the mean over the steps after the first (which compiles the pipelines) and the update's FLOP/s as a ratio to
 *    the best matmul FLOP/s measured in the same run on the same device;
 *  - the GPU memory planned for training Qwen3-0.6B with G = 4 episodes of 2,048 tokens (memory-plan.ts, from the
 *    config alone, no weights), by kind, for T = 2,048 (one episode per micro-batch) and 8,192 (the whole group).
 */
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import { formatBytes, planMemory, type TensorKind } from '../src/gpu/memory-plan.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { QWEN3_0_6B } from '../src/model/config.ts';
import { DEFAULT_TRAIN_CONFIG } from '../src/train/types.ts';
import type { TrainBenchOptions, TrainBenchResult } from './train/page.ts';

const USAGE =
  'usage: npm run bench:train -- [--group G] [--prompts P] [--steps N] [--layers L] [--hidden C] [--heads H] [--kv-heads KVH] [--head-dim D] [--intermediate I] [--vocab V] [--rank R] [--turns K] [--new-tokens M] [--micro-batch T] [--peak-sizes 256,512]';

function parseArgs(argv: readonly string[]): TrainBenchOptions {
  const a = parseCliArgs(argv, USAGE);
  const sizes = a.string('peak-sizes') ?? '256,512';
  if (!/^\d+(,\d+)*$/.test(sizes)) throw new UsageError(`--peak-sizes must be comma-separated sizes, not '${sizes}'`);
  const o: TrainBenchOptions = {
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

function report(o: TrainBenchOptions, r: TrainBenchResult): void {
  console.log(`adapter: ${r.adapter}; model: ${r.model}; G=${o.group} × P=${o.prompts} episodes per step, ≤ ${o.maxTurns} turns of ≤ ${o.maxNewTokens} tokens; plan B=${r.plan.B} S=${r.plan.S} T=${r.plan.T} (${formatBytes(r.plan.bytes)})`);
  console.log(`  ${'step'.padStart(4)} ${'rollout s'.padStart(10)} ${'update s'.padStart(9)} ${'tokens'.padStart(7)} ${'generated'.padStart(9)} ${'micro-b.'.padStart(8)} ${'update GFLOP'.padStart(12)} ${'update GFLOP/s'.padStart(14)}`);
  for (const s of r.steps) {
    const gf = s.updateFlops / 1e9;
    console.log(`  ${String(s.step).padStart(4)} ${s.rollout.toFixed(2).padStart(10)} ${s.update.toFixed(2).padStart(9)} ${String(s.tokens).padStart(7)} ${String(s.generated).padStart(9)} ${String(s.microBatches).padStart(8)} ${gf.toFixed(3).padStart(12)} ${(s.update > 0 ? gf / s.update : 0).toFixed(3).padStart(14)}`);
  }
  const timed = r.steps.slice(1);
  const mean = (f: (s: (typeof timed)[number]) => number) => timed.reduce((a, s) => a + f(s), 0) / timed.length;
  const updated = timed.filter((s) => s.updateFlops > 0);
  const updateRate = updated.reduce((a, s) => a + s.updateFlops, 0) / updated.reduce((a, s) => a + s.update, 0) / 1e9;
  console.log(`mean of steps 2..${r.steps.length}: ${(mean((s) => s.rollout) + mean((s) => s.update)).toFixed(2)} s per step = rollout ${mean((s) => s.rollout).toFixed(2)} s + update ${mean((s) => s.update).toFixed(2)} s`);
  console.log('engine matmul (timeMatmul, median of 3 after a warm-up):');
  for (const m of r.matmul) console.log(`  ${m.op.padEnd(10)} ${m.shape.padEnd(20)} ${m.ms.toFixed(1).padStart(8)} ms ${m.gflops.toFixed(3).padStart(8)} GFLOP/s`);
  const best = Math.max(...r.matmul.map((m) => m.gflops));
  if (updated.length === 0) console.log('no step after the first made an update (every group had equal rewards): no update FLOP/s');
  else console.log(`update: ${updateRate.toFixed(3)} GFLOP/s over ${updated.length} updating steps = ${(updateRate / best).toFixed(3)} of the best matmul's ${best.toFixed(3)} GFLOP/s`);
  for (const line of memoryLines()) console.log(line);
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const r = await withChromium('bench/train/page.ts', 'train-bench', {}, (page) => page.evaluate((opts) => window.trainBench!.run(opts), o));
  if ('error' in r) throw new Error(`bench:train on WebGPU: ${r.error.name}: ${r.error.message}`);
  report(o, r);
}

runCli(main, USAGE);
