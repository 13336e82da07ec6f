/**
 * Downloading a checkpoint from the Hugging Face Hub (or a mirror with the same layout) into a `FileStore`.
 *
 * URL: `{base}/{owner}/{name}/resolve/{revision}/{file}`, base `https://huggingface.co` unless a mirror is set.
 * Order: config.json first and checked (an unsupported architecture is refused before any weight byte moves), then
 * generation_config.json (optional), the tokenizer files, the shard index when there is one, then the weights.
 *
 * Resume: a file whose download was interrupted (network error, cancel through `signal`) keeps its bytes in the
 * store as a partial entry, and files completed before a cancel stay complete; the next attempt asks for the rest
 * with `Range: bytes=N-`. A 206 whose Content-Range starts at N is appended; a 200 means the server ignored the
 * Range, and the file is downloaded whole again (the partial bytes dropped).
 * Progress: bytes per file and over all files (`ProgressTracker`), reported on every chunk.
 * Safetensors headers are checked as soon as their bytes arrive (`SafetensorsHeaderCheck`): a corrupt file stops at
 * its first few kilobytes, not after a gigabyte. The small files have size caps (file-caps.ts), checked against the
 * Content-Length and as bytes arrive: a 300 MB "config" stops at its cap with a FileTooLargeError.
 *
 * Everything takes `fetch` as an argument, so Node tests drive it with a fake server.
 */
import { parseModelConfig, type ModelConfig } from './config.ts';
import type { CheckpointFiles } from './load.ts';
import type { FileKey, FileStore } from './cache.ts';
import { checkFileSize, fileCap, FileTooLargeError } from './file-caps.ts';
import { checkModelFits } from './model-budget.ts';
import { checkModelFilePath } from './model-path.ts';
import { CONFIG_FILES, DEFAULT_REVISION, OPTIONAL_FILES, SHARD_INDEX, validateRepoId, validateRevision, weightFiles } from './registry.ts';
import { CorruptHeaderError, headerLength, parseSafetensorsHeader, SafetensorsError } from './safetensors.ts';
import { CancelledError, isCancelled } from '../util/cancelled.ts';

export const DEFAULT_HUB_BASE = 'https://huggingface.co';

export type FetchLike = (url: string, init?: { headers?: Record<string, string>; signal?: AbortSignal }) => Promise<Response>;

// --- errors ---------------------------------------------------------------------------------------------------------

export class HubFileNotFoundError extends Error {
  override name = 'HubFileNotFoundError';
  constructor(
    readonly repo: string,
    readonly file: string,
    readonly url: string,
  ) {
    super(`${file} not found in ${repo} (404 at ${url}). Check the model id and revision, or that the mirror has this file.`);
  }
}

export class HubHttpError extends Error {
  override name = 'HubHttpError';
  constructor(
    readonly url: string,
    readonly status: number,
    detail: string,
  ) {
    super(`Download of ${url} failed: ${detail}. Retry; an interrupted download resumes where it stopped.`);
  }
}

/** A download stopped by its signal: the one CancelledError, saying that the bytes received are kept for a resume. */
function downloadCancelled(file: string): CancelledError {
  return new CancelledError(`Download of ${file} cancelled; the bytes received are kept, so the next attempt resumes.`);
}

/** A safetensors file whose header is damaged (a CorruptHeaderError naming the repo and file). */
export class CorruptModelFileError extends CorruptHeaderError {
  override name = 'CorruptModelFileError';
  constructor(
    readonly repo: string,
    readonly file: string,
    detail: string,
  ) {
    super(`${repo}/${file} is not a valid safetensors file: ${detail}. Its cached bytes were dropped; check the mirror serves the real file.`);
  }
}

// --- URLs and ranges ------------------------------------------------------------------------------------------------

