/**
 * Reads an ONNX Qwen export in the onnx-community layout (tjs-layout.ts) for transformers.js, from the same three
 * sources as the WebGPU engine's checkpoints (llm-source.ts): a Hugging Face Hub repository through the browser's
 * model cache (hub.ts's resumable `downloadFile` into Cache Storage, so the Model cache panel lists and clears it),
 * a folder served over HTTP, or a local folder the user picked (local-folder.ts's `modelRoot`).
 *
 * Order: config.json first and checked (an unsupported architecture is refused before any weight byte moves), then
 * generation_config.json (optional) and the tokenizer files, then the chosen decoder and its external data. A picked
 * folder is listed, so its variants are known up front; a Hub repository or a served folder is probed in the
 * order of preference (a 404 is cheap), and its external data chunk by chunk until one is missing.
 *
 * The result is every file's bytes by its path in the folder; tjs-generate.ts serves them to transformers.js.
 */
import { CacheStorageFileStore, MemoryFileStore, type FileStore } from '../../model/cache.ts';
import { parseModelConfig, type ModelConfig } from '../../model/config.ts';
import { DEFAULT_HUB_BASE, downloadFile, fileKey } from '../../model/hub.ts';
import { modelRoot } from '../../model/local-folder.ts';
import { validateRepoId } from '../../model/registry.ts';
import type { LlmLoadProgress, LlmSource } from '../llm-generate.ts';
import { loadCancelled } from '../llm-source.ts';
import { chooseVariant, decoderFile, detectLayout, dtypePreference, externalDataNames, TJS_GENERATION_CONFIG, TJS_REQUIRED_FILES, TjsModelFileError, type TjsDevice, type TjsDtypeChoice, type TjsVariant } from './tjs-layout.ts';

export interface TjsModelFiles {
  label: string;
  config: ModelConfig;
  variant: TjsVariant;
  configJson: unknown;
  tokenizerJson: unknown;
  tokenizerConfigJson: unknown;
  /** Every file read, by its path inside the model folder (`config.json`, `onnx/model_q4.onnx`, …). */
  files: Map<string, Uint8Array>;
}

export interface TjsReadOptions {
  dtype: TjsDtypeChoice;
  device: TjsDevice;
  shaderF16: boolean;
  signal?: AbortSignal;
  /** Where Hub downloads are kept; default Cache Storage where the page has it, else memory. */
  store?: FileStore;
  fetch?: typeof fetch;
}

type Progress = (p: LlmLoadProgress) => void;
/** One file's bytes, or null when it is absent and `optional`; reports bytes as they come. */
type Reader = (file: string, optional: boolean, onBytes: (loaded: number, total: number) => void) => Promise<Uint8Array | null>;

