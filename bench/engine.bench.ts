/**
 * `npm run bench:engine`: the WebGPU engine's speed and its hardware-independent counts, and its decode speed next
 * to transformers.js on the same weights.
 *
 *   tsx bench/engine.bench.ts [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4] [--context S]
 *     [--rounds R] [--no-transformers]
 *
 * Without --model a tiny Qwen3 (scripts/make-tiny-model.ts defaults, seed 0) is written to a temp dir. The page
 * (bench/engine/page.ts, bundled by e2e/model/bundle.ts) runs in Debian's headless Chromium with
 * `--enable-unsafe-webgpu` (SwiftShader where there is no GPU), served with the model from 127.0.0.1
 * (e2e/model/serve.ts). Printed:
 *  - prefill tokens/s (B prompts of T tokens, first token sampled on the GPU) and batched decode tokens/s (N steps of
 *    B tokens, sampled on the GPU), after a warm-up run. Absolute rates depend on the machine (DESIGN.md: speed is
 *    reported as ratios);
 *  - GPU dispatches per decode step and per decoded token, from the engine's own count (`lastStepDispatches`), and
 *    queue submits per step, counted by wrapping `device.queue.submit` in the page;
 *  - in the same browser run, batch 1, greedy, the same T-token prompt and N decode steps: the engine's decode
 *    tokens/s and transformers.js's (WASM backend, fp32) on an ONNX copy of the same weights written by
 *    src/model/onnx/qwen.ts into a temp dir, timed in R alternating rounds (default 3; medians), and their ratio;
 *    whether the greedy tokens agree (they should with f16 weights). Skipped, with the
 *    reason, when the copy cannot be made (a model over protobuf's 2 GiB in f32) or with --no-transformers;
 *  - the GPU memory planned for Qwen3-0.6B and Qwen2.5-0.5B-Instruct per weight format, KV cache for --context
 *    (default 2048) and --batch, and the total (memory-plan.ts, from the configs, no weights).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import type { SamplingParams } from '../src/gpu/kernels/sample.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { createRng } from '../src/data/rng.ts';
import { writeTinyModel } from '../src/model/files-node.ts';
import { exportOnnxFolder } from '../src/model/onnx/folder-node.ts';
import { OnnxExportError } from '../src/model/onnx/qwen.ts';
import { tinyModelConfig } from '../src/model/tiny-model.ts';
import { formatBytes } from '../src/gpu/memory-plan.ts';
import { memoryLines } from './engine/memory.ts';
import type { EngineBenchResult } from './engine/measure.ts';
import type { VersusResult } from './engine/page.ts';
import type { GenerationTiming } from './engine/transformers-decode.ts';

const USAGE =
  'usage: npm run bench:engine -- [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4] [--context S] [--rounds R] [--no-transformers]';
const QUANTS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];
const ENTRY = 'bench/engine/page.ts';
const TITLE = 'engine-bench';
/** Qwen3's generation config (temperature 0.6, top-k 20, top-p 0.95): the cuts are exercised, as in real sampling. */
const SAMPLING: SamplingParams = { temperature: 0.6, topK: 20, topP: 0.95 };

interface Args {
  model: string | null;
  batch: number;
  prompt: number;
  decode: number;
  quant: WeightFormat;
  context: number;
  transformers: boolean;
  rounds: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a = parseCliArgs(argv, USAGE, { switches: ['no-transformers'] });
  const model = a.string('model') ?? null;
  const quant = a.string('quant') ?? 'q4';
  if (!QUANTS.includes(quant as WeightFormat)) throw new UsageError(`--quant must be one of ${QUANTS.join('|')}, not '${quant}'`);
  const args = {
    model,
    batch: a.int('batch', 4),
    prompt: a.int('prompt', 32),
    decode: a.int('decode', 16),
    quant: quant as WeightFormat,
    context: a.int('context', 2048),
    transformers: !a.flag('no-transformers'),
    rounds: a.int('rounds', 3),
  };
  a.done();
  return args;
}

/**
 * The ONNX copy transformers.js loads: `out/config.json`, `out/generation_config.json` and `out/onnx/model.onnx`
 * (RoPE tables sized to the run). Returns the reason instead when it cannot be made.
 */