/** `base` without trailing slashes; throws unless it is an http(s) URL. */
export function normalizeBase(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new HubHttpError(base, 0, 'the base URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new HubHttpError(base, 0, 'the base URL must be http(s)');
  return base.replace(/\/+$/, '');
}

/** The resolve URL of one file, each path segment encoded; `file` must be a safe relative path (model-path.ts). */
export function hubFileUrl(base: string, repo: string, revision: string, file: string): string {
  checkModelFilePath(file, { file: `${repo}@${revision}`, field: 'file' });
  const enc = (path: string) => path.split('/').map(encodeURIComponent).join('/');
  return `${normalizeBase(base)}/${enc(validateRepoId(repo))}/resolve/${encodeURIComponent(validateRevision(revision))}/${enc(file)}`;
}

export function fileKey(base: string, repo: string, revision: string, file: string): FileKey {
  return { base: normalizeBase(base), repo, revision, file, url: hubFileUrl(base, repo, revision, file) };
}

/** The Range header asking for the rest of a file of which `have` bytes are held (null: ask for all of it). */
export function rangeHeader(have: number): string | null {
  return have > 0 ? `bytes=${have}-` : null;
}

/** `bytes START-END/TOTAL` (TOTAL may be `*`), or null when absent or malformed. */
export function parseContentRange(header: string | null): { start: number; end: number; total: number | null } | null {
  const m = header === null ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) };
}

/**
 * How to use a response to a request that held `have` bytes: `keep` bytes of the partial file to keep (have when the
 * server honoured the Range, 0 when it sent the whole file), and the file's `total` size when known.
 */
export function resumePlan(have: number, status: number, contentRange: string | null, contentLength: string | null): { keep: number; total: number | null } {
  const length = contentLength !== null && /^\d+$/.test(contentLength) ? Number(contentLength) : null;
  if (status === 206) {
    const range = parseContentRange(contentRange);
    if (range === null || range.start !== have) throw new HubHttpError('', status, `the server answered the Range bytes=${have}- with Content-Range ${contentRange}`);
    return { keep: have, total: range.total ?? (length === null ? null : have + length) };
  }
  return { keep: 0, total: length };
}

// --- progress -------------------------------------------------------------------------------------------------------

export interface DownloadProgress {
  /** The file now moving. */
  file: string;
  fileLoaded: number;
  fileTotal: number | null;
  /** Over every file started so far (total grows as files start: their sizes are learnt from the responses). */
  loaded: number;
  total: number;
  filesDone: number;
  filesTotal: number;
}

/** Sums per-file byte counts into one progress figure. */
export class ProgressTracker {
  private readonly files = new Map<string, { loaded: number; total: number | null; done: boolean }>();
  constructor(public filesTotal: number) {}

  update(file: string, loaded: number, total: number | null, done = false): DownloadProgress {
    this.files.set(file, { loaded, total, done });
    let sumLoaded = 0;
    let sumTotal = 0;
    let filesDone = 0;
    for (const f of this.files.values()) {
      sumLoaded += f.loaded;
      sumTotal += f.total ?? f.loaded;
      if (f.done) filesDone++;
    }
    return { file, fileLoaded: loaded, fileTotal: total, loaded: sumLoaded, total: sumTotal, filesDone, filesTotal: this.filesTotal };
  }
}

// --- safetensors header check while bytes arrive ------------------------------------------------------------------

/** Fed the first chunks of a safetensors file; throws CorruptHeaderError (or another SafetensorsError) as soon as it can tell. */
export class SafetensorsHeaderCheck {
  private head = new Uint8Array(0);
  private need = 8;
  private lengthKnown = false;
  done = false;
  constructor(
    private readonly fileSize: number | null,
    private readonly file = 'safetensors file',
  ) {}

