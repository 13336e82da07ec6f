/**
 * The Train form's settings, as a person meets them: a setting SFT and GRPO share keeps its value across a switch
 * of algorithm while each algorithm keeps its own (steps); under SFT no settings group is empty (no "Sampling and
 * loss" box); everything survives a reload, and a form saved by an older version (one whole config per algorithm)
 * opens with its edits. Then a 1-step SFT run on the tiny served model (e2e/llm-fixtures.ts, tiny settings): its
 * summary names the step's reward and success as the Oracle demonstrations', and gives the model's own success from
 * the evaluations, so an untrained model is not shown "success 100%" as its own.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel } from './llm-fixtures.ts';

function trainForm(page: Page): Locator {
  return page.getByRole('form', { name: 'Training settings' });
}

async function fill(form: Locator, values: Record<string, number>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await form.getByRole('spinbutton', { name: label, exact: true }).fill(String(value));
}

async function expectValues(form: Locator, values: Record<string, number>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await expect(form.getByRole('spinbutton', { name: label, exact: true }), label).toHaveValue(String(value));
}

async function chooseAlgo(form: Locator, algo: 'sft' | 'grpo'): Promise<void> {
  await form.getByRole('combobox', { name: 'Algorithm' }).selectOption(algo);
}

async function openAdvanced(form: Locator): Promise<void> {
  const advanced = form.locator('details.advanced');
  if ((await advanced.getAttribute('open')) === null) await form.getByText('Advanced settings').click();
  await expect(form.getByRole('spinbutton', { name: 'LoRA rank' })).toBeVisible();
}

/** Every settings group on screen holds at least one field. */
async function expectNoEmptyGroup(form: Locator): Promise<void> {
  const groups = form.getByRole('group');
  const count = await groups.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) {
    const group = groups.nth(i);
    const fields = await group.locator('input, select').count();
    expect(fields, `fields in group '${await group.locator('legend').first().textContent()}'`).toBeGreaterThan(0);
  }
}

test('Train settings: shared ones keep one value across SFT and GRPO, no empty group, all kept on reload', async ({ page, shot }) => {
  await openView(page, '#/train');
  const form = trainForm(page);
  await chooseAlgo(form, 'grpo');
  await openAdvanced(form);
  await expect(form.getByRole('group', { name: 'Sampling and loss' })).toBeVisible();
  // Shared (max turns, tokens, LoRA rank, evaluation) and GRPO's own (steps, G).
  await fill(form, { 'Max turns': 2, 'Tokens per turn': 5, 'LoRA rank': 4, 'Eval questions per evaluation': 1, Steps: 7, 'Episodes per prompt (G)': 3 });
  // The choice settings: the schedule is shared, the loss normaliser GRPO's own.
  const schedule = form.getByRole('combobox', { name: 'Learning-rate schedule' });
  const normaliser = form.getByRole('combobox', { name: 'Loss normaliser' });
  await expect(schedule).toHaveValue('constant');
  await expect(normaliser).toHaveValue('dapo');
  await schedule.selectOption('linear');
  await normaliser.selectOption('dr_grpo');

  await chooseAlgo(form, 'sft');
  await expectValues(form, { 'Max turns': 2, 'Tokens per turn': 5, 'LoRA rank': 4, 'Eval questions per evaluation': 1, Steps: 50 });
  await expect(schedule).toHaveValue('linear');
  await expect(normaliser).toHaveCount(0);
  await expect(form.getByRole('group', { name: 'Sampling and loss' })).toHaveCount(0);
  await expectNoEmptyGroup(form);
  await shot('train-settings-sft');
  await fill(form, { Steps: 3, 'Transcripts per step': 1, 'Max turns': 4 });

  await chooseAlgo(form, 'grpo');
  await expectValues(form, { 'Max turns': 4, 'Tokens per turn': 5, 'LoRA rank': 4, Steps: 7, 'Episodes per prompt (G)': 3 });
  await expectNoEmptyGroup(form);

  await page.reload();
  await expect(form.getByRole('combobox', { name: 'Algorithm' })).toHaveValue('grpo');
  await openAdvanced(form);
  await expectValues(form, { 'Max turns': 4, 'Tokens per turn': 5, 'LoRA rank': 4, 'Eval questions per evaluation': 1, Steps: 7, 'Episodes per prompt (G)': 3 });
  await expect(schedule).toHaveValue('linear');
  await expect(normaliser).toHaveValue('dr_grpo');
  await chooseAlgo(form, 'sft');
  await expectValues(form, { 'Max turns': 4, 'LoRA rank': 4, Steps: 3, 'Transcripts per step': 1 });
});

