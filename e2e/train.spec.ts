/**
 * The Train view end to end on a tiny random Qwen3 (e2e/llm-fixtures.ts) in SwiftShader: the view says when no
 * model is loaded; invalid settings are refused with the setting named; a 3-step GRPO run on the demo dataset with
 * tiny settings (G = 2, one prompt, one turn, a few tokens) fills the charts, shows a trace, pauses, resumes and
 * stops, leaving a checkpoint that, after a reload (and the model loaded again), is listed and resumes the run to its
 * end, its charts continuing from the saved history; the trained adapter downloads as one zip of the PEFT files and plays
 * as a policy in Watch, and they load back from files; a 1-step SFT run shows a loss point; narrow and dark, the view
 * does not scroll sideways. No request leaves 127.0.0.1.
 *
 * The model's weights are random, so nothing is learned here: the learning tests are elsewhere (tests/train,
 * e2e/gpu/train-learning.spec.ts). This is the page's journey.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Download, Locator, Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-train');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

/** Seconds one SwiftShader step may take at most (a step here is a few hundred tokens through a 2-layer model). */
const STEP_MS = 90_000;

async function fillSettings(form: Locator, values: Record<string, number>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await form.getByRole('spinbutton', { name: label, exact: true }).fill(String(value));
}

function chart(page: Page, title: string): Locator {
  return page.getByRole('region', { name: 'Charts' }).getByRole('img', { name: new RegExp(`^${title.replace(/[()]/g, '\\$&')}:`) });
}

async function openTrainWithModel(page: Page): Promise<Locator> {
  await openView(page, '#/watch');
  await loadServedModel(page, 'tiny', { weights: 'f16' });
  await page.getByRole('link', { name: 'Train this model' }).click();
  return page.getByRole('form', { name: 'Training settings' });
}