async function makeOnnxCopy(dir: string, out: string, positions: number): Promise<{ ok: true; bytes: number } | { ok: false; reason: string }> {
  try {
    const { bytes } = await exportOnnxFolder(dir, join(out, 'onnx', 'model.onnx'), positions);
    await copyFile(join(dir, 'config.json'), join(out, 'config.json'));
    await copyFile(join(dir, 'generation_config.json'), join(out, 'generation_config.json')).catch(() => undefined);
    return { ok: true, bytes };
  } catch (e) {
    if (e instanceof OnnxExportError) return { ok: false, reason: e.message };
    throw e;
  }
}

/** The installed folder of a package's file (resolved from this file, as Node and Vite resolve it). */
function packageDir(specifier: string): string {
  return dirname(createRequire(import.meta.url).resolve(specifier));
}

/**
 * What the page needs to import transformers.js at run time from our own origin: the library's browser build, its
 * two bare imports mapped to the installed onnxruntime-web (the build that loads its WASM from `wasmPaths`) and
 * onnxruntime-common, and the WASM itself under /ort/.
 */
function transformersFiles(onnxRoot: string) {
  const ortDir = packageDir('onnxruntime-web'); // .../onnxruntime-web/dist
  return {
    mounts: {
      '/tjs/': onnxRoot,
      '/ort/': ortDir,
      '/ort-common/': join(packageDir('onnxruntime-common'), '..', 'esm'),
      '/transformers/': join(packageDir('@huggingface/transformers'), '..', 'dist'),
    },
    importMap: { 'onnxruntime-web/webgpu': '/ort/ort.webgpu.min.mjs', 'onnxruntime-common': '/ort-common/index.js' },
  };
}

const rate = (tokens: number, ms: number) => `${((tokens * 1000) / ms).toFixed(1)} tokens/s`;
const distinct = (xs: readonly number[]) => [...new Set(xs)].join('/');

