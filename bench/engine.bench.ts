/**
 * `npm run bench:engine`: the WebGPU engine's speed and its hardware-independent counts.
 *
 *   tsx bench/engine.bench.ts [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4] [--context S]
 *
 * Without --model a tiny Qwen3 (scripts/make-tiny-model.ts defaults, seed 0) is written to a temp dir. The page
 * (bench/engine/page.ts, bundled by e2e/model/bundle.ts) runs in Debian's headless Chromium with
 * `--enable-unsafe-webgpu` (SwiftShader where there is no GPU), served with the model from 127.0.0.1. Printed:
 *  - prefill tokens/s (B prompts of T tokens, first token sampled on the GPU) and batched decode tokens/s (N steps of
 *    B tokens, sampled on the GPU), after a warm-up run. Absolute rates depend on the machine (DESIGN.md: speed is
 *    reported as ratios; the ratio to transformers.js is not measured yet, see the last line);
 *  - GPU dispatches per decode step and per decoded token, from the engine's own count (`lastStepDispatches`), and
 *    queue submits per step, counted by wrapping `device.queue.submit` in the page;
 *  - the GPU memory planned for Qwen3-0.6B and Qwen2.5-0.5B-Instruct per weight format, KV cache for --context
 *    (default 2048) and --batch, and the total (memory-plan.ts, from the configs, no weights).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { chromium } from '@playwright/test';
import { pageBundle, PAGE_HTML } from '../e2e/model/bundle.ts';
import type { SamplingParams } from '../src/gpu/kernels/sample.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { createRng } from '../src/data/rng.ts';
import { writeTinyModel } from '../src/model/files-node.ts';
import { tinyModelConfig } from '../src/model/tiny-model.ts';
import { memoryLines } from './engine/memory.ts';
import type { EngineBenchResult } from './engine/page.ts';

const USAGE = 'usage: npm run bench:engine -- [--model DIR] [--batch B] [--prompt T] [--decode N] [--quant f16|q8|q4] [--context S]';
const QUANTS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];
const ENTRY = 'bench/engine/page.ts';
/** Qwen3's generation config (temperature 0.6, top-k 20, top-p 0.95): the cuts are exercised, as in real sampling. */
const SAMPLING: SamplingParams = { temperature: 0.6, topK: 20, topP: 0.95 };

class UsageError extends Error {}

interface Args {
  model: string | null;
  batch: number;
  prompt: number;
  decode: number;
  quant: WeightFormat;
  context: number;
}

function parseArgs(argv: readonly string[]): Args {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (!flag.startsWith('--')) throw new UsageError(`unexpected argument '${flag}'`);
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    values.set(flag.slice(2), value);
    i++;
  }
  const take = (name: string): string | undefined => {
    const v = values.get(name);
    values.delete(name);
    return v;
  };
  const int = (name: string, fallback: number): number => {
    const v = take(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} must be a positive integer, not '${v}'`);
    return Number(v);
  };
  const model = take('model') ?? null;
  const quant = take('quant') ?? 'q4';
  if (!QUANTS.includes(quant as WeightFormat)) throw new UsageError(`--quant must be one of ${QUANTS.join('|')}, not '${quant}'`);
  const args = { model, batch: int('batch', 4), prompt: int('prompt', 32), decode: int('decode', 16), quant: quant as WeightFormat, context: int('context', 2048) };
  if (values.size > 0) throw new UsageError(`unknown option ${[...values.keys()].map((k) => `--${k}`).join(', ')}`);
  return args;
}

/** Serves the page at / and the model folder under /model/ on 127.0.0.1 (an ephemeral port). */
async function serve(dir: string): Promise<Server> {
  const code = await pageBundle(ENTRY);
  const html = PAGE_HTML.replace('<title>model-page</title>', '<title>engine-bench</title>');
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/' || path === '/index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    if (path === '/page.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
    const file = path.startsWith('/model/') ? normalize(decodeURIComponent(path.slice('/model/'.length))) : null;
    if (file === null || file.startsWith('..') || file.includes('/')) return res.writeHead(404).end();
    readFile(join(dir, file)).then(
      (bytes) => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function runInChromium(dir: string, args: Args): Promise<EngineBenchResult> {
  const server = await serve(dir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--enable-unsafe-webgpu'],
  });
  try {
    const page = await browser.newPage();
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await page.goto(`${origin}/index.html`);
    await page.waitForFunction(() => document.title === 'engine-bench ready');
    const options = { batch: args.batch, prompt: args.prompt, decode: args.decode, quant: args.quant, sampling: SAMPLING };
    const result = await page.evaluate(([url, o]) => window.engineBench!.run(url, o), [`${origin}/model`, options] as const);
    if ('error' in result) throw new Error(`WebGPU engine (${args.quant}): ${result.error.name}: ${result.error.message}`);
    return result;
  } finally {
    await browser.close();
    server.close();
  }
}

const rate = (tokens: number, ms: number) => `${((tokens * 1000) / ms).toFixed(1)} tokens/s`;
const distinct = (xs: readonly number[]) => [...new Set(xs)].join('/');

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let dir = args.model;
  let temp: string | null = null;
  if (dir === null) {
    temp = await mkdtemp(join(tmpdir(), 'bench-engine-'));
    dir = temp;
    const config = tinyModelConfig();
    await writeTinyModel(dir, config, createRng(0), { dtype: 'F32' });
    console.log(`model: tiny ${config.architecture} L=${config.numLayers} C=${config.hiddenSize} V=${config.vocabSize} (scripts/make-tiny-model.ts defaults, seed 0) in ${dir}`);
  } else {
    console.log(`model: ${dir}`);
  }
  try {
    const started = performance.now();
    const r = await runInChromium(dir, args);
    const B = args.batch;
    const perStep = r.decode.dispatchesPerStep;
    console.log(`adapter: ${r.adapter}; weights ${args.quant}; B=${B} prompt=${args.prompt} decode=${args.decode} (S=${r.context}, T=${r.maxTokens}); sampling on the GPU (temperature ${SAMPLING.temperature}, top-k ${SAMPLING.topK}, top-p ${SAMPLING.topP})`);
    console.log(`warm-up (compile + one prefill + 2 decode steps, not timed below): ${(r.warmupMs / 1000).toFixed(2)} s`);
    console.log(`prefill: ${r.prefill.tokens} tokens in ${r.prefill.ms.toFixed(0)} ms = ${rate(r.prefill.tokens, r.prefill.ms)} (${r.prefill.dispatches} dispatches, ${r.prefill.submits} submits)`);
    console.log(`decode:  ${r.decode.tokens} tokens (${r.decode.steps} steps × B=${B}) in ${r.decode.ms.toFixed(0)} ms = ${rate(r.decode.tokens, r.decode.ms)} (${(r.decode.ms / r.decode.steps).toFixed(1)} ms per step)`);
    const mean = perStep.reduce((a, b) => a + b, 0) / perStep.length;
    console.log(
      `dispatches per decode step: ${distinct(perStep)} (engine's own count, QwenEngine.lastStepDispatches); per decoded token: ${(mean / B).toFixed(2)} at B=${B}; ` +
        `queue submits per step: ${distinct(r.decode.submitsPerStep)} (counted by wrapping device.queue.submit)`,
    );
    console.log(`browser run: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (temp) await rm(temp, { recursive: true, force: true });
  }
  for (const line of memoryLines(args.batch, args.context)) console.log(line);
  console.log('transformers.js (ONNX) decode ratio: not measured — this project has no ONNX export of the tiny weights yet, so there is no same-weights model for transformers.js to run side by side.');
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