  feed(chunk: Uint8Array): void {
    if (this.done) return;
    const take = chunk.subarray(0, Math.max(0, this.need - this.head.length));
    const next = new Uint8Array(this.head.length + take.length);
    next.set(this.head);
    next.set(take, this.head.length);
    this.head = next;
    if (this.head.length < this.need) return;
    if (!this.lengthKnown) {
      this.lengthKnown = true;
      this.need = 8 + headerLength(this.head, this.file);
      if (this.fileSize !== null && this.need > this.fileSize) throw new CorruptHeaderError(`${this.file}: the header claims ${this.need - 8} bytes, the file has ${this.fileSize}`, this.file);
      this.feed(chunk.subarray(take.length));
      return;
    }
    parseSafetensorsHeader(this.head, this.fileSize, this.file);
    this.done = true;
  }
}

// --- one file -------------------------------------------------------------------------------------------------------

export interface DownloadFileOptions {
  fetch: FetchLike;
  store: FileStore;
  key: FileKey;
  signal?: AbortSignal;
  onProgress?: (loaded: number, total: number | null) => void;
  /** 404 gives null instead of HubFileNotFoundError. */
  optional?: boolean;
  /**
   * Most bytes the file may have (file-caps.ts; null: no cap). Checked against the cached copy, the Content-Length
   * before the body is read, and the bytes as they arrive (a server may send no length, or lie).
   */
  maxBytes?: number | null;
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function isAbort(e: unknown, signal?: AbortSignal): boolean {
  return signal?.aborted === true || isCancelled(e);
}

/** One file, from the store when complete there, else fetched (resuming partial bytes). */
export async function downloadFile(o: DownloadFileOptions): Promise<Uint8Array | null> {
  const { key, store } = o;
  if (o.signal?.aborted) throw downloadCancelled(key.file); // cancelled between files: read nothing more
  const cap = o.maxBytes ?? null;
  const cached = await store.get(key);
  if (cached) {
    checkFileSize(key.file, cached.length, cap);
    o.onProgress?.(cached.length, cached.length);
    return cached;
  }
  const partial = await store.getPartial(key);
  const have = partial?.length ?? 0;
  const range = rangeHeader(have);
  let res: Response;
  try {
    res = await o.fetch(key.url, { headers: range === null ? {} : { Range: range }, signal: o.signal });
  } catch (e) {
    if (isAbort(e, o.signal)) throw downloadCancelled(key.file);
    throw new HubHttpError(key.url, 0, `network error (${(e as Error).message})`);
  }
  if (res.status === 404) {
    if (o.optional) return null;
    throw new HubFileNotFoundError(key.repo, key.file, key.url);
  }
  if (res.status === 416 && have > 0) {
    // The partial bytes do not fit the file now served (it changed, or they were complete): start again.
    await store.deletePartial(key);
    return downloadFile(o);
  }
  if (!res.ok || res.body === null) throw new HubHttpError(key.url, res.status, `HTTP ${res.status} ${res.statusText}`);
  const plan = resumePlan(have, res.status, res.headers.get('content-range'), res.headers.get('content-length'));
  if (plan.total !== null && cap !== null && plan.total > cap) {
    await res.body.cancel().catch(() => undefined);
    await store.deletePartial(key);
    throw new FileTooLargeError(key.file, plan.total, cap);
  }
  const parts: Uint8Array[] = plan.keep > 0 && partial ? [partial.subarray(0, plan.keep)] : [];
  let loaded = plan.keep;
  const check = key.file.endsWith('.safetensors') ? new SafetensorsHeaderCheck(plan.total, key.file) : null;
  if (check && partial && plan.keep > 0) check.feed(partial);
  o.onProgress?.(loaded, plan.total);
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      check?.feed(value);
      parts.push(value);
      loaded += value.length;
      checkFileSize(key.file, loaded, cap);
      o.onProgress?.(loaded, plan.total);
      // A body that has fully arrived would still read to its end after an abort: stop at the chunk instead.
      if (o.signal?.aborted) throw downloadCancelled(key.file);
    }
  } catch (e) {
    if (e instanceof SafetensorsError) {
      await reader.cancel().catch(() => undefined);
      await store.deletePartial(key);
      throw new CorruptModelFileError(key.repo, key.file, e.message);
    }
    if (e instanceof FileTooLargeError) {
      await reader.cancel().catch(() => undefined);
      await store.deletePartial(key);
      throw e;
    }
    if (loaded > 0) await store.putPartial(key, concat(parts, loaded));
    if (isAbort(e, o.signal)) throw downloadCancelled(key.file);
    throw new HubHttpError(key.url, res.status, `connection lost after ${loaded} bytes (${(e as Error).message})`);
  }
  const bytes = concat(parts, loaded);
  if (plan.total !== null && loaded !== plan.total) {
    await store.putPartial(key, bytes);
    throw new HubHttpError(key.url, res.status, `received ${loaded} of ${plan.total} bytes`);
  }
  if (check && !check.done) {
    await store.deletePartial(key);
    throw new CorruptModelFileError(key.repo, key.file, `the file ends (${loaded} bytes) inside its header`);
  }
  await store.put(key, bytes);
  return bytes;
}

