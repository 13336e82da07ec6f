/**
 * A language-model episode in the app, end to end: a tiny random Qwen3 (e2e/llm-fixtures.ts) is served to the page,
 * loaded in Watch's Model panel onto WebGPU (SwiftShader here), and plays one episode on the demo data. Random
 * weights produce garbage, so every step is an invalid action with a reason; the episode must end without a crash,
 * with the model's text and its tokens per second in the transcript. No request leaves 127.0.0.1 (transformers.js
 * must never fetch its WASM from a CDN).
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel();
});

test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('a Qwen policy on the tiny model plays an episode to its end in Watch', async ({ page, context, shot }) => {
  test.setTimeout(300_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny', dir);

  await openView(page, '#/watch');
  // f16, the reference format: the panel's default (q4) dequantises in every matmul, slower on SwiftShader.
  await loadServedModel(page, 'tiny', { maxNewTokens: 16, weights: 'f16' });

  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen');
  await page.getByRole('combobox', { name: 'Question', exact: true }).selectOption({ label: 'By id' });
  await page.getByRole('combobox', { name: 'Question id' }).fill('demo-library-001');
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: 'Instant' });
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await page.getByRole('button', { name: 'Play', exact: true }).click();

  const outcome = page.getByRole('status', { name: 'Episode result' });
  await expect(outcome).toBeVisible({ timeout: 240_000 });
  await expect(outcome).not.toContainText('Success');
  const steps = page.getByRole('list', { name: 'Transcript of qwen' }).getByRole('listitem');
  expect(await steps.count()).toBeGreaterThanOrEqual(1);
  const first = steps.first();
  await expect(first.locator('.badge')).toHaveText('error');
  await expect(first).toContainText(/invalid|no tool call|tool call|cut off|token limit/i);
  await expect(first.locator('.raw-text summary')).toContainText(/\d+ tokens, \d+\.\d tokens\/s/);
  await first.locator('.raw-text summary').click();
  await expect(first.locator('.raw-text pre')).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('watch-qwen-tiny');
  expect(outside, 'requests that left the app').toEqual([]);
});
