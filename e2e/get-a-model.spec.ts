/**
 * Getting a model is discoverable (issue 24, item 1):
 *  - Watch's Model panel says, before any download starts, how big the default Hub model is and how long it takes
 *    (from the browser's reported speed, or a stated assumption); it says how a folder comes to be served
 *    (`npm run model:tiny`, public/models/tiny/) and fills in models/tiny/ on request; it says what a local folder
 *    holds. Help has a "Get a model" section that Train's no-model note links to.
 *  - A model with random test weights (the mark `npm run model:tiny` writes in config.json) says "Random test
 *    weights: expect nonsense" in the Model panel, and under the policy in Watch and Evaluate while a policy playing
 *    it is chosen; not under Oracle.
 * Nothing here leaves 127.0.0.1: the estimate is shown with the network closed, so it cannot come from a download.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, modelPanel, serveModel } from './llm-fixtures.ts';

/** The default Hub model's size as the page writes it (src/model/registry.ts: Qwen3-0.6B, about 1.52 GB). */
const QWEN3_SIZE = '1.52 GB';

/** Makes the page's `navigator.connection.downlink` read `mbps` (Chromium's own is whatever the machine has). */
async function reportDownlink(page: Page, mbps: number | null): Promise<void> {
  await page.addInitScript((value) => {
    Object.defineProperty(Navigator.prototype, 'connection', { configurable: true, get: () => (value === null ? undefined : { downlink: value }) });
  }, mbps);
}

test('the Model panel gives the Hub download size and time before any download; folders say how to get one', async ({ page, context, shot }) => {
  const outside = await closeNetwork(context);
  await reportDownlink(page, 5);
  await openView(page, '#/watch');
  const panel = modelPanel(page);
  await expect(panel.getByRole('combobox', { name: 'Model source' })).toHaveValue('hub');
  // 1.52 GB at 5 Mbit/s is 2432 s: about 41 min.
  const size = panel.getByRole('note', { name: 'Download size' });
  await expect(size).toContainText(`about ${QWEN3_SIZE}`);
  await expect(size).toContainText('about 41 min at 5 Mbit/s, the speed this browser reports');
  await shot('get-a-model-hub');

  await panel.getByRole('combobox', { name: 'Model source' }).selectOption({ label: 'Folder served with the app (URL or path)' });
  await expect(panel.getByRole('note', { name: 'Served folder' })).toContainText('npm run model:tiny writes a small test model with random weights into public/models/tiny/');
  await panel.getByRole('button', { name: 'Use models/tiny/' }).click();
  await expect(panel.getByRole('textbox', { name: 'Folder URL' })).toHaveValue('models/tiny/');
  await expect(panel.getByRole('button', { name: 'Load model' })).toBeEnabled();

  await panel.getByRole('combobox', { name: 'Model source' }).selectOption({ label: 'Local folder on this computer' });
  await expect(panel.getByRole('note', { name: 'Local folder' })).toContainText('config.json, tokenizer.json, tokenizer_config.json and model.safetensors');

  // Train's no-model note leads to Help's "Get a model", which gives all three ways.
  await openView(page, '#/train');
  await page.getByRole('link', { name: 'Get a model' }).click();
  await expect(page).toHaveURL(/#\/help\?section=get-a-model$/);
  await expect(page.getByRole('heading', { name: 'Get a model', level: 3 })).toBeInViewport();
  const ways = page.getByRole('region', { name: 'Get a model' });
  await expect(ways.getByRole('note', { name: 'Download size' })).toContainText(`about ${QWEN3_SIZE}`);
  await expect(ways.getByRole('note', { name: 'Served folder' })).toBeVisible();
  await expect(ways.getByRole('note', { name: 'Local folder' })).toBeVisible();
  expect(outside, 'requests that left the app').toEqual([]);
});

test('without a reported speed, the estimate says which speed it assumed', async ({ page, context }) => {
  await closeNetwork(context);
  await reportDownlink(page, null);
  await openView(page, '#/watch');
  await expect(modelPanel(page).getByRole('note', { name: 'Download size' })).toContainText(/about \d+ min at \d+ Mbit\/s \(assumed: this browser does not report/);
});

test('a tiny model with random test weights says so in the Model panel, Watch and Evaluate', async ({ page, context, shot }) => {
  test.setTimeout(180_000);
  const dir = makeTinyModel('tiny');
  try {
    await closeNetwork(context);
    await serveModel(context, 'tiny', dir);
    await openView(page, '#/watch');
    const panel = await loadServedModel(page, 'tiny');
    await expect(panel.getByRole('note', { name: 'Test model' })).toContainText('Random test weights: expect nonsense.');
    await expect(panel.getByRole('note', { name: 'Test model' })).toContainText('npm run model:tiny, seed 0');

    const setup = page.getByRole('form', { name: 'Episode setup' });
    await expect(setup.getByRole('combobox', { name: 'Policy' })).toHaveValue('qwen');
    await expect(setup.getByRole('note', { name: 'Test model' })).toContainText('Random test weights: expect nonsense.');
    await shot('get-a-model-test-weights');
    await setup.getByRole('combobox', { name: 'Policy' }).selectOption('oracle');
    await expect(setup.getByRole('note', { name: 'Test model' }), 'Oracle does not play the model').toHaveCount(0);

    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
    const form = page.getByRole('form', { name: 'Evaluation settings' });
    await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Qwen (tiny)' });
    await expect(form.getByRole('note', { name: 'Test model' })).toContainText('Random test weights: expect nonsense.');
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});
