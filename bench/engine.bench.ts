/**
 * `npm run bench:engine`: the WebGPU engine's speed and its hardware-independent counts, and its decode speed next
 * to transformers.js on the same weights.
 *
 *   tsx bench/engine.bench.ts [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4|q4m] [--context S]
 *     [--rounds R] [--no-transformers] [--turns N] [--no-reuse] [--episodes E] [--json]
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
 *  - dispatches per decoded token (B = 1) at the real Qwen3-0.6B and Qwen2.5-0.5B-Instruct shapes, fused (the
 *    engine's default forward) and unfused, per layer and in all, with the submits of that step (measure.ts
 *    `countShapeDispatches`: engines of 1 and 2 layers at the real widths, zero weights, one decode step each);
 *  - in the same browser run, batch 1, greedy, the same T-token prompt and N decode steps: the engine's decode
 *    tokens/s and transformers.js's (WASM backend, fp32) on an ONNX copy of the same weights written by
 *    src/model/onnx/qwen.ts into a temp dir, timed in R alternating rounds (default 3; medians), and their ratio;
 *    whether the greedy tokens agree (they should with f16 weights). Skipped, with the
 *    reason, when the copy cannot be made (a model over protobuf's 2 GiB in f32) or with --no-transformers;
 *  - KV reuse across turns (bench/engine/episodes.ts, in Node on Dawn, tiny Qwen3 playing demo episodes through the
 *    page's own LlmPolicy + BatchedGenerator): prefill tokens by turn of one --turns-step episode (default 3; --no-reuse skips)
 *    with the slot's cache kept, and with a full re-prefill per turn (before); with --episodes E (default 0: skipped,
 *    it takes minutes on SwiftShader) also Evaluate's wall time for 1 episode, E at B = E and E at B = 1;
 *  - the weight formats' error per matrix kind (bench/engine/formats.ts, CPU, ~10 s; the end-to-end table over a
 *    28-layer model is `npm run bench:formats`);
 *  - the GPU memory planned for Qwen3-0.6B and Qwen2.5-0.5B-Instruct per weight format, KV cache for --context
 *    (default 2048) and --batch, and the total (memory-plan.ts, from the configs, no weights).
 * With --json the run ends with ONE line of JSON holding its figures (`BenchJson`).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import type { SamplingParams } from '../src/gpu/kernels/sample.ts';
import { DEFAULT_DECODE_WEIGHTS, WEIGHT_FORMATS, type WeightFormat } from '../src/gpu/quant.ts';
import { medianFigures, speedRatios, type SpeedFigures } from '../src/workers/engine-speed.ts';
import { runEpisodesBench, type EpisodesBenchResult } from './engine/episodes.ts';
import { formatsLines, measureFormats, type TensorErrorRow } from './engine/formats.ts';
import { createRng } from '../src/data/rng.ts';
import { writeTinyModel } from '../src/model/files-node.ts';
import { exportOnnxFolder } from '../src/model/onnx/folder-node.ts';
import { OnnxExportError } from '../src/model/onnx/qwen.ts';
import { tinyModelConfig } from '../src/model/tiny-model.ts';
import { formatBytes } from '../src/gpu/memory-plan.ts';
import { memoryLines } from './engine/memory.ts';
import type { EngineBenchResult } from './engine/measure.ts';
import type { CountShape, ShapeCounts, VersusResult } from './engine/page.ts';
import { benchFigures, type GenerationTiming } from './engine/transformers-decode.ts';

const USAGE =
  'usage: npm run bench:engine -- [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4|q4m] [--context S] [--rounds R] [--no-transformers] [--turns N] [--no-reuse] [--episodes E] [--json]';
const QUANTS = WEIGHT_FORMATS;
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
  turns: number;
  episodes: number;
  reuse: boolean;
  json: boolean;
}

/** The one JSON line `--json` ends the run with. */
interface BenchJson {
  bench: 'engine';
  quant: WeightFormat;
  /** Per decoded token at B = 1, by model shape: the engine's forward (fused) and the unfused one. */
  dispatchesPerToken: Record<CountShape, number>;
  dispatchesPerLayer: Record<CountShape, number>;
  unfusedDispatchesPerToken: Record<CountShape, number>;
  unfusedDispatchesPerLayer: Record<CountShape, number>;
  /** Queue submits per decode step (the tiny model's measured steps). */
  submitsPerDecodeStep: number;
  /** Prompt tokens the engine computed at turns 1..N of a demo episode with KV reuse (null with --no-reuse). */
  prefillTokensByTurn: number[] | null;
  /** The same turns with a full re-prefill each (the engine before KV reuse). */
  prefillTokensByTurnFullReprefill: number[] | null;
  /** Evaluate's wall times and their ratio (with --episodes E). */
  evaluate: Pick<EpisodesBenchResult, 'evaluate' | 'batchedOverOne'> | null;
  tiny: { batch: number; dispatchesPerDecodeStep: number; prefillTokensPerSecond: number; decodeTokensPerSecond: number };
  /** The Engines panel's figures for both backends (medians) and engine ÷ transformers.js. */
  versus: { engine: SpeedFigures; transformers: SpeedFigures; ratios: ReturnType<typeof speedRatios> } | null;
  /** Relative error of W·x per matrix kind and format. */
  formats: TensorErrorRow[];
}

