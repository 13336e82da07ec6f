/**
 * Cancelling a whole checkpoint download (`downloadModel` with an AbortSignal, as the Model panel's Cancel does) and
 * loading it again: files finished before the cancel are read from the store, not fetched again; the interrupted
 * weights resume with a Range request from the byte where they stopped; the result equals an uninterrupted download.
 * A signal already aborted stops before anything is read, cached files included.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { MemoryFileStore } from '../../src/model/cache.ts';
import { toHfConfigJson } from '../../src/model/config.ts';
import { downloadModel, type FetchLike } from '../../src/model/hub.ts';
import { CancelledError } from '../../src/util/cancelled.ts';
import { writeSafetensors } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';

const BASE = 'https://mirror.test/hf';
const REPO = 'tiny/model';
const enc = (x: unknown) => new TextEncoder().encode(JSON.stringify(x));

function files(): Map<string, Uint8Array> {
  const config = tinyModelConfig({ vocabSize: 512 });
  const weights = randomModelWeights(config, createRng(2));
  return new Map([
    ['config.json', enc(toHfConfigJson(config))],
    ['generation_config.json', enc({ eos_token_id: [1] })],
    ['tokenizer.json', enc({ model: {} })],
    ['tokenizer_config.json', enc({})],
    ['model.safetensors', writeSafetensors(new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: t.data }])))],
  ]);
}

/** A Hub that honours Range, streams 4 KiB chunks and stops a body when the request's signal aborts. */
function hub(served: Map<string, Uint8Array>) {
  const log: Array<{ file: string; range: string | null }> = [];
  const fetch: FetchLike = async (url, init) => {
    const file = decodeURIComponent(url.slice(`${BASE}/${REPO}/resolve/main/`.length));
    const range = init?.headers?.Range ?? null;
    log.push({ file, range });
    const bytes = served.get(file);
    if (!bytes) return new Response('not found', { status: 404 });
    const start = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
    const body = bytes.subarray(start);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (init?.signal?.aborted) return controller.error(new DOMException('aborted', 'AbortError'));
        if (at >= body.length) return controller.close();
        controller.enqueue(body.slice(at, at + 4096));
        at += 4096;
      },
    });
    const headers: Record<string, string> = { 'content-length': String(body.length) };
    if (range) headers['content-range'] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    return new Response(stream, { status: range ? 206 : 200, headers });
  };
  return { fetch, log };
}

describe('cancel and resume a checkpoint download', () => {
  it('keeps finished files and the partial weights; the next download resumes and equals a fresh one', async () => {
    const served = files();
    const weightsSize = served.get('model.safetensors')!.length;
    expect(weightsSize).toBeGreaterThan(40_000);
    const h = hub(served);
    const store = new MemoryFileStore();
    const ctl = new AbortController();
    const first = downloadModel({ repo: REPO, base: BASE, fetch: h.fetch, store, signal: ctl.signal, onProgress: (p) => p.file === 'model.safetensors' && p.fileLoaded >= 16_384 && ctl.abort() });
    await expect(first).rejects.toBeInstanceOf(CancelledError);
    expect(store.complete.size).toBe(4);
    const partial = [...store.partial.values()];
    expect(partial).toHaveLength(1);
    const kept = partial[0].length;
    expect(kept).toBeGreaterThanOrEqual(16_384);
    expect(kept).toBeLessThan(weightsSize);

    h.log.length = 0;
    const again = await downloadModel({ repo: REPO, base: BASE, fetch: h.fetch, store });
    expect(h.log).toEqual([
      { file: 'model.safetensors.index.json', range: null },
      { file: 'model.safetensors', range: `bytes=${kept}-` },
    ]);
    expect(again.checkpoint.safetensors[0]).toEqual(served.get('model.safetensors'));
    expect(store.partial.size).toBe(0);
  });

  it('a signal already aborted reads nothing, not even cached files', async () => {
    const h = hub(files());
    const store = new MemoryFileStore();
    await downloadModel({ repo: REPO, base: BASE, fetch: h.fetch, store });
    const ctl = new AbortController();
    ctl.abort();
    h.log.length = 0;
    await expect(downloadModel({ repo: REPO, base: BASE, fetch: h.fetch, store, signal: ctl.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(h.log).toEqual([]);
  });
});
