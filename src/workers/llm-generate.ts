/**
 * A Qwen model inside the environment worker: its files (from a folder served with the app, or the Hugging Face Hub
 * through the browser cache), its tokenizer, a WebGPU device and a `QwenEngine`, and the `generate` function the
 * `LlmPolicy` is given. One sequence (slot 0): each turn resets the slot, prefills the prompt and samples on the GPU
 * (seeded, temperature 0 = greedy) until `<|im_end|>` / `<|endoftext|>`, the token limit, or the context's end.
 *
 * Only the tokenizer of `@huggingface/transformers` is used (model.ts → tokenizer.ts); no ONNX session is ever
 * created, so its runtime and WASM are never fetched.
 */
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import { QwenEngine } from '../gpu/engine/qwen-engine.ts';
import type { WeightFormat } from '../gpu/quant.ts';
import { CacheStorageFileStore, MemoryFileStore, type FileStore } from '../model/cache.ts';
import type { ModelConfig } from '../model/config.ts';
import { DEFAULT_HUB_BASE, downloadModel } from '../model/hub.ts';
import { loadCheckpoint, shardFiles, type CheckpointFiles } from '../model/load.ts';
import { SHARD_INDEX, SINGLE_WEIGHTS, validateRepoId } from '../model/registry.ts';
import { createTokenizer, type Tokenizer } from '../model/tokenizer.ts';
import type { Generate, Generation } from '../policies/llm/llm-policy.ts';

/** Where a model comes from: a folder served over HTTP (absolute or relative to the app), or a Hub repository. */
export type LlmSource = { kind: 'url'; url: string } | { kind: 'hub'; repo: string; revision?: string; base?: string };

export interface LlmLoadOptions {
  /** Storage of the base matrices on the GPU; default 'q4' for real models, 'f16' when the model is tiny. */
  weights?: WeightFormat;
  /** Positions of the KV cache (prompt + reply); default min(2048, the model's max positions). */
  contextTokens?: number;
}

export interface LlmLoadProgress {
  phase: 'download' | 'tokenizer' | 'weights' | 'gpu' | 'ready';
  /** The file moving (download phase). */
  file?: string;
  loaded: number;
  total: number;
}

export interface LoadedLlm {
  label: string;
  config: ModelConfig;
  tokenizer: Tokenizer;
  generate: Generate;
  contextTokens: number;
  /** The adapter, as `vendor/architecture [+f16]`. */
  adapter: string;
  weights: WeightFormat;
  destroy(): void;
}

interface ModelFiles {
  checkpoint: CheckpointFiles;
  tokenizerJson: unknown;
  tokenizerConfigJson: unknown;
}

/** Reads a folder served over HTTP: config, tokenizer, then the weights (one file or the shards of an index). */
async function fetchFolder(url: string, onProgress: (p: LlmLoadProgress) => void): Promise<ModelFiles> {
  const base = url.endsWith('/') ? url : `${url}/`;
  let loaded = 0;
  let total = 0;
  const get = async (file: string, optional = false): Promise<Uint8Array | null> => {
    const at = new URL(file, base).href;
    let res: Response;
    try {
      res = await fetch(at);
    } catch (e) {
      throw new Error(`Could not fetch ${at}: ${(e as Error).message}`, { cause: e });
    }
    if (res.status === 404 && optional) return null;
    if (!res.ok) throw new Error(`${file} could not be read from ${base} (HTTP ${res.status}): is this a model folder served with the app?`);
    const size = Number(res.headers.get('content-length') ?? 0);
    total += size;
    const chunks: Uint8Array[] = [];
    let got = 0;
    const reader = res.body?.getReader();
    if (!reader) {
      const bytes = new Uint8Array(await res.arrayBuffer());
      loaded += bytes.length;
      onProgress({ phase: 'download', file, loaded, total: Math.max(total, loaded) });
      return bytes;
    }
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      loaded += value.length;
      onProgress({ phase: 'download', file, loaded, total: Math.max(total, loaded) });
    }
    const bytes = new Uint8Array(got);
    let at2 = 0;
    for (const c of chunks) {
      bytes.set(c, at2);
      at2 += c.length;
    }
    return bytes;
  };
  const json = async (file: string, optional = false): Promise<unknown> => {
    const bytes = await get(file, optional);
    if (bytes === null) return undefined;
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (e) {
      throw new Error(`${file} in ${base} is not valid JSON (${(e as Error).message})`, { cause: e });
    }
  };
  const configJson = await json('config.json');
  const generationConfigJson = await json('generation_config.json', true);
  const tokenizerJson = await json('tokenizer.json');
  const tokenizerConfigJson = await json('tokenizer_config.json');
  const index = await json(SHARD_INDEX, true);
  const shards = index === undefined ? [SINGLE_WEIGHTS] : shardFiles(index);
  const safetensors: Uint8Array[] = [];
  for (const shard of shards) safetensors.push((await get(shard))!);
  return { checkpoint: { configJson, generationConfigJson, safetensors }, tokenizerJson, tokenizerConfigJson };
}

