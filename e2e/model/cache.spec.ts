/**
 * Hub downloads into the browser's Cache Storage, in real Chromium: a tiny model (scripts/make-tiny-model.ts) served
 * by the test through `page.route` as if it were the Hub at a mirror URL on the app's own origin. Covers a full
 * download that loads, the cache listing and clearing, an interrupted download that resumes with a Range request,
 * and the typed errors for a 404, a corrupt safetensors header and an unsupported architecture.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page, type Request } from '@playwright/test';
import { PAGE_ENTRY, PAGE_HTML, pageBundle } from './bundle.ts';

const REPO = 'tiny/qwen3';
let dir = '';
let files = new Map<string, Buffer>();

test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tiny-model-'));
  execFileSync('npx', ['tsx', 'scripts/make-tiny-model.ts', '--out', dir, '--hidden', '32', '--dtype', 'bf16'], { stdio: 'pipe' });
  files = new Map(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'].map((f) => [f, readFileSync(join(dir, f))]));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Hub {
  requests: Array<{ file: string; range: string | null }>;
  /** Replace or drop (null) a file as served. */
  override: Map<string, Buffer | null>;
  /** Serve only the first N bytes of the next model.safetensors response (with the full Content-Length). */
  cutNextWeightsAt: number | null;
}

/** Serves the page and a fake Hub at /__hub on the page's origin. */
async function openPage(page: Page): Promise<{ hub: Hub; base: string }> {
  const code = await pageBundle(PAGE_ENTRY);
  const hub: Hub = { requests: [], override: new Map(), cutNextWeightsAt: null };
  await page.route('**/__model-page/**', (route) =>
    route.request().url().endsWith('/page.js') ? route.fulfill({ contentType: 'text/javascript', body: code }) : route.fulfill({ contentType: 'text/html', body: PAGE_HTML }),
  );
  await page.route('**/__hub/**', (route) => {
    const req: Request = route.request();
    const m = /\/__hub\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(new URL(req.url()).pathname);
    const file = m ? decodeURIComponent(m[2]) : '';
    const range = req.headers()['range'] ?? null;
    hub.requests.push({ file, range });
    const body = m && m[1] === REPO ? (hub.override.has(file) ? hub.override.get(file) : files.get(file)) : undefined;
    if (!body) return route.fulfill({ status: 404, body: 'Entry not found' });
    if (file === 'model.safetensors' && hub.cutNextWeightsAt !== null) {
      const cut = hub.cutNextWeightsAt;
      hub.cutNextWeightsAt = null;
      return route.fulfill({ status: 200, headers: { 'content-length': String(body.length), 'content-type': 'application/octet-stream' }, body: body.subarray(0, cut) });
    }
    const start = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
    if (start >= body.length) return route.fulfill({ status: 416, headers: { 'content-range': `bytes */${body.length}` }, body: '' });
    return route.fulfill({
      status: range ? 206 : 200,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(body.length - start),
        ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
      },
      body: body.subarray(start),
    });
  });
  await page.goto('./__model-page/index.html');
  await page.waitForFunction(() => document.title === 'model-page ready');
  await page.evaluate(() => window.modelPage!.clearAll());
  return { hub, base: new URL('./__hub', page.url()).href.replace('/__model-page', '') };
}

test.describe('model downloads into Cache Storage', () => {
  test.setTimeout(120_000);

  test('downloads, loads, lists with sizes, reads the cache the second time, clears', async ({ page }) => {
    const { hub, base } = await openPage(page);
    const r = await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const);
    expect(r).toMatchObject({ vocabSize: 151936, weightBytes: [files.get('model.safetensors')!.length] });
    const last = 'progress' in r ? r.progress.at(-1)! : null;
    expect(last?.loaded).toBe([...files.values()].reduce((a, b) => a + b.length, 0));
    const listed = await page.evaluate(() => window.modelPage!.list());
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ repo: REPO, revision: 'main', bytes: last?.loaded });
    expect(listed[0].files.map((f) => f.file).sort()).toEqual([...files.keys()].sort());

    hub.requests.length = 0;
    await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const);
    expect(hub.requests.map((q) => q.file)).toEqual(['model.safetensors.index.json']); // only the 404 probe

    expect(await page.evaluate((repo) => window.modelPage!.clearModel(repo), REPO)).toBe(5);
    expect(await page.evaluate(() => window.modelPage!.list())).toEqual([]);
  });

  test('an interrupted download keeps its bytes and resumes with a Range request', async ({ page }) => {
    const { hub, base } = await openPage(page);
    const cut = 3_000_000;
    hub.cutNextWeightsAt = cut;
    const first = await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const);
    expect(first).toMatchObject({ error: { name: 'HubHttpError' } });
    const listed = await page.evaluate(() => window.modelPage!.list());
    const partial = listed[0].files.find((f) => f.partial);
    expect(partial?.bytes).toBe(cut);

    const second = await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const);
    expect(second).toMatchObject({ vocabSize: 151936, weightBytes: [files.get('model.safetensors')!.length] });
    expect(hub.requests.filter((q) => q.file === 'model.safetensors').map((q) => q.range)).toEqual([null, `bytes=${cut}-`]);
    expect((await page.evaluate(() => window.modelPage!.list()))[0].files.some((f) => f.partial)).toBe(false);
  });

  test('a download cancelled mid-weights resumes from the bytes it had', async ({ page }) => {
    const { hub, base } = await openPage(page);
    const first = await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo, 1), [base, REPO] as const);
    expect(first).toMatchObject({ error: { name: 'CancelledError' } });
    const second = await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const);
    expect(second).toMatchObject({ weightBytes: [files.get('model.safetensors')!.length] });
    const ranges = hub.requests.filter((q) => q.file === 'model.safetensors').map((q) => q.range);
    expect(ranges[0]).toBeNull();
    expect(ranges[1]).toMatch(/^bytes=[1-9]\d*-$/);
  });

  test('typed errors: 404, corrupt header, unsupported architecture (before any weights)', async ({ page }) => {
    const { hub, base } = await openPage(page);
    hub.override.set('tokenizer.json', null);
    expect(await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const)).toMatchObject({
      error: { name: 'HubFileNotFoundError', message: expect.stringContaining('tokenizer.json not found in tiny/qwen3') as unknown },
    });

    hub.override.clear();
    const bad = Buffer.from(files.get('model.safetensors')!);
    bad.fill(0x7b, 8, 64);
    hub.override.set('model.safetensors', bad);
    expect(await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const)).toMatchObject({
      error: { name: 'CorruptModelFileError', message: expect.stringContaining('tiny/qwen3/model.safetensors is not a valid safetensors file') as unknown },
    });
    expect((await page.evaluate(() => window.modelPage!.list()))[0].files.some((f) => f.file === 'model.safetensors')).toBe(false);

    hub.override.clear();
    await page.evaluate(() => window.modelPage!.clearAll());
    hub.override.set('config.json', Buffer.from(JSON.stringify({ architectures: ['LlamaForCausalLM'], hidden_size: 32 })));
    hub.requests.length = 0;
    expect(await page.evaluate(([b, repo]) => window.modelPage!.download(b, repo), [base, REPO] as const)).toMatchObject({
      error: { name: 'UnsupportedArchitectureError', message: expect.stringContaining('LlamaForCausalLM') as unknown },
    });
    expect(hub.requests.some((q) => q.file.endsWith('.safetensors'))).toBe(false);
  });
});
