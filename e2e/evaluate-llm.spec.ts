/**
 * Evaluate with the Qwen policy, end to end on a tiny random Qwen3 (e2e/llm-fixtures.ts) in SwiftShader: the model
 * is loaded in Watch's Model panel (one token a turn, greedy, so each step is cheap), then Evaluate runs it on two
 * demo eval episodes. Random weights produce garbage, so every step is an invalid action and each episode ends at
 * the step budget; the run must complete, be saved and listed, and its transcript show the model's text with the
 * prompt size and speeds. No request leaves 127.0.0.1.
 */
import { dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-eval');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('Evaluate with the qwen policy on the tiny model completes two episodes and saves the run', async ({ page, context, shot }) => {
  test.setTimeout(600_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny', dir);
  await openView(page, '#/watch');
  await loadServedModel(page, 'tiny', { maxNewTokens: 1, temperature: 0, weights: 'f16' });

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Qwen (tiny)' });
  await form.getByRole('combobox', { name: 'Split' }).selectOption('eval');
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  if (await all.isChecked()) await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('2');
  await form.getByRole('spinbutton', { name: 'Seed' }).fill('0');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.getByRole('region', { name: 'Evaluation in progress' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Qwen (tiny) · demo/eval · 2 episodes', level: 3 })).toBeVisible({ timeout: 540_000 });
  await expect(page.getByRole('region', { name: 'Evaluation in progress' })).toHaveCount(0);
  await expect(page.getByText('saved in this browser')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Saved runs' }).getByRole('listitem').first()).toContainText('Qwen (tiny) · demo/eval · 2 episodes');
  await expect(page.locator('.summary-figures > div', { hasText: 'Success rate' }).getByRole('definition')).toHaveText('0%');
  const rows = page.getByRole('table').filter({ hasText: 'Outcome' }).getByRole('row');
  await expect(rows).toHaveCount(3);
  await shot('evaluate-qwen-tiny');
  expect(outside, 'requests that left the app').toEqual([]);
});