// --- a whole checkpoint --------------------------------------------------------------------------------------------

export interface DownloadModelOptions {
  repo: string;
  revision?: string;
  /** Hub or mirror base URL; default DEFAULT_HUB_BASE. */
  base?: string;
  fetch?: FetchLike;
  store: FileStore;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

export interface DownloadedModel {
  config: ModelConfig;
  checkpoint: CheckpointFiles;
  tokenizerJson: unknown;
  tokenizerConfigJson: unknown;
}

function parseJson(bytes: Uint8Array, repo: string, file: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (e) {
    throw new HubHttpError(`${repo}/${file}`, 200, `${file} is not valid JSON (${(e as Error).message})`);
  }
}

/** Downloads (or reads from the store) every file of a checkpoint, checking the config before any weights. */
export async function downloadModel(o: DownloadModelOptions): Promise<DownloadedModel> {
  const base = o.base ?? DEFAULT_HUB_BASE;
  const revision = o.revision ?? DEFAULT_REVISION;
  const doFetch: FetchLike = o.fetch ?? ((url, init) => fetch(url, init));
  const progress = new ProgressTracker(CONFIG_FILES.length + 1);
  const get = async (file: string, optional = false): Promise<Uint8Array | null> => {
    const bytes = await downloadFile({
      fetch: doFetch,
      store: o.store,
      key: fileKey(base, o.repo, revision, file),
      signal: o.signal,
      optional,
      maxBytes: fileCap(file),
      onProgress: (loaded, total) => o.onProgress?.(progress.update(file, loaded, total)),
    });
    o.onProgress?.(progress.update(file, bytes?.length ?? 0, bytes?.length ?? 0, true));
    return bytes;
  };
  const json = async (file: string, optional = false): Promise<unknown> => {
    const bytes = await get(file, optional);
    return bytes === null ? undefined : parseJson(bytes, o.repo, file);
  };

  const configJson = await json('config.json');
  const generationConfigJson = await json('generation_config.json', OPTIONAL_FILES.has('generation_config.json'));
  const config = parseModelConfig(configJson, generationConfigJson); // refuses an unsupported architecture here
  checkModelFits(config, { file: `${o.repo}/config.json` }); // and a model too large for the page, before any weight byte
  const tokenizerJson = await json('tokenizer.json');
  const tokenizerConfigJson = await json('tokenizer_config.json');
  const index = await json(SHARD_INDEX, true);
  const shards = weightFiles(index ?? null);
  progress.filesTotal = CONFIG_FILES.length + (index === undefined ? 0 : 1) + shards.length;
  const safetensors: Uint8Array[] = [];
  for (const shard of shards) safetensors.push((await get(shard))!);
  return { config, checkpoint: { configJson, generationConfigJson, safetensors, safetensorsNames: shards.map((f) => `${o.repo}/${f}`) }, tokenizerJson, tokenizerConfigJson };
}