function printEngine(r: EngineBenchResult, args: Args): void {
  const B = args.batch;
  const perStep = r.decode.dispatchesPerStep;
  console.log(`adapter: ${r.adapter}; weights ${args.quant}; B=${B} prompt=${args.prompt} decode=${args.decode} (S=${r.context}, T=${r.maxTokens}); sampling on the GPU (temperature ${SAMPLING.temperature}, top-k ${SAMPLING.topK}, top-p ${SAMPLING.topP})`);
  console.log(`engine: created in ${(r.createMs / 1000).toFixed(2)} s, weights uploaded in ${(r.uploadMs / 1000).toFixed(2)} s; GPU memory planned ${formatBytes(r.planBytes)}, buffers allocated at the peak ${formatBytes(r.allocatedPeakBytes)}`);
  console.log(`warm-up (compile + one prefill + 2 decode steps, not timed below): ${(r.warmupMs / 1000).toFixed(2)} s`);
  console.log(`prefill: ${r.prefill.tokens} tokens in ${r.prefill.ms.toFixed(0)} ms = ${rate(r.prefill.tokens, r.prefill.ms)} (${r.prefill.dispatches} dispatches, ${r.prefill.submits} submits)`);
  console.log(`decode:  ${r.decode.tokens} tokens (${r.decode.steps} steps × B=${B}) in ${r.decode.ms.toFixed(0)} ms = ${rate(r.decode.tokens, r.decode.ms)} (${(r.decode.ms / r.decode.steps).toFixed(1)} ms per step)`);
  const mean = perStep.reduce((a, b) => a + b, 0) / perStep.length;
  console.log(
    `dispatches per decode step: ${distinct(perStep)} (engine's own count, QwenEngine.lastStepDispatches); per decoded token: ${(mean / B).toFixed(2)} at B=${B}; ` +
      `queue submits per step: ${distinct(r.decode.submitsPerStep)} (counted by wrapping device.queue.submit)`,
  );
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function printVersus(v: VersusResult, args: Args, onnxBytes: number): void {
  const N = args.decode;
  const eMs = median(v.engine.map((t) => t.decodeMs));
  const tMs = median(v.transformers.map((t) => t.decodeMs));
  const perToken = (ts: readonly GenerationTiming[]) => ts.map((t) => (t.decodeMs / N).toFixed(1)).join(', ');
  const prefill = (ts: readonly GenerationTiming[]) => median(ts.map((t) => t.prefillMs)).toFixed(0);
  const e = v.engine[0].tokens;
  const agree = e.filter((id, i) => id === v.transformers[0].tokens[i]).length;
  const info = v.transformersInfo;
  console.log(`head-to-head, B=1, greedy, prompt=${args.prompt}, ${N} decode steps, same weights, ${args.rounds} alternating rounds (medians):`);
  console.log(`  ${`engine (WebGPU, ${args.quant}):`.padEnd(34)} decode ${rate(N, eMs)} (ms per token by round: ${perToken(v.engine)}; prefill ${prefill(v.engine)} ms)`);
  console.log(
    `  transformers.js (WASM, fp32 ONNX): decode ${rate(N, tMs)} (ms per token by round: ${perToken(v.transformers)}; prefill ${prefill(v.transformers)} ms; ` +
      `onnxruntime-web ${info.ortVersion}, ${info.threads} thread${info.threads === 1 ? '' : 's'}${info.crossOriginIsolated ? '' : ' (page not cross-origin isolated)'}; ` +
      `model ${(onnxBytes / 1e6).toFixed(1)} MB, loaded in ${(info.loadMs / 1000).toFixed(2)} s)`,
  );
  const note = args.quant === 'f16' ? '' : ` (${args.quant} weights: not expected to equal the fp32 model's)`;
  console.log(`  ratio, engine / transformers.js decode speed: ${(tMs / eMs).toFixed(2)}×; greedy tokens equal: ${agree}/${e.length}${note}`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const temp = await mkdtemp(join(tmpdir(), 'bench-engine-'));
  let dir = args.model;
  if (dir === null) {
    dir = join(temp, 'model');
    const config = tinyModelConfig();
    await writeTinyModel(dir, config, createRng(0), { dtype: 'F32' });
    console.log(`model: tiny ${config.architecture} L=${config.numLayers} C=${config.hiddenSize} V=${config.vocabSize} (scripts/make-tiny-model.ts defaults, seed 0) in ${dir}`);
  } else {
    console.log(`model: ${dir}`);
  }
  try {
    // transformers.js loads `${localModelPath}${id}/config.json` and `.../onnx/model.onnx`: the copy is tjs/qwen.
    const onnxRoot = join(temp, 'tjs');
    const copy = args.transformers ? await makeOnnxCopy(dir, join(onnxRoot, 'qwen'), args.prompt + args.decode + 8) : ({ ok: false, reason: '--no-transformers' } as const);
    const started = performance.now();
    const tjs = transformersFiles(onnxRoot);
    await withChromium(ENTRY, TITLE, { mounts: { '/model/': dir, ...tjs.mounts }, importMap: tjs.importMap }, async (page, origin) => {
      const options = { batch: args.batch, prompt: args.prompt, decode: args.decode, quant: args.quant, sampling: SAMPLING };
      const r = await page.evaluate(([url, o]) => window.engineBench!.run(url, o), [`${origin}/model`, options] as const);
      if ('error' in r) throw new Error(`WebGPU engine (${args.quant}): ${r.error.name}: ${r.error.message}`);
      printEngine(r, args);
      if (!copy.ok) {
        console.log(`transformers.js decode: not measured (${copy.reason})`);
        return;
      }
      const vo = { prompt: args.prompt, decode: args.decode, quant: args.quant, rounds: args.rounds, transformers: { libUrl: `${origin}/transformers/transformers.web.js`, modelBase: `${origin}/tjs`, modelId: 'qwen', ortBase: `${origin}/ort` } };
      const v = await page.evaluate(([url, o]) => window.engineBench!.versus(url, o), [`${origin}/model`, vo] as const);
      if ('error' in v) throw new Error(`head-to-head: ${v.error.name}: ${v.error.message}`);
      printVersus(v, args, copy.bytes);
    });
    console.log(`browser run: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  for (const line of memoryLines(args.batch, args.context)) console.log(line);
}

runCli(main, USAGE);
