/**
 * The Model panel, as a person uses it, on a tiny random Qwen3 (e2e/llm-fixtures.ts) in SwiftShader:
 *  - settings reach the policy: 1-shot (applied without reloading) makes the first prompt longer than zero-shot,
 *    the transcript states prompt size, prefill and decode speeds apart; Unload removes the policy (back to Oracle);
 *  - a local folder picked with the directory input (`setInputFiles` on a folder) loads, and a folder missing
 *    tokenizer.json or holding a corrupt safetensors header fails with the reader's error naming the file;
 *  - a Hub mirror on the app's origin: a download cancelled mid-weights leaves its finished files cached, the cache
 *    lists both models with sizes, a second load resumes from the cache (config.json not fetched again), and Clear
 *    (one model) and Clear all empty it.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, fillSettings, loadServedModel, makeTinyModel, modelPanel, promptTokens, serveModel, watchSteps } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-panel');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('panel settings reach the policy; prefill and decode speeds in the transcript; Unload', async ({ page, context, shot }) => {
  test.setTimeout(300_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny', dir);
  await openView(page, '#/watch');
  const panel = await loadServedModel(page, 'tiny', { maxNewTokens: 3, temperature: 0, weights: 'f16' });
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText(/f16 weights.*zero-shot, thinking off, greedy, at most 3 new tokens/);
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen');

  const zero = (await watchSteps(page, 'demo-library-001', 1)).first();
  await expect(zero.locator('.raw-text summary')).toContainText(/\d+ tokens, \d+\.\d tokens\/s overall; prompt \d+ tokens, prefill \d+\.\d tokens\/s; decode \d+\.\d tokens\/s/);
  const zeroTokens = await promptTokens(zero);

  await fillSettings(panel, { shots: '1' });
  await panel.getByRole('button', { name: 'Apply settings' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('1-shot');
  const one = (await watchSteps(page, 'demo-library-001', 1)).first();
  const oneTokens = await promptTokens(one);
  expect(oneTokens, 'a 1-shot prompt holds a whole Oracle episode more').toBeGreaterThan(zeroTokens + 50);
  await shot('model-panel-settings');

  await panel.getByRole('button', { name: 'Unload' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('oracle');
  await expect(page.getByRole('combobox', { name: 'Policy' }).locator('option[value="qwen"]')).toHaveCount(0);
  expect(outside, 'requests that left the app').toEqual([]);
});

test('a local folder picked with the directory input loads; missing and corrupt files are named', async ({ page, context }) => {
  test.setTimeout(240_000);
  await closeNetwork(context);
  const root = dirname(dir);
  const missing = join(root, 'no-tokenizer');
  cpSync(dir, missing, { recursive: true });
  rmSync(join(missing, 'tokenizer.json'));
  const corrupt = join(root, 'corrupt');
  cpSync(dir, corrupt, { recursive: true });
  const bytes = readFileSync(join(corrupt, 'model.safetensors'));
  bytes.writeUInt32LE(0xffffff, 0); // a header length far past the end of the file
  writeFileSync(join(corrupt, 'model.safetensors'), bytes);

  await openView(page, '#/watch');
  const panel = modelPanel(page);
  await panel.getByRole('combobox', { name: 'Model source' }).selectOption({ label: 'Local folder on this computer' });
  const input = panel.getByLabel('Model folder');
  const load = panel.getByRole('button', { name: 'Load model' });
  await fillSettings(panel, { maxNewTokens: 3 });

  await input.setInputFiles(missing);
  await expect(panel).toContainText(/no-tokenizer: \d+ files/);
  await load.click();
  await expect(panel.getByRole('alert')).toContainText("tokenizer.json in the folder 'no-tokenizer' is missing");

  await input.setInputFiles(corrupt);
  await load.click();
  await expect(panel.getByRole('alert')).toContainText("model.safetensors in the folder 'corrupt' is not a valid safetensors file");

  await input.setInputFiles(dir);
  await load.click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('Loaded tiny-panel: qwen3', { timeout: 120_000 });
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen');
  // A local folder is never cached.
  await expect(panel.getByRole('region', { name: 'Model cache' })).toContainText('No models are cached in this browser.');
});

test('Hub mirror: cancel mid-download, resume from the cache, list and clear the cache', async ({ page, context }) => {
  test.setTimeout(300_000);
  await closeNetwork(context);
  const files = new Map(['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'].map((f) => [f, readFileSync(join(dir, f))]));
  const requests: string[] = [];
  /** While set, the next model.safetensors response waits for it (so the test can cancel during the download). */
  let hold: Promise<void> | null = null;
  let release = (): void => undefined;
  let weightsAsked = (): void => undefined;
  const weightsRequested = new Promise<void>((resolve) => (weightsAsked = resolve));
  await context.route('**/__hub/**', async (route) => {
    const m = /\/__hub\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(new URL(route.request().url()).pathname);
    const file = m ? decodeURIComponent(m[2]) : '';
    requests.push(`${m?.[1]}/${file}`);
    const body = files.get(file);
    if (!m || !body) return route.fulfill({ status: 404, body: 'Entry not found' });
    if (file === 'model.safetensors' && hold) {
      weightsAsked();
      await hold;
      return route.fulfill({ status: 200, body }).catch(() => undefined); // the page gave up on it
    }
    return route.fulfill({ status: 200, body, contentType: 'application/octet-stream' });
  });

  await openView(page, '#/watch');
  const mirror = new URL('__hub', page.url()).href.replace(/#.*$/, '');
  const panel = modelPanel(page);
  const cache = panel.getByRole('region', { name: 'Model cache' });
  await expect(cache).toContainText('No models are cached in this browser.');
  await fillSettings(panel, { maxNewTokens: 3 });
  await panel.getByRole('textbox', { name: 'Mirror (base URL)' }).fill(mirror);
  const hubId = panel.getByRole('combobox', { name: 'Hub id' });

  // 1. Cancel while the weights are downloading: the finished small files stay cached.
  hold = new Promise<void>((resolve) => (release = resolve));
  await hubId.fill('tiny/other');
  await panel.getByRole('button', { name: 'Load model' }).click();
  await weightsRequested;
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByRole('alert')).toContainText('Loading was cancelled');
  hold = null;
  release();
  const other = cache.getByRole('listitem').filter({ hasText: 'tiny/other' });
  await expect(other).toContainText(/4 files/);

  // 2. A full download of another repo.
  await hubId.fill('tiny/qwen3');
  await panel.getByRole('button', { name: 'Load model' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('Loaded tiny/qwen3', { timeout: 120_000 });
  const qwen = cache.getByRole('listitem').filter({ hasText: 'tiny/qwen3' });
  await expect(qwen).toContainText(/\d+(\.\d)? MB, 5 files/);
  await expect(cache.getByRole('listitem')).toHaveCount(2);

  // 3. Loading the cancelled one again resumes from the cache: its small files are not fetched again.
  const before = requests.filter((r) => r === 'tiny/other/config.json').length;
  await hubId.fill('tiny/other');
  await panel.getByRole('button', { name: 'Load model' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('Loaded tiny/other', { timeout: 120_000 });
  expect(requests.filter((r) => r === 'tiny/other/config.json').length).toBe(before);
  await expect(other).toContainText(/5 files/);

  // 4. Clear one, then all.
  await cache.getByRole('button', { name: `Clear tiny/qwen3 from ${mirror}` }).click();
  await expect(cache.getByRole('listitem')).toHaveCount(1);
  await expect(cache.getByRole('listitem')).toContainText('tiny/other');
  await cache.getByRole('button', { name: 'Clear all' }).click();
  await expect(cache).toContainText('No models are cached in this browser.');
});
