/**
 * The weight formats' error table (bench/engine/formats.ts), on its own:
 *
 *   tsx --import ./bin/register-raw.mjs bench/formats.bench.ts [--layers L] [--hidden C] [--vocab V] [--tokens N] [--prompt T] [--seed S]
 *     [--formats f16,q8,q4,q4m] [--no-e2e] [--json]
 *
 * Prints the per-tensor table (CPU, ~10 s), then the end-to-end table on the Node engine (Dawn: the machine's GPU, or
 * SwiftShader) for a synthetic Qwen3-0.6B-shaped model with L layers (default 28, the real depth), optionally narrowed
 * to hidden C (--hidden) and vocabulary V (--vocab), and N tokens (default 200). With --json the last line is the result object.
 */
import { parseCliArgs, runCli, UsageError } from '../e2e/model/serve.ts';
import { acquireGpu } from '../src/gpu/device.ts';
import { nodeGpu } from '../src/gpu/node/node-gpu.ts';
import { WEIGHT_FORMATS, type WeightFormat } from '../src/gpu/quant.ts';
import { formatsLines, measureFormats, MEASURED_FORMATS } from './engine/formats.ts';

const USAGE = 'usage: tsx --import ./bin/register-raw.mjs bench/formats.bench.ts [--layers L] [--hidden C] [--vocab V] [--tokens N] [--prompt T] [--seed S] [--formats f16,q8,q4,q4m] [--no-e2e] [--json]';

async function main(): Promise<void> {
  const a = parseCliArgs(process.argv.slice(2), USAGE, { switches: ['no-e2e', 'json'] });
  const layers = a.int('layers', 28);
  const hidden = a.int('hidden');
  const vocab = a.int('vocab');
  if (hidden !== undefined && hidden % 128 !== 0) throw new UsageError(`--hidden must be a multiple of 128 (heads of 64, groups of 32), not ${hidden}`);
  const tokens = a.int('tokens', 200);
  const prompt = a.int('prompt', 16);
  const seed = a.int('seed', 1);
  const formats = (a.string('formats') ?? MEASURED_FORMATS.join(',')).split(',') as WeightFormat[];
  for (const f of formats) if (!WEIGHT_FORMATS.includes(f)) throw new UsageError(`--formats: '${f}' is not one of ${WEIGHT_FORMATS.join(', ')}`);
  const e2e = !a.flag('no-e2e');
  const json = a.flag('json');
  a.done();
  const progress = (line: string) => console.error(`  [${new Date().toISOString().slice(11, 19)}] ${line}`);
  let ctx = null;
  if (e2e) {
    const { gpu, adapter, driver } = await nodeGpu();
    progress(`adapter ${adapter} via ${driver}`);
    ctx = await acquireGpu({ gpu, label: 'bench-formats' });
  }
  try {
    const result = await measureFormats(ctx, { seed, endToEnd: e2e ? { layers, hidden, vocab, tokens, prompt, formats, progress } : null });
    console.log(formatsLines(result).join('\n'));
    if (json) console.log(JSON.stringify(result));
  } finally {
    ctx?.destroy();
  }
  process.exit(0);
}

runCli(main, USAGE);
