/**
 * `npm run model:logits`: the last position's top-20 token ids and logits of a model folder (Hugging Face layout) on
 * a prompt, printed as one JSON object, from the WebGPU engine in headless Chromium (default) or from the float64 CPU
 * reference (`--cpu`). The two are the check on each other: on the tiny model their top-20 ids agree and their
 * logits differ by less than 1e-3 (e2e/model/logits.spec.ts).
 *
 *   tsx scripts/model-logits.ts --model DIR (--text "..." | --ids 1,2,3) [--cpu] [--quant f16|q8|q4] [--top K]
 *
 * The GPU path serves a page (e2e/model/page.ts, bundled with Vite's build API) and the model folder from a local
 * HTTP server on 127.0.0.1 (a secure context, so WebGPU is there) and drives Debian's Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium) with `--enable-unsafe-webgpu`; on a machine without a GPU that is SwiftShader, slow but exact.
 * `--quant` picks the engine's weight storage (f16, the default here, is the reference; q8 and q4 are group-wise).
 *
 * Output: {"model", "backend": "cpu-f64"|"webgpu", "quant", "adapter"?, "tokens": T, "ids": [...], "logits": [...]}.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { chromium } from '@playwright/test';
import { PAGE_ENTRY, PAGE_HTML, pageBundle } from '../e2e/model/bundle.ts';
import { topLogits, type TopLogits } from '../e2e/model/top-logits.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { loadModelFolder, loadTokenizerFolder } from '../src/model/files-node.ts';
import { createReferenceSession } from '../src/model/reference/model.ts';

const USAGE = 'usage: npm run model:logits -- --model DIR (--text "..." | --ids 1,2,3) [--cpu] [--quant f16|q8|q4] [--top K]';
const QUANTS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];

class UsageError extends Error {}

interface Args {
  model: string;
  text: string | null;
  ids: number[] | null;
  cpu: boolean;
  quant: WeightFormat;
  top: number;
}

function parseArgs(argv: readonly string[]): Args {
  const values = new Map<string, string>();
  let cpu = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (flag === '--cpu') {
      cpu = true;
      continue;
    }
    if (!flag.startsWith('--')) throw new UsageError(`unexpected argument '${flag}'`);
    const value = argv[i + 1];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    values.set(flag.slice(2), value);
    i++;
  }
  const take = (name: string): string | undefined => {
    const v = values.get(name);
    values.delete(name);
    return v;
  };
  const model = take('model');
  if (model === undefined) throw new UsageError('--model DIR is required');
  const text = take('text') ?? null;
  const idsText = take('ids');
  if ((text === null) === (idsText === undefined)) throw new UsageError('give exactly one of --text and --ids');
  let ids: number[] | null = null;
  if (idsText !== undefined) {
    if (!/^\d+(,\d+)*$/.test(idsText.replace(/\s/g, ''))) throw new UsageError(`--ids must be comma-separated token ids, not '${idsText}'`);
    ids = idsText.replace(/\s/g, '').split(',').map(Number);
  }
  const quant = take('quant') ?? 'f16';
  if (!QUANTS.includes(quant as WeightFormat)) throw new UsageError(`--quant must be one of ${QUANTS.join('|')}, not '${quant}'`);
  if (cpu && quant !== 'f16') throw new UsageError('--quant applies to the WebGPU engine; --cpu is the float64 reference of the unquantised weights');
  const topText = take('top') ?? '20';
  if (!/^\d+$/.test(topText) || Number(topText) < 1) throw new UsageError(`--top must be a positive integer, not '${topText}'`);
  if (values.size > 0) throw new UsageError(`unknown option ${[...values.keys()].map((k) => `--${k}`).join(', ')}`);
  return { model, text, ids, cpu, quant: quant as WeightFormat, top: Number(topText) };
}

/** The float64 reference: prefill every token, keep the last position's row. */
async function cpuLogits(dir: string, ids: number[], k: number): Promise<TopLogits> {
  const model = await loadModelFolder(dir);
  const last = createReferenceSession(model.config, model.tensors).prefill(ids); // (V)
  return topLogits(last, k);
}

/** Serves the page at / and the model folder under /model/ on 127.0.0.1 (an ephemeral port). */
async function serve(dir: string): Promise<Server> {
  const code = await pageBundle(PAGE_ENTRY);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/' || path === '/index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE_HTML);
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

async function gpuLogits(dir: string, ids: number[], quant: WeightFormat, k: number): Promise<TopLogits & { adapter: string }> {
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
    await page.waitForFunction(() => document.title === 'model-page ready');
    const result = await page.evaluate(([url, i, q, kk]) => window.modelPage!.gpuLogits(url, i, q, kk), [`${origin}/model`, ids, quant, k] as const);
    if ('error' in result) throw new Error(`WebGPU engine (${quant}): ${result.error.name}: ${result.error.message}`);
    return result;
  } finally {
    await browser.close();
    server.close();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const ids = args.ids ?? (await loadTokenizerFolder(args.model)).encode(args.text!);
  if (ids.length === 0) throw new UsageError('the prompt has no tokens');
  const top = args.cpu ? await cpuLogits(args.model, ids, args.top) : await gpuLogits(args.model, ids, args.quant, args.top);
  const backend = args.cpu ? { backend: 'cpu-f64' } : { backend: 'webgpu', quant: args.quant, adapter: (top as { adapter?: string }).adapter };
  console.log(JSON.stringify({ model: args.model, ...backend, tokens: ids.length, ids: top.ids, logits: top.logits }));
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