test('Train settings: a form saved before settings were shared opens with the edits of both algorithms', async ({ page }) => {
  // What an older version wrote: one whole config per algorithm (here only the fields edited), SFT on screen.
  await page.addInitScript(() => {
    if (localStorage.getItem('sqlenv-settings') !== null) return;
    // Both edited max turns: the edit of the algorithm on screen (SFT) wins, and stays when switching to GRPO.
    const configs = { sft: { algo: 'sft', steps: 2, maxTurns: 3 }, grpo: { algo: 'grpo', steps: 9, loraRank: 8, maxTurns: 5 } };
    const trainForm = { algo: 'sft', configs, initAdapterId: '', adapterName: '' };
    localStorage.setItem('sqlenv-settings', JSON.stringify({ state: { trainForm }, version: 1 }));
  });
  await openView(page, '#/train');
  const form = trainForm(page);
  await expect(form.getByRole('combobox', { name: 'Algorithm' })).toHaveValue('sft');
  await openAdvanced(form);
  await expectValues(form, { Steps: 2, 'Max turns': 3, 'LoRA rank': 8 });
  await chooseAlgo(form, 'grpo');
  await expectValues(form, { Steps: 9, 'Max turns': 3, 'LoRA rank': 8 });
  await page.reload();
  await expect(form.getByRole('combobox', { name: 'Algorithm' })).toHaveValue('grpo');
  await openAdvanced(form);
  await expectValues(form, { Steps: 9, 'Max turns': 3, 'LoRA rank': 8 });
  await chooseAlgo(form, 'sft');
  await expectValues(form, { Steps: 2, 'Max turns': 3, 'LoRA rank': 8 });
});

test.describe('with the tiny model', () => {
  let dir = '';
  test.beforeAll(() => {
    dir = makeTinyModel('tiny-train-settings');
  });
  test.afterAll(() => {
    if (dir) rmSync(dirname(dir), { recursive: true, force: true });
  });

  test('Train: a 1-step SFT run names its reward and success as the Oracle demonstrations’, and shows the model’s own', async ({ page, context, shot }) => {
    test.setTimeout(480_000);
    const outside = await closeNetwork(context);
    await serveModel(context, 'tiny', dir);
    await openView(page, '#/watch');
    await loadServedModel(page, 'tiny', { weights: 'f16' });
    await page.getByRole('link', { name: 'Train this model' }).click();
    const form = trainForm(page);
    await chooseAlgo(form, 'sft');
    await openAdvanced(form);
    await fill(form, {
      Steps: 1,
      'Transcripts per step': 1,
      'Max turns': 2,
      'Tokens per turn': 4,
      'Tokens per episode': 1024,
      'Evaluate every (steps)': 1,
      'Train questions per evaluation': 1,
      'Eval questions per evaluation': 1,
      'Trace every (steps)': 0,
      'Checkpoint every (steps)': 0,
      'LoRA rank': 2,
    });
    await form.getByRole('button', { name: 'Start training' }).click();
    const status = page.getByRole('region', { name: 'Training run' }).getByRole('status', { name: 'Training status' });
    // Generous: on SwiftShader, shared with other work, the step and its two evaluations took 1–3 minutes.
    await expect(status).toContainText('Finished: step 1 of 1', { timeout: 400_000 });

    const summary = page.getByRole('region', { name: 'Charts' }).getByLabel('Latest step');
    const terms = await summary.getByRole('term').allTextContents();
    // The demonstrations' figures are named as the Oracle's; no bare "reward"/"success" reads as the model's.
    expect(terms).not.toContain('reward');
    expect(terms).not.toContain('success');
    // Each term ends in its InfoTip's "?" (what the figure means, for touch screens too).
    await expect(summary).toContainText(/Oracle demonstrations \(not the model\)\?reward \d+\.\d{3} · success 100%/);
    // The model's own success, from the evaluation after step 1: a random tiny model answers nothing right.
    await expect(summary).toContainText('model (last evaluation)?success train 0% · eval 0% (step 1)');
    await expect(page.getByRole('region', { name: 'Charts' })).toContainText('the reward and success above are the Oracle’s, not the model’s');
    await shot('train-sft-summary');
    expect(outside, 'requests that left the app').toEqual([]);
  });
});
