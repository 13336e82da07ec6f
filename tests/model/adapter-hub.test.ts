/**
 * PEFT adapters from the Hub (src/model/adapter-hub.ts) against a real HTTP server on 127.0.0.1 serving files this
 * test writes to a temporary folder, through Node's own fetch: the adapter equals the one read from the same bytes,
 * a subfolder and a revision reach the right URLs, a second load comes from the store with no request, a bad config
 * is refused before the weights are requested, a 404 and a corrupt header are AdapterFileErrors naming the file, a
 * cancel rejects with hub.ts's CancelledError; and the same two files picked from disk.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { MemoryFileStore } from '../../src/model/cache.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, AdapterFileError, readPeftAdapter, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { downloadPeftAdapter } from '../../src/model/adapter-hub.ts';
import { CancelledError } from '../../src/util/cancelled.ts';
import { createLoraAdapter, type LoraConfig } from '../../src/model/lora.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

const MODEL = tinyModelConfig({ vocabSize: 300 });
const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'], dropout: 0, useRslora: false };
const adapter = createLoraAdapter(MODEL, LORA, createRng(1), (rng) => rng.next() - 0.5);
const written = writePeftAdapter(adapter, { modelId: 'Qwen/Qwen3-0.6B', config: MODEL });

let root: string;
let server: Server;
let base: string;
const requests: string[] = [];

/** Writes `owner/name/resolve/{revision}/{path}` under the served folder. */
function serve(repo: string, revision: string, path: string, bytes: Uint8Array | string): void {
  const file = join(root, repo, 'resolve', revision, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'adapter-hub-'));
  serve('me/good', 'main', ADAPTER_WEIGHTS_FILE, written[ADAPTER_WEIGHTS_FILE]);
  serve('me/good', 'main', ADAPTER_CONFIG_FILE, written[ADAPTER_CONFIG_FILE]);
  serve('me/multi', 'v2', `sql/${ADAPTER_WEIGHTS_FILE}`, written[ADAPTER_WEIGHTS_FILE]);
  serve('me/multi', 'v2', `sql/${ADAPTER_CONFIG_FILE}`, written[ADAPTER_CONFIG_FILE]);
  serve('me/no-weights', 'main', ADAPTER_CONFIG_FILE, written[ADAPTER_CONFIG_FILE]);
  serve('me/dora', 'main', ADAPTER_CONFIG_FILE, JSON.stringify({ ...(JSON.parse(written[ADAPTER_CONFIG_FILE]) as object), use_dora: true }));
  serve('me/dora', 'main', ADAPTER_WEIGHTS_FILE, written[ADAPTER_WEIGHTS_FILE]);
  const corrupt = written[ADAPTER_WEIGHTS_FILE].slice();
  corrupt[8] = 0x5d; // the header JSON now starts with ']'
  serve('me/corrupt', 'main', ADAPTER_CONFIG_FILE, written[ADAPTER_CONFIG_FILE]);
  serve('me/corrupt', 'main', ADAPTER_WEIGHTS_FILE, corrupt);
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const file = join(root, path);
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const bytes = readFileSync(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

function since(start: number): string[] {
  return requests.slice(start);
}

async function rejection(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => null,
    (e: unknown) => e,
  );
}

describe('downloadPeftAdapter', () => {
  it('downloads config then weights; the adapter equals the one read from the same bytes; a second load is cached', async () => {
    const store = new MemoryFileStore();
    const progress: number[] = [];
    const start = requests.length;
    const loaded = await downloadPeftAdapter('me/good', { model: MODEL, base, store, onProgress: (p) => progress.push(p.filesDone) });
    expect(since(start)).toEqual([`/me/good/resolve/main/${ADAPTER_CONFIG_FILE}`, `/me/good/resolve/main/${ADAPTER_WEIGHTS_FILE}`]);
    expect(loaded.baseModel).toBe('Qwen/Qwen3-0.6B');
    expect(loaded.label).toBe('me/good');
    expect(loaded.adapter).toEqual(readPeftAdapter({ safetensors: written[ADAPTER_WEIGHTS_FILE], configJson: written[ADAPTER_CONFIG_FILE] }, MODEL));
    expect(Math.max(...progress)).toBe(2);

    const again = requests.length;
    await downloadPeftAdapter('me/good', { model: MODEL, base, store });
    expect(since(again)).toEqual([]);
  });

  it('a subfolder and a revision', async () => {
    const start = requests.length;
    const loaded = await downloadPeftAdapter('me/multi', { model: MODEL, base, revision: 'v2', subfolder: '/sql/', store: new MemoryFileStore() });
    expect(since(start)).toEqual([`/me/multi/resolve/v2/sql/${ADAPTER_CONFIG_FILE}`, `/me/multi/resolve/v2/sql/${ADAPTER_WEIGHTS_FILE}`]);
    expect(loaded.label).toBe('me/multi/sql');
    expect(loaded.adapter.config).toEqual(LORA);
  });

  it('a missing file, a refused config (before the weights move) and a corrupt header are AdapterFileErrors', async () => {
    const missing = await rejection(downloadPeftAdapter('me/no-weights', { model: MODEL, base, store: new MemoryFileStore() }));
    expect(missing).toBeInstanceOf(AdapterFileError);
    expect((missing as AdapterFileError).file).toBe(ADAPTER_WEIGHTS_FILE);
    expect((missing as Error).message).toMatch(/not found in me\/no-weights at revision main \(404/);

    const start = requests.length;
    const dora = await rejection(downloadPeftAdapter('me/dora', { model: MODEL, base, store: new MemoryFileStore() }));
    expect(dora).toBeInstanceOf(AdapterFileError);
    expect((dora as Error).message).toMatch(/DoRA/);
    expect(since(start)).toEqual([`/me/dora/resolve/main/${ADAPTER_CONFIG_FILE}`]);

    const store = new MemoryFileStore();
    const corrupt = await rejection(downloadPeftAdapter('me/corrupt', { model: MODEL, base, store }));
    expect(corrupt).toBeInstanceOf(AdapterFileError);
    expect((corrupt as AdapterFileError).file).toBe(ADAPTER_WEIGHTS_FILE);
    expect((corrupt as Error).message).toMatch(/not a valid safetensors file/);
    expect(store.complete.size).toBe(1); // the config only: the corrupt weights were not kept

    const wider = tinyModelConfig({ vocabSize: 300, hiddenSize: 96, headDim: 24 });
    const shape = await rejection(downloadPeftAdapter('me/good', { model: wider, base, store: new MemoryFileStore() }));
    expect((shape as AdapterFileError).tensor).toBe('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight');
  });

  it('cancel rejects with hub.ts\'s CancelledError', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await rejection(downloadPeftAdapter('me/good', { model: MODEL, base, store: new MemoryFileStore(), signal: controller.signal }))).toBeInstanceOf(CancelledError);
  });
});
