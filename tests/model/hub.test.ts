/**
 * Hub downloads against a fake server (a `fetch` that serves an in-memory model and records every request): URL
 * building, Range bookkeeping, resume after a cut connection, a server that ignores Range, cancel, progress sums,
 * and one typed error each for a 404, a corrupt safetensors header (caught at the header, before the data), an
 * unsupported architecture (caught before any weight request) and a full cache (quota).
 */
import { describe, expect, it } from 'vitest';
import { CacheQuotaError, CacheStorageFileStore, MemoryFileStore } from '../../src/model/cache.ts';
import { toHfConfigJson, UnsupportedArchitectureError } from '../../src/model/config.ts';
import { CancelledError } from '../../src/util/cancelled.ts';
import {
  CorruptModelFileError,
  downloadFile,
  downloadModel,
  fileKey,
  HubFileNotFoundError,
  hubFileUrl,
  parseContentRange,
  ProgressTracker,
  rangeHeader,
  resumePlan,
  SafetensorsHeaderCheck,
  type FetchLike,
} from '../../src/model/hub.ts';
import { loadCheckpoint } from '../../src/model/load.ts';
import { CorruptHeaderError, writeSafetensors } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { createRng } from '../../src/data/rng.ts';

const BASE = 'https://mirror.test/hf';
const REPO = 'tiny/model';

function tinyFiles(): Map<string, Uint8Array> {
  const config = tinyModelConfig({ vocabSize: 64 });
  const weights = randomModelWeights(config, createRng(1));
  const st = writeSafetensors(new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: t.data }])));
  const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));
  return new Map([
    ['config.json', enc(toHfConfigJson(config))],
    ['generation_config.json', enc({ eos_token_id: [1] })],
    ['tokenizer.json', enc({ model: {} })],
    ['tokenizer_config.json', enc({})],
    ['model.safetensors', st],
  ]);
}

interface Served {
  url: string;
  range: string | null;
}

/** A fake Hub: serves `files`, honours Range unless told not to, and can cut a body after `cutAfter` bytes. */
function fakeHub(files: Map<string, Uint8Array>, opts: { ignoreRange?: boolean; cutAfter?: number; chunk?: number } = {}) {
  const log: Served[] = [];
  let cut = opts.cutAfter;
  const fetch: FetchLike = async (url, init) => {
    const range = init?.headers?.Range ?? null;
    log.push({ url, range });
    const prefix = `${BASE}/${REPO}/resolve/main/`;
    const bytes = url.startsWith(prefix) ? files.get(decodeURIComponent(url.slice(prefix.length))) : undefined;
    if (!bytes) return new Response('not found', { status: 404, statusText: 'Not Found' });
    let start = 0;
    let status = 200;
    const headers: Record<string, string> = {};
    if (range !== null && !opts.ignoreRange) {
      start = Number(/bytes=(\d+)-/.exec(range)![1]);
      status = 206;
      headers['content-range'] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    }
    const body = bytes.subarray(start);
    headers['content-length'] = String(body.length);
    const size = opts.chunk ?? 4096;
    const limit = cut;
    cut = undefined; // only the first response is cut
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (init?.signal?.aborted) return controller.error(new DOMException('aborted', 'AbortError'));
        if (limit !== undefined && at >= limit) return controller.error(new TypeError('network connection lost'));
        if (at >= body.length) return controller.close();
        controller.enqueue(body.slice(at, at + size));
        at += size;
      },
    });
    return new Response(stream, { status, headers });
  };
  return { fetch, log };
}

