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
 * /usr/bin/chromium) with `--enable-unsafe-webgpu` (both from e2e/model/serve.ts); on a machine without a GPU that is
 * SwiftShader, slow but exact.
 * `--quant` picks the engine's weight storage (f16, the default here, is the reference; q8 and q4 are group-wise).
 *
 * Output: {"model", "backend": "cpu-f64"|"webgpu", "quant", "adapter"?, "tokens": T, "ids": [...], "logits": [...]}.
 */
import { PAGE_ENTRY } from '../e2e/model/bundle.ts';
import { parseCliArgs, runCli, UsageError, withChromium } from '../e2e/model/serve.ts';
import { finiteTopLogits, type TopLogits } from '../src/model/top-logits.ts';
import type { WeightFormat } from '../src/gpu/quant.ts';
import { loadModelFolder, loadTokenizerFolder } from '../src/model/files-node.ts';
import { createReferenceSession } from '../src/model/reference/model.ts';

const USAGE = 'usage: npm run model:logits -- --model DIR (--text "..." | --ids 1,2,3) [--cpu] [--quant f16|q8|q4] [--top K]';
const QUANTS: readonly WeightFormat[] = ['f16', 'q8', 'q4'];

interface Args {
  model: string;
  text: string | null;
  ids: number[] | null;
  cpu: boolean;
  quant: WeightFormat;
  top: number;
}

function parseArgs(argv: readonly string[]): Args {
  const a = parseCliArgs(argv, USAGE, { switches: ['cpu'], freeText: ['text'] });
  const cpu = a.flag('cpu');
  const model = a.string('model');
  if (model === undefined) throw new UsageError('--model DIR is required');
  const text = a.string('text') ?? null;
  const idsText = a.string('ids');
  if ((text === null) === (idsText === undefined)) throw new UsageError('give exactly one of --text and --ids');
  let ids: number[] | null = null;
  if (idsText !== undefined) {
    if (!/^\d+(,\d+)*$/.test(idsText.replace(/\s/g, ''))) throw new UsageError(`--ids must be comma-separated token ids, not '${idsText}'`);
    ids = idsText.replace(/\s/g, '').split(',').map(Number);
  }
  const quant = a.string('quant') ?? 'f16';
  if (!QUANTS.includes(quant as WeightFormat)) throw new UsageError(`--quant must be one of ${QUANTS.join('|')}, not '${quant}'`);
  if (cpu && quant !== 'f16') throw new UsageError('--quant applies to the WebGPU engine; --cpu is the float64 reference of the unquantised weights');
  const top = a.int('top', 20);
  a.done();
  return { model, text, ids, cpu, quant: quant as WeightFormat, top };
}

/**
 * The float64 reference: prefill every token, keep the last position's row. Loading refuses damaged weights (NaN or
 * ±Infinity, a config that disagrees with them) with a typed error, so the CLI exits 1 with its message.
 */
async function cpuLogits(dir: string, ids: number[], k: number): Promise<TopLogits> {
  const model = await loadModelFolder(dir);
  const last = createReferenceSession(model.config, model.tensors).prefill(ids); // (V)
  return finiteTopLogits(last, k, dir);
}

async function gpuLogits(dir: string, ids: number[], quant: WeightFormat, k: number): Promise<TopLogits & { adapter: string }> {
  return withChromium(PAGE_ENTRY, 'model-page', { mounts: { '/model/': dir } }, async (page, origin) => {
    const result = await page.evaluate(([url, i, q, kk]) => window.modelPage!.gpuLogits(url, i, q, kk), [`${origin}/model`, ids, quant, k] as const);
    if ('error' in result) throw new Error(`WebGPU engine (${quant}): ${result.error.name}: ${result.error.message}`);
    return result;
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const ids = args.ids ?? (await loadTokenizerFolder(args.model)).encode(args.text!);
  if (ids.length === 0) throw new UsageError('the prompt has no tokens');
  const top = args.cpu ? await cpuLogits(args.model, ids, args.top) : await gpuLogits(args.model, ids, args.quant, args.top);
  const backend = args.cpu ? { backend: 'cpu-f64' } : { backend: 'webgpu', quant: args.quant, adapter: (top as { adapter?: string }).adapter };
  console.log(JSON.stringify({ model: args.model, ...backend, tokens: ids.length, ids: top.ids, logits: top.logits }));
}

runCli(main, USAGE);