/** A store for Hub downloads: Cache Storage where the page has it (resumable, kept), else memory. */
function hubStore(): FileStore {
  return typeof caches === 'undefined' ? new MemoryFileStore() : new CacheStorageFileStore();
}

/** Downloads or reads the model's files, builds the tokenizer and the engine; `baseUrl` resolves relative folders. */
export async function loadLlm(source: LlmSource, baseUrl: string, onProgress: (p: LlmLoadProgress) => void = () => undefined, options: LlmLoadOptions = {}): Promise<LoadedLlm> {
  let files: ModelFiles;
  let label: string;
  if (source.kind === 'url') {
    const url = new URL(source.url, baseUrl).href;
    label = source.url.replace(/\/+$/, '').split('/').pop() || source.url;
    files = await fetchFolder(url, onProgress);
  } else {
    const repo = validateRepoId(source.repo.trim());
    label = repo;
    const m = await downloadModel({
      repo,
      revision: source.revision,
      base: source.base ?? DEFAULT_HUB_BASE,
      store: hubStore(),
      onProgress: (p) => onProgress({ phase: 'download', file: p.file, loaded: p.loaded, total: p.total }),
    });
    files = m;
  }

  onProgress({ phase: 'tokenizer', loaded: 0, total: 1 });
  const tokenizer = await createTokenizer(files.tokenizerJson, files.tokenizerConfigJson);
  onProgress({ phase: 'weights', loaded: 0, total: 1 });
  const model = loadCheckpoint(files.checkpoint);
  const config = model.config;

  onProgress({ phase: 'gpu', loaded: 0, total: 1 });
  const tiny = config.hiddenSize <= 256;
  const weights = options.weights ?? (tiny ? 'f16' : 'q4');
  const contextTokens = Math.max(64, Math.min(options.contextTokens ?? 2048, config.maxPositionEmbeddings));
  const ctx: GpuContext = await acquireGpu({ label: 'sqlenv-llm' });
  let engine: QwenEngine;
  try {
    engine = await QwenEngine.create(ctx, config, { batch: 1, context: contextTokens, weights });
    engine.loadWeights(model.tensors);
  } catch (e) {
    ctx.destroy();
    throw e;
  }
  model.tensors.clear();
  onProgress({ phase: 'ready', loaded: 1, total: 1 });

  const endTokens = new Set([tokenizer.special.imEnd, tokenizer.special.endOfText]);
  let busy: Promise<unknown> = Promise.resolve();

  const generateOnce = async (promptIds: number[], o: Parameters<Generate>[1]): Promise<Generation> => {
    ctx.assertReady();
    const room = contextTokens - promptIds.length;
    if (room < 1) throw new RangeError(`The prompt (${promptIds.length} tokens) fills the model's context of ${contextTokens} tokens.`);
    const limit = Math.min(o.maxNewTokens, room);
    engine.reset(0);
    const sampling = { temperature: o.temperature, topP: o.temperature > 0 ? o.topP : 1 };
    const seed = o.seed >>> 0;
    const tokenIds: number[] = [];
    const logProbs: number[] = [];
    let input: number[] = promptIds;
    while (tokenIds.length < limit) {
      const s = await engine.sample([{ slot: 0, ids: input, key: { seed, sequence: 0, step: tokenIds.length } }], sampling);
      const token = s.tokens[0];
      tokenIds.push(token);
      logProbs.push(s.logprobs[0]);
      if (endTokens.has(token)) break;
      input = [token];
    }
    const last = tokenIds.at(-1);
    const shown = last !== undefined && endTokens.has(last) ? tokenIds.slice(0, -1) : tokenIds;
    return { tokenIds, text: tokenizer.decode(shown), logProbs };
  };

  const generate: Generate = (promptIds, o) => {
    // One sequence slot: turns never overlap (Watch and Evaluate may both ask).
    const run = busy.then(() => generateOnce(promptIds, o));
    busy = run.catch(() => undefined);
    return run;
  };

  return {
    label,
    config,
    tokenizer,
    generate,
    contextTokens,
    adapter: `${ctx.adapterInfo.vendor || 'unknown'}/${ctx.adapterInfo.architecture || 'unknown'}${ctx.features.shaderF16 ? ' +f16' : ''}`,
    weights,
    destroy: () => {
      engine.destroy();
      ctx.destroy();
    },
  };
}