describe('URLs and ranges', () => {
  it.each([
    [BASE, 'Qwen/Qwen3-0.6B', 'main', 'config.json', `${BASE}/Qwen/Qwen3-0.6B/resolve/main/config.json`],
    ['https://huggingface.co/', 'a/b', 'v1.0', 'sub dir/x.json', 'https://huggingface.co/a/b/resolve/v1.0/sub%20dir/x.json'],
    ['http://127.0.0.1:4173/__hub', 'o/n', 'refs/pr/1', 'model.safetensors', 'http://127.0.0.1:4173/__hub/o/n/resolve/refs%2Fpr%2F1/model.safetensors'],
  ])('%s %s %s %s', (base, repo, rev, file, url) => {
    expect(hubFileUrl(base, repo, rev, file)).toBe(url);
  });

  it('refuses a bad base, repo or revision', () => {
    expect(() => hubFileUrl('ftp://x', 'a/b', 'main', 'f')).toThrow(/http/);
    expect(() => hubFileUrl(BASE, 'no-slash', 'main', 'f')).toThrow(/owner\/name/);
    expect(() => hubFileUrl(BASE, 'a/b', '../x', 'f')).toThrow(/revision/);
  });

  it('Range and Content-Range bookkeeping', () => {
    expect(rangeHeader(0)).toBeNull();
    expect(rangeHeader(100)).toBe('bytes=100-');
    expect(parseContentRange('bytes 100-199/200')).toEqual({ start: 100, end: 199, total: 200 });
    expect(parseContentRange('bytes 0-9/*')).toEqual({ start: 0, end: 9, total: null });
    expect(parseContentRange('garbage')).toBeNull();
    expect(resumePlan(100, 206, 'bytes 100-199/200', '100')).toEqual({ keep: 100, total: 200 });
    expect(resumePlan(100, 200, null, '200')).toEqual({ keep: 0, total: 200 }); // Range ignored: start over
    expect(resumePlan(0, 200, null, null)).toEqual({ keep: 0, total: null });
    expect(() => resumePlan(100, 206, 'bytes 50-199/200', '150')).toThrow(/Content-Range/);
  });

  it('progress sums every file started', () => {
    const p = new ProgressTracker(3);
    p.update('a', 10, 100);
    const s = p.update('b', 5, null);
    expect(s).toMatchObject({ loaded: 15, total: 105, filesDone: 0, filesTotal: 3 });
    expect(p.update('a', 100, 100, true)).toMatchObject({ loaded: 105, total: 105, filesDone: 1 });
  });
});