function parseArgs(argv: readonly string[]): Args {
  const a = parseCliArgs(argv, USAGE, { switches: ['no-transformers', 'no-reuse', 'json'] });
  const model = a.string('model') ?? null;
  const quant = a.string('quant') ?? DEFAULT_DECODE_WEIGHTS;
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
    turns: a.int('turns', 3),
    episodes: a.int('episodes') ?? 0,
    reuse: !a.flag('no-reuse'),
    json: a.flag('json'),
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

function printCounts(c: ShapeCounts, args: Args): void {
  console.log(`dispatches per decoded token at the real shapes (B=1, ${args.quant}; engines of 1 and 2 layers at full width, zero weights):`);
  for (const [shape, { fused, unfused }] of Object.entries(c)) {
    console.log(
      `  ${shape.padEnd(13)} fused ${fused.perToken} (${fused.perLayer} per layer + ${fused.other}), unfused ${unfused.perToken} (${unfused.perLayer} per layer + ${unfused.other}); ` +
        `queue submits per step ${fused.submits} fused, ${unfused.submits} unfused`,
    );
  }
}

/** The head-to-head as the Engines panel shows it (src/workers/engine-speed.ts: the same figures, medians, ratios). */
function versusFigures(v: VersusResult, args: Args) {
  const engine = medianFigures(v.engine.map((t) => benchFigures(args.prompt, t)));
  const transformers = medianFigures(v.transformers.map((t) => benchFigures(args.prompt, t)));
  return { engine, transformers, ratios: speedRatios(engine, transformers) };
}

function printVersus(v: VersusResult, args: Args, onnxBytes: number): void {
  const N = args.decode;
  const { engine, transformers, ratios } = versusFigures(v, args);
  const perToken = (ts: readonly GenerationTiming[]) => ts.map((t) => (t.decodeMs / N).toFixed(1)).join(', ');
  const e = v.engine[0].tokens;
  const agree = e.filter((id, i) => id === v.transformers[0].tokens[i]).length;
  const info = v.transformersInfo;
  const row = (f: SpeedFigures) =>
    `time to first token ${f.ttftMs.toFixed(0)} ms, prefill ${f.prefillTokensPerSecond.toFixed(1)} tokens/s, decode ${f.decodeTokensPerSecond === null ? '—' : `${f.decodeTokensPerSecond.toFixed(1)} tokens/s`}`;
  console.log(`head-to-head (the Engines panel's figures), B=1, greedy, prompt=${args.prompt}, ${N} decode steps, same weights, ${args.rounds} alternating rounds (medians):`);
  console.log(`  ${`engine (WebGPU, ${args.quant}):`.padEnd(34)} ${row(engine)} (ms per token by round: ${perToken(v.engine)})`);
  console.log(
    `  ${'transformers.js (WASM, fp32 ONNX):'.padEnd(34)} ${row(transformers)} (ms per token by round: ${perToken(v.transformers)}; ` +
      `onnxruntime-web ${info.ortVersion}, ${info.threads} thread${info.threads === 1 ? '' : 's'}${info.crossOriginIsolated ? '' : ' (page not cross-origin isolated)'}; ` +
      `model ${(onnxBytes / 1e6).toFixed(1)} MB, loaded in ${(info.loadMs / 1000).toFixed(2)} s)`,
  );
  const note = args.quant === 'f16' ? '' : ` (${args.quant} weights: not expected to equal the fp32 model's)`;
  const x = (r: number | null) => (r === null ? '—' : `${r.toFixed(2)}×`);
  console.log(`  engine / transformers.js: decode ${x(ratios.decode)}, prefill ${x(ratios.prefill)}, time to first token ${x(ratios.ttft)}; greedy tokens equal: ${agree}/${e.length}${note}`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const temp = await mkdtemp(join(tmpdir(), 'bench-engine-'));
  // Filled inside the browser run (a holder, so the callback's writes are seen after it).
  const out: { json: BenchJson | null } = { json: null };
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
      const counts = await page.evaluate((q) => window.engineBench!.counts(q), args.quant);
      if ('error' in counts) throw new Error(`dispatch counts: ${counts.error.name}: ${counts.error.message}`);
      printCounts(counts, args);
      const byShape = (f: (c: ShapeCounts[CountShape]) => number) => Object.fromEntries(Object.entries(counts).map(([k, c]) => [k, f(c)])) as Record<CountShape, number>;
      const steps = r.decode.dispatchesPerStep;
      out.json = {
        bench: 'engine',
        quant: args.quant,
        dispatchesPerToken: byShape((c) => c.fused.perToken),
        dispatchesPerLayer: byShape((c) => c.fused.perLayer),
        unfusedDispatchesPerToken: byShape((c) => c.unfused.perToken),
        unfusedDispatchesPerLayer: byShape((c) => c.unfused.perLayer),
        submitsPerDecodeStep: Math.max(...r.decode.submitsPerStep),
        prefillTokensByTurn: null,
        prefillTokensByTurnFullReprefill: null,
        evaluate: null,
        formats: [],
        tiny: {
          batch: args.batch,
          dispatchesPerDecodeStep: steps.reduce((a, b) => a + b, 0) / steps.length,
          prefillTokensPerSecond: (r.prefill.tokens * 1000) / r.prefill.ms,
          decodeTokensPerSecond: (r.decode.tokens * 1000) / r.decode.ms,
        },
        versus: null,
      };
      if (!copy.ok) {
        console.log(`transformers.js decode: not measured (${copy.reason})`);
        return;
      }
      const vo = { prompt: args.prompt, decode: args.decode, quant: args.quant, rounds: args.rounds, transformers: { libUrl: `${origin}/transformers/transformers.web.js`, modelBase: `${origin}/tjs`, modelId: 'qwen', ortBase: `${origin}/ort` } };
      const v = await page.evaluate(([url, o]) => window.engineBench!.versus(url, o), [`${origin}/model`, vo] as const);
      if ('error' in v) throw new Error(`head-to-head: ${v.error.name}: ${v.error.message}`);
      printVersus(v, args, copy.bytes);
      out.json = out.json && { ...out.json, versus: versusFigures(v, args) };
    });
    console.log(`browser run: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  const json = out.json;
  if (args.reuse && json) {
    const episodes = await runEpisodesBench({ turns: args.turns, newTokens: 8, episodes: args.episodes });
    json.prefillTokensByTurn = episodes.prefillTokensByTurn;
    json.prefillTokensByTurnFullReprefill = episodes.prefillTokensByTurnFullReprefill;
    json.evaluate = episodes.evaluate ? { evaluate: episodes.evaluate, batchedOverOne: episodes.batchedOverOne } : null;
  }
  const formats = await measureFormats(null, { endToEnd: null });
  for (const line of formatsLines(formats)) console.log(line);
  if (json) json.formats = formats.tensors;
  for (const line of memoryLines(args.batch, args.context)) console.log(line);
  if (args.json && json) console.log(JSON.stringify(json));
}

runCli(main, USAGE);
