/**
 * The browser's cache of model files, in Cache Storage (one cache, `sqlenv-models-v1`). A file is keyed by its full
 * resolve URL, which is base URL + repo + revision + file, so two mirrors or two revisions never share an entry.
 * A complete file is stored under its URL; the bytes of an interrupted download under the URL with `?sqlenv-partial`,
 * so a retry resumes from them with an HTTP Range request (hub.ts). Each entry carries its repo, revision, file and
 * base URL as headers, so the cache can be listed by model and cleared one model at a time without a side index.
 *
 * `FileStore` is the interface hub.ts downloads into; `MemoryFileStore` is the same thing in memory (Node tests, and a
 * page that must not persist anything).
 */

export interface FileKey {
  /** Normalised base URL (no trailing slash), e.g. https://huggingface.co */
  base: string;
  repo: string;
  revision: string;
  file: string;
  /** The resolve URL of the file (base + repo + revision + file): the cache key. */
  url: string;
}

export interface FileStore {
  /** The complete file, or null. */
  get(key: FileKey): Promise<Uint8Array | null>;
  /** The bytes of an interrupted download, or null. */
  getPartial(key: FileKey): Promise<Uint8Array | null>;
  /** Stores a complete file and drops its partial bytes. */
  put(key: FileKey, bytes: Uint8Array): Promise<void>;
  putPartial(key: FileKey, bytes: Uint8Array): Promise<void>;
  deletePartial(key: FileKey): Promise<void>;
}

/** A cached model as listed for the user. */
export interface CachedModel {
  base: string;
  repo: string;
  revision: string;
  files: Array<{ file: string; bytes: number; partial: boolean }>;
  /** Bytes of every file, partial ones included. */
  bytes: number;
}

export class CacheQuotaError extends Error {
  override name = 'CacheQuotaError';
  constructor(
    readonly file: string,
    readonly neededBytes: number,
  ) {
    super(
      `Browser storage is full: caching ${file} needs ${formatBytes(neededBytes)} more. Free space by clearing cached ` +
        'models you no longer use (Model cache → Clear), or this site\'s data in the browser settings, then retry: the ' +
        'download resumes. A local model folder needs no browser storage at all.',
    );
  }
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

/** True for the error a storage write throws when the origin is over quota (a DOMException in browsers). */
export function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'QuotaExceededError';
}

export const MODEL_CACHE_NAME = 'sqlenv-models-v1';
const PARTIAL_SUFFIX = '?sqlenv-partial';
const H_BASE = 'x-sqlenv-base';
const H_REPO = 'x-sqlenv-repo';
const H_REVISION = 'x-sqlenv-revision';
const H_FILE = 'x-sqlenv-file';
const H_BYTES = 'x-sqlenv-bytes';

function entryResponse(key: FileKey, bytes: Uint8Array): Response {
  return new Response(bytes.slice().buffer, {
    headers: {
      'content-type': 'application/octet-stream',
      [H_BASE]: key.base,
      [H_REPO]: key.repo,
      [H_REVISION]: key.revision,
      [H_FILE]: key.file,
      [H_BYTES]: String(bytes.length),
    },
  });
}

/** Files in Cache Storage. Writes that hit the quota throw CacheQuotaError naming the bytes needed. */
export class CacheStorageFileStore implements FileStore {
  constructor(
    private readonly storage: CacheStorage = caches,
    private readonly cacheName: string = MODEL_CACHE_NAME,
  ) {}

  private open(): Promise<Cache> {
    return this.storage.open(this.cacheName);
  }

  private async read(url: string): Promise<Uint8Array | null> {
    const res = await (await this.open()).match(url);
    return res ? new Uint8Array(await res.arrayBuffer()) : null;
  }

  private async write(url: string, key: FileKey, bytes: Uint8Array): Promise<void> {
    try {
      await (await this.open()).put(url, entryResponse(key, bytes));
    } catch (e) {
      if (isQuotaError(e)) throw new CacheQuotaError(key.file, bytes.length);
      throw e;
    }
  }

  get(key: FileKey): Promise<Uint8Array | null> {
    return this.read(key.url);
  }

  getPartial(key: FileKey): Promise<Uint8Array | null> {
    return this.read(key.url + PARTIAL_SUFFIX);
  }

  async put(key: FileKey, bytes: Uint8Array): Promise<void> {
    await this.write(key.url, key, bytes);
    await this.deletePartial(key);
  }

  putPartial(key: FileKey, bytes: Uint8Array): Promise<void> {
    return this.write(key.url + PARTIAL_SUFFIX, key, bytes);
  }

  async deletePartial(key: FileKey): Promise<void> {
    await (await this.open()).delete(key.url + PARTIAL_SUFFIX);
  }

  /** Every cached model (complete and partial files) with its size. */
  async list(): Promise<CachedModel[]> {
    const cache = await this.open();
    const models = new Map<string, CachedModel>();
    for (const request of await cache.keys()) {
      const res = await cache.match(request);
      if (!res) continue;
      const h = res.headers;
      const base = h.get(H_BASE) ?? '';
      const repo = h.get(H_REPO) ?? '';
      const revision = h.get(H_REVISION) ?? '';
      const id = `${base}|${repo}|${revision}`;
      let model = models.get(id);
      if (!model) {
        model = { base, repo, revision, files: [], bytes: 0 };
        models.set(id, model);
      }
      const bytes = Number(h.get(H_BYTES) ?? 0);
      model.files.push({ file: h.get(H_FILE) ?? request.url, bytes, partial: request.url.endsWith(PARTIAL_SUFFIX) });
      model.bytes += bytes;
    }
    return [...models.values()].sort((a, b) => a.repo.localeCompare(b.repo) || a.revision.localeCompare(b.revision));
  }

  /** Deletes one model's files (every revision unless one is given; every base URL unless one is given). Returns files deleted. */
  async clearModel(repo: string, options: { revision?: string; base?: string } = {}): Promise<number> {
    const cache = await this.open();
    let deleted = 0;
    for (const request of await cache.keys()) {
      const h = (await cache.match(request))?.headers;
      if (!h || h.get(H_REPO) !== repo) continue;
      if (options.revision !== undefined && h.get(H_REVISION) !== options.revision) continue;
      if (options.base !== undefined && h.get(H_BASE) !== options.base) continue;
      if (await cache.delete(request)) deleted++;
    }
    return deleted;
  }

  /** Deletes every cached model file. */
  async clearAll(): Promise<void> {
    await this.storage.delete(this.cacheName);
  }
}

/** The same store in memory. */
export class MemoryFileStore implements FileStore {
  readonly complete = new Map<string, Uint8Array>();
  readonly partial = new Map<string, Uint8Array>();

  async get(key: FileKey): Promise<Uint8Array | null> {
    return this.complete.get(key.url) ?? null;
  }
  async getPartial(key: FileKey): Promise<Uint8Array | null> {
    return this.partial.get(key.url) ?? null;
  }
  async put(key: FileKey, bytes: Uint8Array): Promise<void> {
    this.complete.set(key.url, bytes);
    this.partial.delete(key.url);
  }
  async putPartial(key: FileKey, bytes: Uint8Array): Promise<void> {
    this.partial.set(key.url, bytes);
  }
  async deletePartial(key: FileKey): Promise<void> {
    this.partial.delete(key.url);
  }
}
