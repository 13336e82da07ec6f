/**
 * Watch does what it shows, and a reload tells one story (issue 24, items 2 and 6):
 *  - with an Oracle episode on screen, choosing Random restarts that episode (same question, same seed) with Random:
 *    Step plays Random, and the link, the dropdown and the transcript all say so;
 *  - with "Qwen + adapter" chosen (a PEFT adapter written here in Node for the tiny random Qwen3 of
 *    e2e/llm-fixtures.ts, loaded through the Train view's Adapters panel), a reload shows exactly one message (Oracle
 *    plays instead, and why) and no "Unknown policy" error; loading the model again chooses the adapter, not plain
 *    Qwen, and restarts the episode with it.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { createRng } from '../src/data/rng.ts';
import { writePeftAdapter } from '../src/model/adapter-file.ts';
import { parseModelConfig } from '../src/model/config.ts';
import { createLoraAdapter } from '../src/model/lora.ts';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, modelPanel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-switch');
});

test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

/** The current hash's query parameters. */
async function hashParams(page: Page): Promise<URLSearchParams> {
  return new URLSearchParams((await page.evaluate(() => location.hash)).split('?')[1] ?? '');
}

/** The heading over the episode on screen: "Steps (<policy>, seed N)", the policy that plays it. */
function stepsHeading(page: Page) {
  return page.getByRole('region', { name: 'Steps' }).getByRole('heading');
}

/** PEFT files of a small adapter (rank 2 on q_proj, B non-zero) for the tiny model in `dir`. */
function adapterFiles(modelDir: string): Array<{ name: string; mimeType: string; buffer: Buffer }> {
  const config = parseModelConfig(JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')));
  const adapter = createLoraAdapter(config, { rank: 2, alpha: 4, targetModules: ['q_proj'], dropout: 0, useRslora: false }, createRng(7), () => 0.01);
  const files = writePeftAdapter(adapter, { modelId: 'tiny-switch', config });
  return [
    { name: 'adapter_model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(files['adapter_model.safetensors']) },
    { name: 'adapter_config.json', mimeType: 'application/json', buffer: Buffer.from(files['adapter_config.json']) },
  ];
}

test('choosing Random with an Oracle episode on screen: Random plays it, and the link and the transcript agree', async ({ page }) => {
  await openView(page, '#/watch');
  const policy = page.getByRole('combobox', { name: 'Policy' });
  await expect(policy).toHaveValue('oracle');
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await expect.poll(async () => (await hashParams(page)).get('q')).not.toBeNull();
  const before = await hashParams(page);

  await policy.selectOption('random');
  // The episode on screen is Random's now: same question and seed, nothing played yet.
  await expect(stepsHeading(page)).toHaveText(`Steps (random, seed ${before.get('seed')})`);
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Transcript of random' }).getByRole('listitem')).toHaveCount(1);
  await expect(page.getByRole('list', { name: 'Transcript of oracle' })).toHaveCount(0);
  const after = await hashParams(page);
  expect([after.get('policy'), after.get('q'), after.get('seed')]).toEqual(['random', before.get('q'), before.get('seed')]);
});

test('after a reload with Qwen + adapter chosen: one message, and loading the model again brings the adapter back', async ({ page, context }) => {
  test.setTimeout(300_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny-switch', dir);
  await openView(page, '#/watch');
  await loadServedModel(page, 'tiny-switch', { maxNewTokens: 8, temperature: 0, weights: 'f16' });

  // An adapter for it, loaded from PEFT files in the Train view, then watched.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Train' }).click();
  const adapters = page.getByRole('region', { name: 'Adapters' });
  await adapters.getByRole('textbox', { name: 'Name (optional)' }).fill('e2e switch');
  await adapters.getByLabel('Adapter files').setInputFiles(adapterFiles(dir));
  await adapters.getByRole('button', { name: 'Load from files' }).click();
  await expect(adapters.getByRole('status', { name: 'Adapter load' })).toContainText('Loaded e2e switch');
  const item = page.getByRole('list', { name: 'Adapter list' }).getByRole('listitem', { name: 'e2e switch' });
  const adapterPolicy = (await item.locator('code').textContent()) ?? '';
  expect(adapterPolicy).toMatch(/^qwen\+/);
  await item.getByRole('button', { name: 'Watch' }).click();
  const policy = page.getByRole('combobox', { name: 'Policy' });
  await expect(policy).toHaveValue(adapterPolicy);
  // The episode on screen follows the choice (it was the base model's).
  await expect(stepsHeading(page)).toContainText(`(${adapterPolicy}, seed`);
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe(adapterPolicy);

  await page.reload();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await expect(policy).toHaveValue('oracle');
  // One message, in the form: Oracle plays instead of the adapter, which comes back with its model. No red error.
  const notice = page.getByRole('status', { name: 'Policy changed' });
  await expect(notice).toHaveCount(1);
  await expect(notice).toContainText(`The policy '${adapterPolicy}' you chose is not available now`);
  await expect(notice).toContainText('Oracle plays instead');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText(/Unknown policy/)).toHaveCount(0);
  await expect(stepsHeading(page)).toContainText('(oracle, seed');
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe('oracle');

  // Loading the model again chooses the adapter (not plain Qwen), and the episode on screen plays it.
  await modelPanel(page).getByRole('button', { name: /Load .+ again/ }).click();
  await expect(modelPanel(page).getByRole('status', { name: 'Model loaded' })).toContainText('qwen3', { timeout: 120_000 });
  await expect(policy).toHaveValue(adapterPolicy);
  await expect(notice).toHaveCount(0);
  await expect(stepsHeading(page)).toContainText(`(${adapterPolicy}, seed`);
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe(adapterPolicy);
  expect(outside, 'requests that left the app').toEqual([]);
});
