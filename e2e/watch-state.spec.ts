/**
 * State that doesn't lie, in Watch and Evaluate (issue 12, items 4, 5, 9 and 10): New episode draws another question;
 * the link follows the chosen policy at once (Watch and Evaluate); Evaluate's episode table fits a phone's width; with
 * the tiny random Qwen3 (e2e/llm-fixtures.ts) a step shows "Generating… N tokens", the chosen policy survives Apply
 * settings, Evaluate's progress moves within an episode, and the Model panel's source and settings survive a reload
 * (with a one-click reload offered, and a notice where a chosen model policy went away with the page).
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, modelPanel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-state');
});

test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

/** The current hash's query parameters. */
async function hashParams(page: Page): Promise<URLSearchParams> {
  return new URLSearchParams((await page.evaluate(() => location.hash)).split('?')[1] ?? '');
}

test('New episode draws another question, the links follow the chosen policy, and the episode table fits 390 px', async ({ page }) => {
  await openView(page, '#/watch');
  await expect(page.getByRole('status').filter({ hasText: 'Ready' })).toBeVisible();
  await expect.poll(async () => (await hashParams(page)).get('q')).not.toBeNull();
  const first = await hashParams(page);

  // New episode, question drawn at random: another question (the seed moves on), not a replay.
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect.poll(async () => (await hashParams(page)).get('seed')).toBe(String(Number(first.get('seed')) + 1));
  const second = await hashParams(page);
  expect(second.get('q')).not.toBe(first.get('q'));
  await expect(page.getByRole('spinbutton', { name: 'Seed' })).toHaveValue(second.get('seed') ?? '');

  // Choosing a policy rewrites the link at once, before any new episode.
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('random');
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe('random');
  expect((await hashParams(page)).get('q')).toBe(second.get('q'));
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('random');

  // Evaluate: its link names the form's policy, and follows it.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption('random');
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe('random');
  await form.getByRole('combobox', { name: 'Policy' }).selectOption('oracle');
  await expect.poll(async () => (await hashParams(page)).get('policy')).toBe('oracle');

  // A phone: the episode table fits the width, no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  if (await all.isChecked()) await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('3');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  const table = page.getByRole('table').filter({ hasText: 'Outcome' });
  await expect(table.getByRole('row')).toHaveCount(4);
  const widths = await table.evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement?.clientWidth ?? 0, page: document.documentElement.scrollWidth }));
  expect(widths.table, 'table width vs its box').toBeLessThanOrEqual(widths.box);
  expect(widths.page, 'page width').toBeLessThanOrEqual(390);
});

test('with the tiny model: Generating… N tokens, the policy survives Apply settings, Evaluate moves within an episode, the Model panel survives a reload', async ({ page, context }) => {
  test.setTimeout(300_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny-state', dir);
  await openView(page, '#/watch');
  const panel = await loadServedModel(page, 'tiny-state', { maxNewTokens: 48, temperature: 0, weights: 'f16' });
  const policy = page.getByRole('combobox', { name: 'Policy' });
  await expect(policy).toHaveValue('qwen');

  // A Qwen step says it is generating, with the tokens so far.
  await page.getByRole('button', { name: 'New episode' }).click();
  await expect(page.getByText('Ready: press Play or Step.')).toBeVisible();
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  const generating = page.getByRole('status', { name: 'Generating' });
  await expect(generating).toContainText(/Generating… \d+ tokens? of at most 48/, { timeout: 60_000 });
  await expect(page.getByRole('list', { name: 'Transcript of qwen' }).getByRole('listitem')).toHaveCount(1, { timeout: 120_000 });
  await expect(generating).toHaveCount(0);

  // Apply settings keeps the policy chosen (it used to switch back to plain Qwen), and so does the link.
  await policy.selectOption('random');
  await panel.getByRole('spinbutton', { name: 'Max new tokens' }).fill('12');
  await panel.getByRole('button', { name: 'Apply settings' }).click();
  await expect(panel.getByRole('status', { name: 'Model loaded' })).toContainText('at most 12 new tokens a turn');
  await expect(policy).toHaveValue('random');
  expect((await hashParams(page)).get('policy')).toBe('random');

  // Evaluate with Qwen: the step in play and its tokens, before any episode has finished.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption('qwen');
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('1');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  const progress = page.getByRole('region', { name: 'Evaluation in progress' });
  await expect(progress.getByRole('status', { name: 'Episode in play' })).toContainText(/Episode 1: step \d+ of at most 10 · Generating…/, { timeout: 60_000 });
  await expect(progress.getByRole('status', { name: 'Episode in play' })).toContainText(/step [2-9] of at most 10/, { timeout: 120_000 });
  await expect(progress).toContainText(/at most about .+ left/);
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(progress).toHaveCount(0, { timeout: 60_000 });

  // A reload: the Model panel's source and settings are back, with a one-click reload offered; Evaluate's Qwen went
  // away with the page, and the form says so.
  await page.reload();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Watch' }).click();
  const again = modelPanel(page);
  await expect(again.getByRole('combobox', { name: 'Model source' })).toHaveValue('url');
  await expect(again.getByRole('textbox', { name: 'Folder URL' })).toHaveValue('models/tiny-state/');
  await expect(again.getByRole('spinbutton', { name: 'Max new tokens' })).toHaveValue('12');
  await expect(again.getByRole('combobox', { name: 'Decode weights' })).toHaveValue('f16');
  await expect(again.getByRole('status', { name: 'Model before the reload' })).toContainText('was loaded before this page reloaded');
  await expect(again.getByRole('button', { name: /Load .+ again/ })).toBeEnabled();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
  await expect(page.getByRole('status', { name: 'Policy changed' })).toContainText("The policy 'qwen' you chose is not available now");
  await expect(form.getByRole('combobox', { name: 'Policy' })).toHaveValue('oracle');
  expect(outside, 'requests that left the app').toEqual([]);
});
