/**
 * Where a model's files come from, for the environment worker: a folder served over HTTP (absolute or relative to
 * the app), a Hugging Face Hub repository through the browser cache (Cache Storage, resumable; memory where there is
 * none), or the files of a local folder the user picked. `sourceReader` gives a label and a `read` that can be called
 * again: the first load reads the files, and a GPU device-loss recovery reads them once more (from the cache, the
 * served folder or the picked `File`s) instead of keeping the weights on the CPU side in between.
 *
 * No GPU code here, so Node tests drive it directly.
 */
import { CacheStorageFileStore, MemoryFileStore, type FileStore } from '../model/cache.ts';
import { checkFileSize, fileCap } from '../model/file-caps.ts';
import { DEFAULT_HUB_BASE, downloadModel } from '../model/hub.ts';
import { shardFiles, type CheckpointFiles } from '../model/load.ts';
import { readLocalModel, type LocalFile } from '../model/local-folder.ts';
import { parseModelConfig } from '../model/config.ts';
import { checkModelFits } from '../model/model-budget.ts';
import { checkModelFilePath } from '../model/model-path.ts';
import { SHARD_INDEX, SINGLE_WEIGHTS, validateRepoId } from '../model/registry.ts';
import { CancelledError } from '../util/cancelled.ts';

/**
 * Where a model comes from: a folder served over HTTP (absolute or relative to the app), a Hub repository, or the
 * files of a local folder the user picked (`path` is each file's path inside the pick).
 */
export type LlmSource =
  | { kind: 'url'; url: string }
  | { kind: 'hub'; repo: string; revision?: string; base?: string }
  | { kind: 'files'; files: LocalFile[] };

/** How far a model load got, as the page shows it. */
export interface LlmLoadProgress {
  /**
   * download: bytes moving (or read from a local folder); tokenizer, weights, gpu: the load's later phases; ready:
   * done. After the load: recovering / recovered around a device-loss recovery (`message` says what happened).
   */
  phase: 'download' | 'tokenizer' | 'weights' | 'gpu' | 'ready' | 'recovering' | 'recovered';
  /** The file moving (download phase). */
  file?: string;
  loaded: number;
  total: number;
  message?: string;
}

/** A model load stopped by its signal: the one CancelledError, saying that a Hub download resumes next time. */
export function loadCancelled(what: string): CancelledError {
  return new CancelledError(`Loading ${what} was cancelled. A Hub download keeps the bytes it received, so loading again resumes it.`);
}

type Progress = (p: LlmLoadProgress) => void;

export interface ModelFiles {
  checkpoint: CheckpointFiles;
  tokenizerJson: unknown;
  tokenizerConfigJson: unknown;
}

/** Reads a folder served over HTTP: config, tokenizer, then the weights (one file or the shards of an index). */
async function fetchFolder(url: string, onProgress: Progress, signal?: AbortSignal): Promise<ModelFiles> {
  const base = url.endsWith('/') ? url : `${url}/`;
  let loaded = 0;
  let total = 0;
  const get = async (file: string, optional = false): Promise<Uint8Array | null> => {
    // Shard names come from the folder's own index: a file must stay under the folder's URL (model-path.ts).
    const at = new URL(checkModelFilePath(file, { file: `${base}${SHARD_INDEX}`, field: 'weight_map' }), base).href;
    let res: Response;
    try {
      res = await fetch(at, { signal });
    } catch (e) {
      if (signal?.aborted) throw loadCancelled(base);
      throw new Error(`Could not fetch ${at}: ${(e as Error).message}`, { cause: e });
    }
    if (res.status === 404 && optional) return null;
    if (!res.ok) throw new Error(`${file} could not be read from ${base} (HTTP ${res.status}): is this a model folder served with the app?`);
    total += Number(res.headers.get('content-length') ?? 0);
    // Small files have size caps (file-caps.ts): the declared length first, then the bytes as they arrive.
    const cap = fileCap(file);
    checkFileSize(`${base}${file}`, Number(res.headers.get('content-length') ?? 0), cap);
    try {
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
        signal?.throwIfAborted();
        chunks.push(value);
        got += value.length;
        checkFileSize(`${base}${file}`, got, cap);
        loaded += value.length;
        onProgress({ phase: 'download', file, loaded, total: Math.max(total, loaded) });
      }
      const bytes = new Uint8Array(got);
      let offset = 0;
      for (const c of chunks) {
        bytes.set(c, offset);
        offset += c.length;
      }
      return bytes;
    } catch (e) {
      if (signal?.aborted) throw loadCancelled(base);
      throw e;
    }
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
  checkModelFits(parseModelConfig(configJson, generationConfigJson), { file: `${base}config.json` }); // before any weight byte
  const tokenizerJson = await json('tokenizer.json');
  const tokenizerConfigJson = await json('tokenizer_config.json');
  const index = await json(SHARD_INDEX, true);
  const shards = index === undefined ? [SINGLE_WEIGHTS] : shardFiles(index, `${base}${SHARD_INDEX}`);
  const safetensors: Uint8Array[] = [];
  for (const shard of shards) safetensors.push((await get(shard))!);
  return { checkpoint: { configJson, generationConfigJson, safetensors, safetensorsNames: shards.map((s) => `${base}${s}`) }, tokenizerJson, tokenizerConfigJson };
}

/** A store for Hub downloads: Cache Storage where the page has it (resumable, kept), else memory. */
function hubStore(): FileStore {
  return typeof caches === 'undefined' ? new MemoryFileStore() : new CacheStorageFileStore();
}

/** A source's label and a reader of its files, callable again (a device-loss recovery reads them once more). */
export function sourceReader(source: LlmSource, baseUrl: string): { label: string; read: (onProgress: Progress, signal?: AbortSignal) => Promise<ModelFiles> } {
  switch (source.kind) {
    case 'url': {
      const url = new URL(source.url, baseUrl).href;
      return { label: source.url.replace(/\/+$/, '').split('/').pop() || source.url, read: (onProgress, signal) => fetchFolder(url, onProgress, signal) };
    }
    case 'hub': {
      const repo = validateRepoId(source.repo.trim());
      const store = hubStore(); // one store for every read: a memory store keeps the bytes for a recovery
      return {
        label: repo,
        read: async (onProgress, signal) => {
          try {
            return await downloadModel({
              repo,
              revision: source.revision,
              base: source.base ?? DEFAULT_HUB_BASE,
              store,
              signal,
              onProgress: (p) => onProgress({ phase: 'download', file: p.file, loaded: p.loaded, total: p.total }),
            });
          } catch (e) {
            if (signal?.aborted) throw loadCancelled(repo);
            throw e;
          }
        },
      };
    }
    case 'files': {
      const files = source.files;
      const top = files[0]?.path.replace(/\\/g, '/').split('/')[0] ?? 'folder';
      return {
        label: top,
        read: async (onProgress, signal) => {
          try {
            const m = await readLocalModel(files, (file, loaded, total) => onProgress({ phase: 'download', file, loaded, total }), signal);
            return m;
          } catch (e) {
            if (signal?.aborted) throw loadCancelled(top);
            throw e;
          }
        },
      };
    }
    default:
      return source satisfies never;
  }
}

