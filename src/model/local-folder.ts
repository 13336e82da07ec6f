/**
 * A model folder the user picked (`<input type=file webkitdirectory>`, or files dropped): its `File`s, each with its
 * path inside the pick (`webkitRelativePath`, e.g. `qwen3/config.json`), read into memory in the order a Hub download
 * uses — config.json first and checked (an unsupported architecture is refused before any weight byte is read), then
 * generation_config.json (optional), the tokenizer files, the shard index when there is one, then the weights.
 *
 * The model's root is the shallowest folder holding a config.json, so picking the model folder itself or its parent
 * both work. Nothing is written to browser storage: the `File`s stay references to the user's disk and the bytes
 * live only as long as the load needs them (a device-loss recovery reads them again).
 *
 * Errors name the folder and the file: LocalModelFileError for a missing or unreadable file or bad JSON,
 * CorruptLocalFileError (a CorruptHeaderError) for a damaged safetensors header, found from the header alone.
 */
import type { CheckpointFiles } from './load.ts';
import { parseModelConfig, type ModelConfig } from './config.ts';
import { checkFileSize, fileCap } from './file-caps.ts';
import { checkModelFits } from './model-budget.ts';
import { CONFIG_FILES, OPTIONAL_FILES, SHARD_INDEX, weightFiles } from './registry.ts';
import { CorruptHeaderError, headerLength, parseSafetensorsHeader, SafetensorsError } from './safetensors.ts';

/** One picked file: its path inside the pick (forward slashes) and its bytes. */
export interface LocalFile {
  path: string;
  data: Blob | Uint8Array;
}

export interface LocalModelFiles {
  /** The model folder's name, for labels. */
  label: string;
  config: ModelConfig;
  checkpoint: CheckpointFiles;
  tokenizerJson: unknown;
  tokenizerConfigJson: unknown;
}

export class LocalModelFileError extends Error {
  override name = 'LocalModelFileError';
  constructor(
    readonly folder: string,
    readonly file: string,
    reason: string,
  ) {
    super(`${file} in the folder '${folder}' ${reason}`);
  }
}

export class CorruptLocalFileError extends CorruptHeaderError {
  override name = 'CorruptLocalFileError';
  constructor(
    readonly folder: string,
    readonly file: string,
    detail: string,
  ) {
    super(`${file} in the folder '${folder}' is not a valid safetensors file: ${detail}. Copy the file again from its source.`);
  }
}

const REQUIRED_HINT = `pick the folder that holds ${CONFIG_FILES.filter((f) => !OPTIONAL_FILES.has(f)).join(', ')} and model.safetensors (or its index and shards)`;

function normalize(path: string): string {
  return path.replace(/\\/g, '/').replace(/^\/+/, '');
}

/** The model root (a prefix ending in '/', or '') and its files by path relative to it. */
export function modelRoot(files: readonly LocalFile[]): { root: string; label: string; byName: Map<string, LocalFile> } {
  const configs = files.map((f) => normalize(f.path)).filter((p) => p === 'config.json' || p.endsWith('/config.json'));
  const top = normalize(files[0]?.path ?? '').split('/')[0] || 'picked files';
  if (configs.length === 0) throw new LocalModelFileError(top, 'config.json', `is missing (${files.length} files picked): ${REQUIRED_HINT}.`);
  const shallowest = configs.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))[0];
  const root = shallowest.slice(0, shallowest.length - 'config.json'.length);
  const label = root.replace(/\/$/, '').split('/').pop() || top;
  const byName = new Map<string, LocalFile>();
  for (const f of files) {
    const p = normalize(f.path);
    if (p.startsWith(root)) byName.set(p.slice(root.length), f);
  }
  return { root, label, byName };
}

async function bytesOf(data: Blob | Uint8Array): Promise<Uint8Array> {
  return data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer());
}

/** Throws CorruptLocalFileError unless `bytes` starts with a well-formed safetensors header. */
export function checkSafetensorsHeader(folder: string, file: string, bytes: Uint8Array): void {
  try {
    if (bytes.length < 8) throw new CorruptHeaderError(`the file has ${bytes.length} bytes, fewer than the 8 of a header length`);
    const end = 8 + headerLength(bytes.subarray(0, 8), file);
    if (end > bytes.length) throw new CorruptHeaderError(`the header claims ${end - 8} bytes, the file has ${bytes.length}`, file);
    parseSafetensorsHeader(bytes, bytes.length, file);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new CorruptLocalFileError(folder, file, e.message);
    throw e;
  }
}

/**
 * Reads a picked model folder. `onProgress` gets bytes read so far over the bytes of every file needed (known up
 * front from the File sizes once the index is read).
 */
export async function readLocalModel(files: readonly LocalFile[], onProgress?: (file: string, loaded: number, total: number) => void, signal?: AbortSignal): Promise<LocalModelFiles> {
  const { label, byName } = modelRoot(files);
  let loaded = 0;
  const size = (f: LocalFile): number => (f.data instanceof Uint8Array ? f.data.length : f.data.size);
  const read = async (name: string, optional = false): Promise<Uint8Array | null> => {
    signal?.throwIfAborted();
    const file = byName.get(name);
    if (!file) {
      if (optional) return null;
      throw new LocalModelFileError(label, name, `is missing: ${REQUIRED_HINT}.`);
    }
    checkFileSize(`${label}/${name}`, size(file), fileCap(name)); // a 300 MB "config" is refused unread
    let bytes: Uint8Array;
    try {
      bytes = await bytesOf(file.data);
    } catch (e) {
      throw new LocalModelFileError(label, name, `could not be read (${(e as Error).message}); was it moved or deleted after the folder was picked?`);
    }
    loaded += bytes.length;
    onProgress?.(name, loaded, Math.max(loaded, total));
    return bytes;
  };
  const json = async (name: string, optional = false): Promise<unknown> => {
    const bytes = await read(name, optional);
    if (bytes === null) return undefined;
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (e) {
      throw new LocalModelFileError(label, name, `is not valid JSON (${(e as Error).message})`);
    }
  };
  const index0 = byName.get(SHARD_INDEX);
  let total = [...CONFIG_FILES, SHARD_INDEX].reduce((sum, n) => sum + (byName.has(n) ? size(byName.get(n)!) : 0), 0);

  const configJson = await json('config.json');
  const generationConfigJson = await json('generation_config.json', OPTIONAL_FILES.has('generation_config.json'));
  const config = parseModelConfig(configJson, generationConfigJson); // refuses an unsupported architecture here
  checkModelFits(config, { file: `${label}/config.json` }); // and a model too large for the page, before any weight byte
  const tokenizerJson = await json('tokenizer.json');
  const tokenizerConfigJson = await json('tokenizer_config.json');
  const index = index0 === undefined ? undefined : await json(SHARD_INDEX);
  const shards = weightFiles(index ?? null);
  for (const shard of shards) {
    const f = byName.get(shard);
    if (!f) throw new LocalModelFileError(label, shard, index === undefined ? `is missing: ${REQUIRED_HINT}.` : `is named by ${SHARD_INDEX} but missing from the folder.`);
    total += size(f);
  }
  const safetensors: Uint8Array[] = [];
  for (const shard of shards) {
    const bytes = (await read(shard))!;
    checkSafetensorsHeader(label, shard, bytes);
    safetensors.push(bytes);
  }
  return { label, config, checkpoint: { configJson, generationConfigJson, safetensors, safetensorsNames: shards.map((s) => `${label}/${s}`) }, tokenizerJson, tokenizerConfigJson };
}
