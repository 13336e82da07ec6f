/**
 * Training that never looks frozen (issue 24, items 3, 4 and the Train parts of 10), on a tiny random Qwen3
 * (e2e/llm-fixtures.ts) in SwiftShader, where one micro-batch's forward or backward pass takes seconds:
 *  - after Start, with Advanced settings open (a long form, Start at its bottom), the run's card is in view, and the
 *    whole form is locked while the run lasts;
 *  - inside an update the card names the pass under way (forward or backward, with its tokens), the headline counts
 *    the step in progress ("Running: step 1 of 2", not "step 0 of 2"), and the clock ticks while no report comes;
 *  - Pause takes hold inside the update, between two passes, and says truthfully that Resume goes on from there;
 *  - Stop reads "Stopped" (never "Finished") and the latest step's ETA gives no time.
 * The seconds each part took are printed (console.log).
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { closeNetwork, loadServedModel, makeTinyModel, serveModel } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-progress');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

/**
 * Generous bounds on SwiftShader on a shared, busy machine (loading the model for training took over 90 s there):
 * they catch a hang, they time nothing.
 */
const LOAD_MS = 300_000;
const PASS_MS = 120_000;

/** A pass of step `step`'s update: "Step 1: update, micro-batch 1 of 1: forward pass (612 tokens)". */
const passOf = (step: number) => new RegExp(`^Step ${step}: update, micro-batch \\d+ of \\d+: (reference forward|forward|backward) pass \\(\\d+ tokens\\)$`);

async function fillSettings(form: Locator, values: Record<string, number>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await form.getByRole('spinbutton', { name: label, exact: true }).fill(String(value));
}

/**
 * Records, from now on, every (activity sentence, clock line) pair the run card shows, so a clock that moves while
 * the sentence stays is seen however briefly.
 */
async function recordProgress(page: Page): Promise<() => Promise<Array<{ activity: string; clock: string }>>> {
  await page.evaluate(() => {
    const card = document.querySelector('[aria-label="Training run"]');
    const seen: Array<{ activity: string; clock: string }> = [];
    (window as unknown as { __progress: typeof seen }).__progress = seen;
    const read = () => {
      const line = card?.querySelector('.run-progress');
      if (!line) return;
      seen.push({ activity: line.querySelector('.run-activity')?.textContent ?? '', clock: line.querySelector('.meta')?.textContent ?? '' });
    };
    read();
    if (card) new MutationObserver(read).observe(card, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { __progress: Array<{ activity: string; clock: string }> }).__progress);
}

test('Train: progress moves inside an update, the run is in view and the form locked, Pause between passes, Stop reads Stopped', async ({ page, context, shot }) => {
  test.setTimeout(900_000);
  const outside = await closeNetwork(context);
  await serveModel(context, 'tiny-progress', dir);
  await openView(page, '#/watch');
  await loadServedModel(page, 'tiny-progress', { weights: 'f16' });
  await page.getByRole('link', { name: 'Train this model' }).click();
  const form = page.getByRole('form', { name: 'Training settings' });
  await form.getByRole('combobox', { name: 'Algorithm' }).selectOption('grpo');
  await form.getByText('Advanced settings').click();
  // Two short episodes a step; KL β > 0 so that every step updates (equal rewards alone would leave no gradient).
  await fillSettings(form, {
    Steps: 2,
    'Episodes per prompt (G)': 2,
    'Prompts per step': 1,
    'Max turns': 1,
    'Tokens per turn': 4,
    'Tokens per episode': 1024,
    'KL β': 0.01,
    'Evaluate every (steps)': 0,
    'Trace every (steps)': 0,
    'Checkpoint every (steps)': 0,
    'LoRA rank': 2,
  });

  const controls = page.getByRole('region', { name: 'Training run' });
  const status = controls.getByRole('status', { name: 'Training status' });
  const activity = controls.getByRole('status', { name: 'Run activity' });
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  await form.getByRole('button', { name: 'Start training' }).click();

  // The run's card comes into view (Start sat at the bottom of the long form), and the form is locked.
  await expect(controls).toBeInViewport();
  await expect(form.getByRole('spinbutton', { name: 'Steps', exact: true })).toBeDisabled();
  await expect(form.getByRole('combobox', { name: 'Algorithm' })).toBeDisabled();
  await expect(form.getByRole('spinbutton', { name: 'Learning rate', exact: true })).toBeDisabled();
  await expect(form.getByText('The settings are locked while a run lasts')).toBeVisible();
  await shot('train-progress-started');

  // Inside step 1's update: the pass under way is named, the headline counts step 1, and the clock ticks.
  const recorded = await recordProgress(page);
  await expect(activity).toHaveText(passOf(1), { timeout: LOAD_MS });
  console.log(`[train-progress] step 1's update named its pass ${seconds()} s after Start`);
  await expect(status).toHaveText(/^Running: step 1 of 2$/);
  await expect
    .poll(
      async () => {
        const pairs = (await recorded()).filter((p) => passOf(1).test(p.activity));
        // The same sentence with two different clocks: time moved with no report in between.
        return pairs.some((p, i) => pairs.slice(0, i).some((q) => q.activity === p.activity && q.clock !== p.clock));
      },
      { timeout: PASS_MS, message: 'the clock ticks while one pass runs' },
    )
    .toBe(true);
  console.log(`[train-progress] the clock ticked within a pass ${seconds()} s after Start`);
  await shot('train-progress-update');

  // Pause inside an update: it takes hold between two passes and says that nothing is redone.
  await expect(activity).toHaveText(/^Step [12]: update, micro-batch \d+ of \d+: forward pass/, { timeout: PASS_MS });
  const pausedIn = Number(/^Step (\d)/.exec((await activity.textContent()) ?? '')?.[1]);
  const pauseClicked = Date.now();
  await controls.getByRole('button', { name: 'Pause' }).click();
  await expect(status).toHaveText(new RegExp(`^Paused: step ${pausedIn} of 2 — Paused inside the update, between two passes: Resume goes on from there \\(nothing is redone\\)\\.$`), { timeout: PASS_MS });
  console.log(`[train-progress] Pause during step ${pausedIn}'s forward pass took hold ${((Date.now() - pauseClicked) / 1000).toFixed(1)} s after the click`);
  await expect(activity).toHaveText(new RegExp(`^Step ${pausedIn}: update, micro-batch`));
  await shot('train-progress-paused');
  await controls.getByRole('button', { name: 'Resume' }).click();
  await expect(status).toHaveText(/^Running: /);

  // Step 2 under way, then Stop: "Stopped" with step 1 done, and no time left estimated.
  await expect(status).toHaveText(/^Running: step 2 of 2$/, { timeout: 2 * PASS_MS });
  await controls.getByRole('button', { name: 'Stop' }).click();
  await expect(status).toHaveText(/^Stopped: step 1 of 2/, { timeout: PASS_MS });
  await expect(status).not.toContainText('Finished');
  const figures = page.getByRole('region', { name: 'Charts' }).getByRole('definition').filter({ hasText: /^none: stopped$/ });
  await expect(figures).toHaveCount(1);
  await expect(form.getByRole('spinbutton', { name: 'Steps', exact: true })).toBeEnabled();
  console.log(`[train-progress] stopped ${seconds()} s after Start`);
  expect(outside, 'requests that left the app').toEqual([]);
});