test('Train: GRPO with pause, resume, stop, a checkpoint resumed after a reload, the adapter downloaded and in Watch; SFT', async ({ page, context, shot }) => {
  test.setTimeout(420_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny', dir);

  // No model yet: the view says so and links to the Model panel.
  await openView(page, '#/train');
  await expect(page.getByRole('note')).toContainText('No model is loaded');
  await expect(page.getByRole('button', { name: 'Start training' })).toBeDisabled();
  await expect(page.getByRole('link', { name: 'Watch’s Model panel' })).toHaveAttribute('href', '#/watch');

  let form = await openTrainWithModel(page);
  const controls = page.getByRole('region', { name: 'Training run' });
  const status = controls.getByRole('status', { name: 'Training status' });
  await form.getByRole('combobox', { name: 'Algorithm' }).selectOption('grpo');
  await form.getByText('Advanced settings').click();
  await fillSettings(form, {
    Steps: 3,
    'Prompts per step': 1,
    'Max turns': 1,
    'Tokens per turn': 4,
    'Tokens per episode': 1024,
    'Evaluate every (steps)': 2,
    'Train questions per evaluation': 1,
    'Eval questions per evaluation': 1,
    'Trace every (steps)': 1,
    'Checkpoint every (steps)': 1,
    'LoRA rank': 2,
  });

  // Invalid settings are refused, naming the setting and marking its field.
  await fillSettings(form, { 'Episodes per prompt (G)': 1 });
  await form.getByRole('button', { name: 'Start training' }).click();
  await expect(form.getByRole('alert', { name: 'Settings problem' })).toContainText('Episodes per prompt (G) must be at least 2');
  await expect(form.getByRole('spinbutton', { name: 'Episodes per prompt (G)' })).toHaveAttribute('aria-invalid', 'true');
  await expect(status).toHaveCount(0);
  await fillSettings(form, { 'Episodes per prompt (G)': 2, 'Adam β2': 1 });
  await form.getByRole('button', { name: 'Start training' }).click();
  await expect(form.getByRole('alert', { name: 'Settings problem' })).toContainText('Adam β2 must be in [0, 1)');
  await fillSettings(form, { 'Adam β2': 0.99 });
  await form.getByRole('textbox', { name: 'Adapter name' }).fill('e2e grpo');

  // Start; the charts get points, a trace appears; pause, resume, pause, stop.
  await form.getByRole('button', { name: 'Start training' }).click();
  await expect(status).toContainText(/Loading|Running/);
  await expect(chart(page, 'Reward per step')).toHaveAccessibleName(/: [1-3] points?;/, { timeout: 2 * STEP_MS });
  await expect(page.getByRole('region', { name: 'Execution traces' }).locator('details.trace').first()).toContainText(/Step \d: (correct|not correct), reward/);
  await controls.getByRole('button', { name: 'Pause' }).click();
  await expect(status).toContainText('Paused');
  await controls.getByRole('button', { name: 'Resume' }).click();
  await expect(status).toContainText('Running');
  await controls.getByRole('button', { name: 'Pause' }).click();
  await expect(status).toContainText('Paused');
  await controls.getByRole('button', { name: 'Stop' }).click();
  await expect(status).toContainText(/^(Stopped|Finished)/, { timeout: 2 * STEP_MS });
  const stoppedAt = Number(/step (\d) of 3/.exec((await status.textContent()) ?? '')?.[1]);
  expect(stoppedAt).toBeGreaterThanOrEqual(1);
  for (const title of ['Loss', 'Tokens per second', 'Seconds per step', 'GPU memory in use']) await expect(chart(page, title)).toHaveAccessibleName(new RegExp(`: ${stoppedAt} points?;`));
  await expect(chart(page, 'Success rate (train vs eval)')).toHaveAccessibleName(/: [1-9] points?; latest train \d+, eval \d+/);
  const checkpoint = page.getByRole('list', { name: 'Checkpoint list' }).getByRole('listitem').first();
  await expect(checkpoint).toContainText(`GRPO · step ${stoppedAt} of 3`);
  await shot('train-grpo-stopped');

  // A reload: the checkpoint is listed; with the model loaded again, it resumes the run to its end.
  await page.reload();
  form = await openTrainWithModel(page);
  await expect(checkpoint).toContainText(`GRPO · step ${stoppedAt} of 3`);
  await checkpoint.getByRole('button', { name: 'Resume' }).click();
  await expect(status).toContainText('Finished: step 3 of 3', { timeout: (4 - stoppedAt) * STEP_MS });
  await expect(chart(page, 'Reward per step')).toHaveAccessibleName(/: 3 points;/);

  // The trained adapter: PEFT's files to download (with the model card), and a policy of Watch.
  const adapter = page.getByRole('list', { name: 'Adapter list' }).getByRole('listitem', { name: 'e2e grpo' });
  await expect(adapter).toContainText('trained here');
  const downloads: Download[] = [];
  page.on('download', (d) => downloads.push(d));
  await adapter.getByRole('button', { name: 'Download' }).click();
  // One download: a zip of the adapter's folder (issue 24, item 10: it used to start one download per file).
  await expect.poll(() => downloads.map((d) => d.suggestedFilename())).toEqual(['e2e-grpo.zip']);
  const zipped = unzipSync(readFileSync(await downloads[0].path()));
  expect(Object.keys(zipped).sort()).toEqual(['e2e-grpo/README.md', 'e2e-grpo/adapter_config.json', 'e2e-grpo/adapter_model.safetensors']);
  const unzipped = Object.entries(zipped).map(([path, bytes]) => ({ name: path.split('/').pop()!, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) }));
  const card = strFromU8(zipped['e2e-grpo/README.md']);
  expect(card).toMatch(/^---\n(?:.*\n)*?library_name: peft\n/);
  const config = JSON.parse(strFromU8(zipped['e2e-grpo/adapter_config.json'])) as { peft_type?: string; r?: number };
  expect(config.peft_type).toBe('LORA');
  expect(config.r).toBe(2);
  // The files load back as an adapter of their own (the card is not needed for that, and is passed along).
  const adapters = page.getByRole('region', { name: 'Adapters' });
  await adapters.getByRole('textbox', { name: 'Name (optional)' }).fill('e2e reloaded');
  await adapters.getByLabel('Adapter files').setInputFiles(unzipped);
  await adapters.getByRole('button', { name: 'Load from files' }).click();
  await expect(adapters.getByRole('status', { name: 'Adapter load' })).toContainText('Loaded e2e reloaded');
  await expect(page.getByRole('list', { name: 'Adapter list' }).getByRole('listitem', { name: 'e2e reloaded' })).toContainText('from files');
  const policy = (await adapter.locator('code').textContent()) ?? '';
  expect(policy).not.toBe('');
  await adapter.getByRole('button', { name: 'Watch' }).click();
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue(policy);

  // SFT warm-up: one step on Oracle transcripts gives a loss point.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Train' }).click();
  await form.getByRole('combobox', { name: 'Algorithm' }).selectOption('sft');
  await form.getByText('Advanced settings').click();
  await fillSettings(form, { Steps: 1, 'Transcripts per step': 1, 'Tokens per episode': 1024, 'Evaluate every (steps)': 0, 'Trace every (steps)': 0, 'Checkpoint every (steps)': 0, 'LoRA rank': 2 });
  await form.getByRole('button', { name: 'Start training' }).click();
  await expect(status).toContainText('Finished: step 1 of 1', { timeout: 2 * STEP_MS });
  await expect(chart(page, 'Loss')).toHaveAccessibleName(/: 1 point; latest loss \d+\.\d{4}/);
  await shot('train-sft');

  // Narrow and dark: the view folds to one column without sideways scrolling.
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // Polled: the charts follow the new width when their ResizeObserver fires, a frame or two later.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot('train-narrow-dark');
  expect(outside, 'requests that left the app').toEqual([]);
});