describe('downloads', () => {
  it('downloads a whole model, config first, into the store; a second run reads the store only', async () => {
    const files = tinyFiles();
    const hub = fakeHub(files);
    const store = new MemoryFileStore();
    const seen: number[] = [];
    const m = await downloadModel({ repo: REPO, base: BASE, fetch: hub.fetch, store, onProgress: (p) => seen.push(p.loaded) });
    expect(hub.log[0].url).toMatch(/config\.json$/);
    expect(hub.log.map((r) => r.url.split('/').pop())).toEqual(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors.index.json', 'model.safetensors']);
    expect(m.checkpoint.safetensors[0]).toEqual(files.get('model.safetensors'));
    expect(loadCheckpoint(m.checkpoint).config.vocabSize).toBe(64);
    expect(seen.at(-1)).toBe([...files.values()].reduce((a, b) => a + b.length, 0));
    hub.log.length = 0;
    await downloadModel({ repo: REPO, base: BASE, fetch: hub.fetch, store });
    expect(hub.log.map((r) => r.url.split('/').pop())).toEqual(['model.safetensors.index.json']); // 404s are not cached
  });

  it('a cut connection keeps the bytes; the retry asks for the rest with Range and the file is exact', async () => {
    const files = tinyFiles();
    const size = files.get('model.safetensors')!.length;
    const hub = fakeHub(files, { cutAfter: 3 * 4096 });
    const store = new MemoryFileStore();
    const key = fileKey(BASE, REPO, 'main', 'model.safetensors');
    await expect(downloadFile({ fetch: hub.fetch, store, key })).rejects.toThrow(/connection lost after 12288 bytes/);
    expect(store.partial.get(key.url)!.length).toBe(12288);
    const bytes = await downloadFile({ fetch: hub.fetch, store, key });
    expect(hub.log.at(-1)!.range).toBe('bytes=12288-');
    expect(bytes).toEqual(files.get('model.safetensors'));
    expect(bytes!.length).toBe(size);
    expect(store.partial.size).toBe(0);
  });

  it('a server that ignores Range gives the whole file again, and the partial bytes are dropped', async () => {
    const files = tinyFiles();
    const hub = fakeHub(files, { cutAfter: 4096, ignoreRange: true });
    const store = new MemoryFileStore();
    const key = fileKey(BASE, REPO, 'main', 'model.safetensors');
    await expect(downloadFile({ fetch: hub.fetch, store, key })).rejects.toThrow(/connection lost/);
    const bytes = await downloadFile({ fetch: hub.fetch, store, key });
    expect(hub.log.at(-1)!.range).toBe('bytes=4096-');
    expect(bytes).toEqual(files.get('model.safetensors'));
  });

  it('a body shorter than its Content-Length is kept as partial bytes; 416 on resume starts the file again', async () => {
    const file = tinyFiles().get('model.safetensors')!;
    const store = new MemoryFileStore();
    const key = fileKey(BASE, REPO, 'main', 'model.safetensors');
    const ranges: Array<string | null> = [];
    const fetch: FetchLike = async (_url, init) => {
      const range = init?.headers?.Range ?? null;
      ranges.push(range);
      if (ranges.length === 1) return new Response(file.slice(0, 5000), { headers: { 'content-length': String(file.length) } });
      if (range !== null) return new Response('', { status: 416, headers: { 'content-range': `bytes */${file.length}` } });
      return new Response(file.slice(), { headers: { 'content-length': String(file.length) } });
    };
    await expect(downloadFile({ fetch, store, key })).rejects.toThrow(`received 5000 of ${file.length} bytes`);
    expect(store.partial.get(key.url)!.length).toBe(5000);
    expect(await downloadFile({ fetch, store, key })).toEqual(file);
    expect(ranges).toEqual([null, 'bytes=5000-', null]);
  });

  it('cancel keeps the bytes received and throws CancelledError', async () => {
    const hub = fakeHub(tinyFiles());
    const store = new MemoryFileStore();
    const key = fileKey(BASE, REPO, 'main', 'model.safetensors');
    const ctl = new AbortController();
    const p = downloadFile({ fetch: hub.fetch, store, key, signal: ctl.signal, onProgress: (n) => n >= 8192 && ctl.abort() });
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    expect(store.partial.get(key.url)!.length).toBeGreaterThanOrEqual(8192);
  });

  it('404 → HubFileNotFoundError naming the file', async () => {
    const files = tinyFiles();
    files.delete('tokenizer.json');
    const err = await downloadModel({ repo: REPO, base: BASE, fetch: fakeHub(files).fetch, store: new MemoryFileStore() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubFileNotFoundError);
    expect((err as HubFileNotFoundError).file).toBe('tokenizer.json');
  });

  it('a corrupt safetensors header stops the download at the header', async () => {
    const files = tinyFiles();
    const good = files.get('model.safetensors')!;
    const bad = good.slice();
    bad.fill(0x7b, 8, 40); // '{{{{…' — not JSON
    files.set('model.safetensors', bad);
    const hub = fakeHub(files, { chunk: 1024 });
    let last = 0;
    const store = new MemoryFileStore();
    const err = await downloadModel({ repo: REPO, base: BASE, fetch: hub.fetch, store, onProgress: (p) => (last = p.fileLoaded) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptModelFileError);
    expect(err).toBeInstanceOf(CorruptHeaderError);
    expect(last).toBeLessThan(good.length / 2);
    expect(store.partial.size).toBe(0);
  });

  it('header checks: a huge length, a header past the end of the file', () => {
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
    expect(() => new SafetensorsHeaderCheck(1000).feed(huge)).toThrow(CorruptHeaderError);
    const long = new Uint8Array(8);
    new DataView(long.buffer).setBigUint64(0, 5000n, true);
    expect(() => new SafetensorsHeaderCheck(1000).feed(long)).toThrow(/claims 5000/);
  });

  it('an unsupported architecture is refused before any weight is requested', async () => {
    const files = tinyFiles();
    files.set('config.json', new TextEncoder().encode(JSON.stringify({ architectures: ['LlamaForCausalLM'] })));
    const hub = fakeHub(files);
    const err = await downloadModel({ repo: REPO, base: BASE, fetch: hub.fetch, store: new MemoryFileStore() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedArchitectureError);
    expect(hub.log.some((r) => r.url.endsWith('.safetensors'))).toBe(false);
  });

  it('a full cache → CacheQuotaError with the size needed and how to free space', async () => {
    const full = {
      open: async () => ({
        match: async () => undefined,
        put: async () => {
          throw new DOMException('quota', 'QuotaExceededError');
        },
        delete: async () => true,
      }),
    } as unknown as CacheStorage;
    const store = new CacheStorageFileStore(full);
    const err = await downloadFile({ fetch: fakeHub(tinyFiles()).fetch, store, key: fileKey(BASE, REPO, 'main', 'model.safetensors') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheQuotaError);
    expect((err as Error).message).toMatch(/needs [\d.]+ [kM]B more.*Clear/s);
  });
});