/** A label and a reader per source, plus the folder's listing where it is known (a picked folder). */
function openSource(source: LlmSource, baseUrl: string, o: TjsReadOptions): { label: string; listing: Set<string> | null; read: Reader } {
  switch (source.kind) {
    case 'hub': {
      const repo = validateRepoId(source.repo.trim());
      const base = source.base ?? DEFAULT_HUB_BASE;
      const store = o.store ?? (typeof caches === 'undefined' ? new MemoryFileStore() : new CacheStorageFileStore());
      const doFetch = o.fetch ?? ((url: string, init?: RequestInit) => fetch(url, init));
      return {
        label: repo,
        listing: null,
        read: (file, optional, onBytes) =>
          downloadFile({ fetch: doFetch, store, key: fileKey(base, repo, source.revision ?? 'main', file), signal: o.signal, optional, onProgress: (l, t) => onBytes(l, t ?? l) }),
      };
    }
    case 'url': {
      const folder = new URL(source.url, baseUrl).href.replace(/\/*$/, '/');
      const doFetch = o.fetch ?? ((url: string, init?: RequestInit) => fetch(url, init));
      return {
        label: source.url.replace(/\/+$/, '').split('/').pop() || source.url,
        listing: null,
        read: async (file, optional, onBytes) => {
          const res = await doFetch(new URL(file, folder).href, { signal: o.signal });
          if (res.status === 404 && optional) return null;
          if (!res.ok) throw new TjsModelFileError(folder, file, `could not be read (HTTP ${res.status}): is this a model folder served with the app?`);
          const bytes = new Uint8Array(await res.arrayBuffer());
          onBytes(bytes.length, bytes.length);
          return bytes;
        },
      };
    }
    case 'files': {
      const { label, byName } = modelRoot(source.files);
      return {
        label,
        listing: new Set(byName.keys()),
        read: async (file, optional, onBytes) => {
          const f = byName.get(file);
          if (!f) {
            if (optional) return null;
            throw new TjsModelFileError(label, file, 'is missing from the picked folder.');
          }
          let bytes: Uint8Array;
          try {
            bytes = f.data instanceof Uint8Array ? f.data : new Uint8Array(await f.data.arrayBuffer());
          } catch (e) {
            throw new TjsModelFileError(label, file, `could not be read (${(e as Error).message}); was it moved after the folder was picked?`);
          }
          onBytes(bytes.length, bytes.length);
          return bytes;
        },
      };
    }
    default:
      return source satisfies never;
  }
}

function parseJson(folder: string, file: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (e) {
    throw new TjsModelFileError(folder, file, `is not valid JSON (${(e as Error).message}).`);
  }
}

/** Reads the files transformers.js needs for the chosen variant, with progress; see the header for the order. */
export async function readTjsModel(source: LlmSource, baseUrl: string, o: TjsReadOptions, onProgress: Progress = () => undefined): Promise<TjsModelFiles> {
  const { label, listing, read } = openSource(source, baseUrl, o);
  const files = new Map<string, Uint8Array>();
  let done = 0;
  const get = async (file: string, optional = false): Promise<Uint8Array | null> => {
    if (o.signal?.aborted) throw loadCancelled(label);
    let bytes: Uint8Array | null;
    try {
      bytes = await read(file, optional, (loaded, total) => onProgress({ phase: 'download', file, loaded: done + loaded, total: done + Math.max(total, loaded) }));
    } catch (e) {
      if (o.signal?.aborted) throw loadCancelled(label);
      throw e;
    }
    if (bytes === null) return null;
    done += bytes.length;
    files.set(file, bytes);
    return bytes;
  };
  const json = async (file: string) => parseJson(label, file, (await get(file))!);

  const variants = listing === null ? null : detectLayout(label, listing); // a picked folder: every file is known now
  const configJson = await json('config.json');
  const config = parseModelConfig(configJson); // refuses an unsupported architecture before any weight byte
  const generation = await get(TJS_GENERATION_CONFIG, true);
  if (generation !== null) parseJson(label, TJS_GENERATION_CONFIG, generation);
  const tokenizerJson = await json(TJS_REQUIRED_FILES[1]);
  const tokenizerConfigJson = await json(TJS_REQUIRED_FILES[2]);

  let variant: TjsVariant;
  if (variants !== null) {
    variant = chooseVariant(label, variants, o.dtype, o.device, o.shaderF16);
    for (const f of [variant.file, ...variant.externalData]) await get(f);
  } else {
    const order = o.dtype === 'auto' ? dtypePreference(o.device, o.shaderF16) : [o.dtype];
    let found: TjsVariant | null = null;
    for (const dtype of order) {
      if ((await get(decoderFile(dtype), true)) !== null) {
        found = { dtype, file: decoderFile(dtype), externalData: [] };
        break;
      }
    }
    if (found === null) {
      const tried = order.map(decoderFile);
      throw new TjsModelFileError(label, tried[0], o.dtype === 'auto' ? `is missing, and so is every other decoder (${tried.join(', ')}).` : `is missing, so dtype ${o.dtype} cannot load: choose another dtype (or Automatic).`);
    }
    // External data: X_data, X_data_1, … until one is missing.
    for (let i = 0; ; i++) {
      const name = externalDataNames(found.file, i + 1)[i];
      if ((await get(name, true)) === null) break;
      found.externalData.push(name);
    }
    variant = found;
  }
  return { label, config, variant, configJson, tokenizerJson, tokenizerConfigJson, files };
}
