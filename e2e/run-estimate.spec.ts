/**
 * Estimates before a model run (issue 24 item 5), on a tiny random Qwen3 (e2e/llm-fixtures.ts) in SwiftShader:
 * with Qwen chosen, Evaluate shows, before anything runs, the run's size (episodes × turns × tokens per turn, the
 * split's question count when every question is ticked), a time bound from the Train view's plan saying the speed is
 * not measured yet, and the model settings the run will use; Oracle shows none of it (instant). Watch shows the
 * episode's estimate before Play, and after one step it rests on the speed measured from that step, for the turns left.
 */
import { dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel, watchSteps } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-estimate');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

test('Evaluate and Watch show the estimate and the model settings before a Qwen run starts', async ({ page, context, shot }) => {
  test.setTimeout(300_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny', dir);
  await openView(page, '#/watch');
  await loadServedModel(page, 'tiny', { maxNewTokens: 3, temperature: 0, weights: 'f16' });

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Evaluate' }).click();
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Oracle' });
  await expect(form.getByRole('region', { name: 'Run estimate' })).toHaveCount(0);

  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Qwen (tiny)' });
  await form.getByRole('combobox', { name: 'Split' }).selectOption('eval');
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  await all.check();
  const count = Number(/\((\d+)\)/.exec((await all.locator('xpath=..').textContent()) ?? '')?.[1]);
  expect(count).toBeGreaterThan(1);
  const estimate = form.getByRole('region', { name: 'Run estimate' });
  await expect(estimate).toContainText(`${count} episodes × 10 turns × 3 tokens per turn = at most ${(count * 30).toLocaleString('en')} generated tokens`);
  await expect(estimate).toContainText(/Arithmetic alone takes about \d+(\.\d)? (s|min|h) by the Train view's time plan \(a software WebGPU adapter/);
  await expect(estimate).toContainText('not measured yet');
  const setting = (name: string) => estimate.locator('.run-settings > div', { has: page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole('definition');
  await expect(setting('Policy')).toHaveText('Qwen (tiny)');
  await expect(setting('Model')).toContainText('tiny');
  await expect(setting('LoRA adapter')).toHaveText('none (base model)');
  await expect(setting('Decode weights')).toHaveText('f16');
  await expect(setting('Tokens per turn')).toHaveText('at most 3');
  await expect(setting('Temperature')).toHaveText('0 (greedy)');

  await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('2');
  await expect(estimate).toContainText('2 episodes × 10 turns × 3 tokens per turn = at most 60 generated tokens');
  await shot('run-estimate-evaluate');
  // Nothing ran: the estimate came before any run.
  await expect(page.getByRole('region', { name: 'Evaluation in progress' })).toHaveCount(0);

  // Watch, on the same loaded model (one load for both views: loading is most of this test's time).
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Watch' }).click();
  const setup = page.getByRole('form', { name: 'Episode setup' });
  await setup.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Qwen (tiny)' });
  const watchEstimate = setup.getByRole('region', { name: 'Run estimate' });
  await expect(watchEstimate).toContainText('1 episode × 10 turns × 3 tokens per turn = at most 30 generated tokens');
  await expect(watchEstimate).toContainText('not measured yet');
  await shot('run-estimate-watch');

  await watchSteps(page, 'demo-library-001', 1);
  await expect(watchEstimate).toContainText('rest of this episode: 1 episode × 9 turns × 3 tokens per turn');
  await expect(watchEstimate).toContainText(/at the speed measured on this page \(decode \d+\.\d tokens\/s, prefill \d+\.\d tokens\/s, over 1 turn\)/);
  expect(outside, 'requests that left the app').toEqual([]);
});
