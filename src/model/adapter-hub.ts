/**
 * Where PEFT adapter files come from: the Hugging Face Hub (or a mirror), through hub.ts's machinery — same base URL,
 * revision, Cache Storage store, resume, progress and cancel as a model download. (Files the user picks go from the
 * Train view to the worker's adapter library: src/ui/train/adapter-actions.ts.)
 *
 * Order: adapter_config.json first, parsed and checked against the base model (a DoRA adapter, a regex that reaches
 * lm_head, an unsupported pattern… is refused before the weights move), then adapter_model.safetensors, whose header
 * hub.ts checks as its first bytes arrive. A missing file or a damaged one is an AdapterFileError naming it; cancel
 * and network failures keep hub.ts's own errors (CancelledError, HubHttpError), which the UI already shows.
 */
import type { FileStore } from './cache.ts';
import type { ModelConfig } from './config.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, AdapterFileError, peftBaseModel, readPeftAdapter, readPeftAdapterConfig } from './adapter-file.ts';
import { fileCap, FileTooLargeError } from './file-caps.ts';
import { DEFAULT_HUB_BASE, downloadFile, fileKey, HubFileNotFoundError, ProgressTracker, type DownloadProgress, type FetchLike } from './hub.ts';
import type { LoraAdapter } from './lora.ts';
import { DEFAULT_REVISION } from './registry.ts';
import { SafetensorsError } from './safetensors.ts';

export interface DownloadAdapterOptions {
  /** The base model the adapter must fit (shapes are checked against it). */
  model: ModelConfig;
  revision?: string;
  /** Hub or mirror base URL; default DEFAULT_HUB_BASE. */
  base?: string;
  /** A folder of the repo holding the two files (repos with several adapters); default the root. */
  subfolder?: string;
  fetch?: FetchLike;
  store: FileStore;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

export interface LoadedPeftAdapter {
  adapter: LoraAdapter;
  /** adapter_config.json's base_model_name_or_path (null when absent). */
  baseModel: string | null;
  /** Where it came from, for labels: `owner/name` (+ `/subfolder`) or the picked folder. */
  label: string;
}

const HINT = 'a PEFT adapter is adapter_config.json + adapter_model.safetensors (save_pretrained with safe_serialization=True)';

/** Downloads (or reads from the store) a PEFT adapter for `options.model`. */
export async function downloadPeftAdapter(repo: string, options: DownloadAdapterOptions): Promise<LoadedPeftAdapter> {
  const base = options.base ?? DEFAULT_HUB_BASE;
  const revision = options.revision ?? DEFAULT_REVISION;
  const folder = (options.subfolder ?? '').replace(/^\/+|\/+$/g, '');
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const progress = new ProgressTracker(2);
  const get = async (name: string): Promise<Uint8Array> => {
    const file = folder === '' ? name : `${folder}/${name}`;
    let bytes: Uint8Array | null;
    try {
      bytes = await downloadFile({
        fetch: doFetch,
        store: options.store,
        key: fileKey(base, repo, revision, file),
        signal: options.signal,
        maxBytes: fileCap(name),
        onProgress: (loaded, total) => options.onProgress?.(progress.update(file, loaded, total)),
      });
    } catch (e) {
      if (e instanceof HubFileNotFoundError) throw new AdapterFileError(name, `not found in ${repo}${folder === '' ? '' : `/${folder}`} at revision ${revision} (404 at ${e.url}): ${HINT}`, null, { cause: e });
      if (e instanceof SafetensorsError || e instanceof FileTooLargeError) throw new AdapterFileError(name, e.message, null, { cause: e });
      throw e;
    }
    options.onProgress?.(progress.update(file, bytes!.length, bytes!.length, true));
    return bytes!;
  };
  const configJson = decodeConfig(await get(ADAPTER_CONFIG_FILE));
  // Checks the config against the model before the weights move: a bad config needs only its own bytes to be refused.
  readPeftAdapterConfig(configJson, options.model);
  const safetensors = await get(ADAPTER_WEIGHTS_FILE);
  const adapter = readPeftAdapter({ safetensors, configJson }, options.model);
  return { adapter, baseModel: peftBaseModel(configJson), label: folder === '' ? repo : `${repo}/${folder}` };
}

function decodeConfig(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw new AdapterFileError(ADAPTER_CONFIG_FILE, 'is not UTF-8 text', null, { cause: e });
  }
}
