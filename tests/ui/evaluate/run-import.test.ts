/**
 * Importing run files into the page (src/ui/evaluate/run-import.ts), with the run store replaced by a spy: a good
 * file is saved under its own id with progress reported; a refused file (hostile, unknown dataset, too large by its
 * declared size or by what the server streams) saves nothing. Fetches are answered by hand-made Responses.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENV_VERSION } from '../../../src/env/env.ts';
import { RUN_FILE_LIMITS, toRunFile } from '../../../src/eval/run-file.ts';
import type { EpisodeRecord } from '../../../src/eval/transcript.ts';

const saveRun = vi.fn<(run: unknown) => Promise<void>>(() => Promise.resolve());
vi.mock('../../../src/eval/run-store.ts', () => ({ saveRun: (run: unknown) => saveRun(run) }));
const { importRunText, importRunUrl, isRunUrl } = await import('../../../src/ui/evaluate/run-import.ts');

function record(i: number): EpisodeRecord {
  return {
    policy: 'oracle',
    dataset: 'demo',
    questionId: `q${i}`,
    dbId: 'library',
    question: `Question ${i}?`,
    difficulty: 'easy',
    split: 'eval',
    seed: i,
    success: i % 2 === 0,
    episodeReturn: i % 2 === 0 ? 1 : 0,
    components: { correctness: i % 2 === 0 ? 1 : 0, progress: 0, operational: 0 },
    steps: 0,
    terminated: true,
    truncated: false,
    transcript: [],
  };
}

const text = (dataset = 'demo', n = 120) =>
  toRunFile({ envVersion: ENV_VERSION, id: 'run-shared', dataset, split: 'eval', policy: 'oracle', model: 'm', adapter: null, seed: 0, settings: {}, createdAt: 5, durationMs: 1, writer: 'cli' }, Array.from({ length: n }, (_, i) => ({ ...record(i), dataset })));
const knowsDemo = { knowsDataset: (d: string) => Promise.resolve(d === 'demo') };

beforeEach(() => {
  saveRun.mockClear();
  vi.stubGlobal('location', { href: 'http://127.0.0.1:4173/' });
});
afterEach(() => vi.unstubAllGlobals());

describe('importing a run file', () => {
  it('saves it under the file’s run id, with its figures, reporting progress', async () => {
    const progress: Array<[number, number]> = [];
    const imported = await importRunText(text(), { ...knowsDemo, onProgress: (d, t) => progress.push([d, t]) });
    expect(saveRun).toHaveBeenCalledTimes(1);
    expect(imported.summary).toMatchObject({ id: 'run-shared', episodes: 120, success_rate: 0.5, model: 'm', writer: 'cli' });
    expect(progress.at(-1)).toEqual([120, 120]);
    expect(progress.length).toBeGreaterThan(1);
  });

  it('saves nothing for a refused file or a dataset this page cannot load', async () => {
    await expect(importRunText(text().replace('"success":true', '"success":1'), knowsDemo)).rejects.toThrow(/must be true or false/);
    await expect(importRunText(text('spider'), knowsDemo)).rejects.toThrow("dataset 'spider', which this page cannot load");
    expect(saveRun).not.toHaveBeenCalled();
  });
});

describe('importing from a URL', () => {
  it('reads a run file a server returns', async () => {
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(text(), { status: 200 }))));
    expect((await importRunUrl('https://runs.example/a.jsonl', knowsDemo)).summary.id).toBe('run-shared');
    expect(saveRun).toHaveBeenCalledTimes(1);
  });

  it('refuses a body declared too large before reading it, and one that streams past the limit', async () => {
    const declared = new Response('x', { headers: { 'content-length': String(RUN_FILE_LIMITS.fileBytes + 1) } });
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(declared)));
    await expect(importRunUrl('https://runs.example/big', knowsDemo)).rejects.toThrow(/a run file may be at most 128 MiB/);
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024 * 1024);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response(endless))));
    await expect(importRunUrl('https://runs.example/endless', knowsDemo)).rejects.toThrow(/a run file may be at most 128 MiB/);
    expect(pulled).toBeLessThanOrEqual(RUN_FILE_LIMITS.fileBytes / chunk.byteLength + 2);
    expect(saveRun).not.toHaveBeenCalled();
  });

  it('refuses what is not an http(s) URL, and says when the server refuses', async () => {
    await expect(importRunUrl('file:///etc/passwd', knowsDemo)).rejects.toThrow('over http or https, not file:');
    vi.stubGlobal('fetch', vi.fn(() => Promise.resolve(new Response('no', { status: 404, statusText: 'Not Found' }))));
    await expect(importRunUrl('https://runs.example/missing', knowsDemo)).rejects.toThrow('answered 404 Not Found');
    expect([isRunUrl('https://x/y.jsonl'), isRunUrl('HTTP://x'), isRunUrl('run-123')]).toEqual([true, true, false]);
  });
});
