/**
 * The Train view's task picker (issue 27): "Toy: learn to read" trains a tiny model the page builds itself — no model
 * loaded, nothing downloaded — in the training worker on WebGPU (SwiftShader here), shortened only through the
 * fields the page offers. A person sees the SFT warm-up, then GRPO, in the run card, then the result line with the
 * fresh success before and after GRPO and the exact fixed-answer ceiling (0.2067); Stop ends a run with no result.
 * The run seed is drawn per run and printed (SQLENV_TEST_SEED replays it).
 */
import type { Locator, Page } from '@playwright/test';
import { testSeed } from '../tests/fixtures/seed.ts';
import { expect, openView, test } from './fixtures.ts';

/** Bounds for "it happens", not speed limits: on a shared 2-core machine (SwiftShader) the short run took 1.5–3 min, of which ~25 s is making the GPU model. */
const RUN_MS = 240_000;

async function openToyTask(page: Page, sizes: Record<string, number>): Promise<Locator> {
  await openView(page, '#/train');
  await page.getByRole('radio', { name: /Toy: learn to read/ }).check();
  const form = page.getByRole('form', { name: 'Toy task settings' });
  await expect(form).toContainText('no loaded model is needed');
  // The defaults come from the worker (the run's own sizes); the ceiling is what reading must beat.
  await expect(form).toContainText('0.2067');
  await expect(form).toContainText('(2 layers, hidden 32)'); // the model the worker builds (TOY_MODEL)
  for (const [label, value] of Object.entries(sizes)) await form.getByRole('spinbutton', { name: label, exact: true }).fill(String(value));
  return form;
}

/** Every heading the run card shows from now on (a stage shown briefly is still seen). */
async function recordRunHeadings(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    const w = window as unknown as { __headings: string[] };
    w.__headings = seen;
    const look = () => {
      const text = document.querySelector('section[aria-label="Training run"] h3')?.textContent ?? '';
      if (text !== '' && seen.at(-1) !== text) seen.push(text);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __headings: string[] }).__headings);
}

test('the toy task runs SFT then GRPO with no model loaded and shows the result against the ceiling', async ({ page, pageErrors }) => {
  test.setTimeout(RUN_MS + 60_000);
  const seed = testSeed('e2e/train-task.spec.ts');
  const form = await openToyTask(page, { 'Run seed': seed, 'SFT steps': 1, 'GRPO steps': 1, 'SFT databases': 2, 'GRPO databases': 2, 'Fresh databases': 2 });
  const headings = await recordRunHeadings(page);
  const started = Date.now();
  await form.getByRole('button', { name: 'Start the toy run' }).click();
  const run = page.getByRole('region', { name: 'Training run' });
  await expect(run.getByRole('status', { name: 'Training status' })).toContainText('Finished', { timeout: RUN_MS });
  console.log(`toy run (1 SFT + 1 GRPO step, 2 + 2 + 2 databases), seed ${seed}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  expect(await headings()).toEqual(['SFT on Toy: learn to read', 'GRPO on Toy: learn to read']);
  // The GRPO stage's charts: its own step (the SFT stage's were cleared) and its curve's evaluations.
  await expect(page.getByRole('region', { name: 'Charts' }).getByRole('definition').first()).toHaveText('1 of 1');
  const result = page.getByRole('region', { name: 'Toy run result' });
  const line = result.getByRole('status', { name: 'Fresh success' });
  await expect(line).toContainText(/Fresh success: [01]\.\d{3} before GRPO \(the control\) → [01]\.\d{3} after; fixed-answer ceiling 0\.2067\./);
  await expect(result).toContainText(`Run seed ${seed}, 10 fresh episodes`);
  console.log(`toy run result: ${await line.textContent()} ${await result.locator('p').last().textContent()}`);
  expect(pageErrors).toEqual([]);
});

test('Stop ends a toy run within the step under way, with no result', async ({ page, pageErrors }) => {
  test.setTimeout(RUN_MS);
  const form = await openToyTask(page, { 'SFT steps': 2000, 'SFT databases': 2, 'GRPO databases': 1, 'Fresh databases': 1 });
  await form.getByRole('button', { name: 'Start the toy run' }).click();
  const run = page.getByRole('region', { name: 'Training run' });
  // The warm-up has begun: the run is training (its model made), not loading.
  await expect(run.getByRole('status', { name: 'Training status' })).toContainText('SFT warm-up: 2000 steps', { timeout: RUN_MS });
  await expect(run.getByRole('button', { name: 'Pause' })).toBeDisabled();
  await run.getByRole('button', { name: 'Stop' }).click();
  const status = run.getByRole('status', { name: 'Training status' });
  await expect(status).toContainText('Stopped', { timeout: 30_000 });
  await expect(status).toContainText('no checkpoint or adapter');
  await expect(page.getByRole('region', { name: 'Toy run result' })).toHaveCount(0);
  // The form is free again.
  await expect(form.getByRole('button', { name: 'Start the toy run' })).toBeEnabled();
  expect(pageErrors).toEqual([]);
});
