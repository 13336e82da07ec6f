/**
 * Help for a newcomer (issue 12, item 2, and the favicon of item 10): the "How it works" page opens from every view
 * and states the environment's CURRENT weights and budget (read from src/env, never typed here); each step's reward
 * in Play is written as its weighted parts, and the numbers on screen add up; Evaluate's mean return does too; the
 * figures and controls a newcomer cannot guess carry tooltips; and no request of a page load fails (the favicon).
 */
import type { Locator, Page } from '@playwright/test';
import type { DatasetManifest } from '../src/data/types.ts';
import { DEFAULT_ENV_CONFIG } from '../src/env/types.ts';
import { expect, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

const W = DEFAULT_ENV_CONFIG.weights;
/** A number as the page writes it: 0.2, 1, −0.05. */
const text = (x: number): string => (x < 0 ? '−' : '') + String(Number(Math.abs(x).toPrecision(6)));
/** A printed number back: "+0.220", "−0.050", "(−0.050)", "0.000". */
const read = (s: string): number => Number(s.replace(/[()+]/g, '').replace('−', '-'));

const VIEWS = ['play', 'watch', 'evaluate', 'train', 'compare', 'data'] as const;

test('the How it works page opens from every view and states the current weights', async ({ page, shot }) => {
  for (const view of VIEWS) {
    await openView(page, `#/${view}`);
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'How it works' }).click();
    await expect(page.getByRole('heading', { level: 2, name: 'How it works' }), `from ${view}`).toBeVisible();
    await expect(page).toHaveURL(/#\/help$/);
  }
  const weights = page.getByRole('table', { name: 'Reward weights' });
  for (const part of ['correctness', 'progress', 'operational'] as const) {
    await expect(weights.getByRole('row', { name: new RegExp(`^${part}`) }).getByRole('cell').first()).toHaveText(text(W[part]));
  }
  await expect(page.getByText(`reward = ${text(W.correctness)} × correctness + ${text(W.progress)} × progress + ${text(W.operational)} × operational`)).toBeVisible();
  await expect(page.getByText(`${DEFAULT_ENV_CONFIG.budget}-step budget`)).toBeVisible();
  for (const action of ['DESCRIBE', 'SAMPLE', 'QUERY', 'ANSWER']) await expect(page.getByRole('rowheader', { name: action, exact: true })).toBeVisible();
  for (const name of ['What counts as a correct answer', 'Policies: who plays', 'What Train does']) await expect(page.getByRole('heading', { name })).toBeVisible();
  await shot('help-page');

  await page.setViewportSize({ width: 420, height: 900 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the help page scrolls sideways on a phone').toBeLessThanOrEqual(1);
  await shot('help-page-narrow');
});

/** The reward figures of a transcript step: the parts and the reward as printed, and the printed equation. */
async function printedReward(step: Locator): Promise<{ reward: number; equation: string }> {
  const reward = step.getByRole('definition').nth(3);
  const equation = step.getByText(/^reward [+−]?\d\.\d{3} = /);
  await expect(equation).toBeVisible();
  return { reward: read((await reward.textContent()) ?? ''), equation: (await equation.textContent()) ?? '' };
}

/** Checks that an equation "… = w × part v + …" adds up to `total` within the rounding of 3 decimals. */
function expectAddsUp(equation: string, total: number): void {
  const terms = [...equation.split(' = ')[1].matchAll(/(\S+) × (correctness|progress|operational) (\S+)/g)];
  expect(terms.map((m) => m[2]), equation).toEqual(['correctness', 'progress', 'operational']);
  expect(terms.map((m) => read(m[1])), 'the weights shown are the current ones').toEqual([W.correctness, W.progress, W.operational]);
  const sum = terms.reduce((acc, m) => acc + read(m[1]) * read(m[3]), 0);
  const rounding = 0.0005 * (W.correctness + W.progress + W.operational) + 0.0005 + 1e-9;
  expect(Math.abs(sum - total), `${equation} adds up`).toBeLessThanOrEqual(rounding);
}

async function demoManifest(page: Page): Promise<DatasetManifest> {
  const response = await page.request.get('bundles/demo/manifest.json');
  expect(response.ok()).toBe(true);
  return (await response.json()) as DatasetManifest;
}

test('Play shows each step’s reward as weighted parts that add up, with tooltips', async ({ page, shot }) => {
  const manifest = await demoManifest(page);
  const question = manifest.questions.find((q) => q.split === 'eval' && q.goldResult.rows.length > 0 && !q.gold.includes('\n'));
  if (!question) throw new Error('no demo eval question');
  await openView(page, `#/play?dataset=demo&q=${question.id}&seed=5`);
  await expect(page.getByRole('region', { name: 'Question' })).toContainText(question.question);

  // Describe a table, run the gold SQL (progress), run it again (a repeat: negative), answer right (settlement).
  await page.getByRole('radio').first().check();
  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await typeSql(page, question.gold);
  await button(page, 'Query').click();
  await expect(transcriptSteps(page)).toHaveCount(2);
  await button(page, 'Query').click();
  await expect(transcriptSteps(page)).toHaveCount(3);
  await page.getByRole('textbox', { name: 'Answer' }).fill(JSON.stringify(question.goldResult.rows));
  await button(page, 'Answer').click();
  await expect(transcriptSteps(page)).toHaveCount(4);
  await expect(page.getByRole('status', { name: 'Episode result' })).toContainText('Success');

  for (let i = 0; i < 4; i++) {
    const { reward, equation } = await printedReward(transcriptSteps(page).nth(i));
    expectAddsUp(equation, reward);
  }
  // The query that matched the gold result earns progress 1 (weighted), less the step cost (environment v3).
  const query = await printedReward(transcriptSteps(page).nth(1));
  expect(query.equation).toContain(`${text(W.progress)} × progress 1.000`);

  // Explanations of what a newcomer cannot guess, behind "?" buttons a touch screen can press: the reward parts
  // (with their weights), the budget and the actions.
  const step = transcriptSteps(page).nth(1);
  await step.getByRole('button', { name: 'About the reward parts' }).click();
  await expect(step.getByRole('note')).toContainText(new RegExp(`Weight ${text(W.progress).replace('.', '\\.')}`));
  await expect(step.getByRole('note')).toContainText('repeat');
  const card = page.getByRole('region', { name: 'Question' });
  await card.getByRole('button', { name: 'About the budget' }).click();
  await expect(card.getByRole('note')).toContainText('budget');
  for (const [topic, actions] of [['Describe and Sample', /^DESCRIBE <table>.*SAMPLE <table>/], ['Query', /^QUERY <sql>/]] as const) {
    await page.getByRole('button', { name: `About ${topic}` }).click();
    await expect(page.getByRole('note')).toHaveText(actions);
    await page.keyboard.press('Escape');
  }
  await shot('help-play-reward-parts');
});

test('Evaluate writes the mean return as weighted mean parts that add up, with explanations behind "?"', async ({ page }) => {
  await openView(page, '#/evaluate?dataset=demo');
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Random' });
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  if (await all.isChecked()) await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('6');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  const equation = page.getByText(/^Mean return [−]?\d\.\d{3} = /);
  await expect(equation).toBeVisible({ timeout: 60_000 });
  const line = (await equation.textContent()) ?? '';
  expectAddsUp(line, read(/^Mean return (\S+)/.exec(line)?.[1] ?? 'NaN'));
  for (const figure of ['Success rate', 'Mean return', 'Mean progress', 'Mean operational']) {
    await page.locator('.summary-figures > div', { hasText: figure }).first().getByRole('button', { name: `About ${figure.toLowerCase()}` }).click();
    await expect(page.getByRole('note')).toHaveText(/^\S+ \S+ \S+ \S+ \S+/);
  }
  await form.getByRole('button', { name: 'About Policy' }).click();
  await expect(form.getByRole('note')).toContainText('Oracle');
});

test('Watch and Train settings explain themselves behind "?" (no hover-only tooltips)', async ({ page }) => {
  await openView(page, '#/watch');
  const setup = page.getByRole('form', { name: 'Episode setup' });
  await setup.getByRole('button', { name: 'About Policy' }).click();
  await expect(setup.getByRole('note')).toHaveText(/Random.*Oracle.*Qwen/);
  await openView(page, '#/train');
  const settings = page.getByRole('form', { name: 'Training settings' });
  // The "?" stays out of the field's name: the spin button is still just "Learning rate".
  await expect(settings.getByRole('spinbutton', { name: 'Learning rate', exact: true })).toBeVisible();
  // The form holds other notes: read the one each "?" opens.
  const tipNote = (topic: string) => settings.locator('.info-tip').filter({ has: page.getByRole('button', { name: `About ${topic}` }) }).getByRole('note');
  await settings.getByRole('button', { name: 'About Learning rate' }).click();
  await expect(tipNote('Learning rate')).toHaveText(/AdamW/);
  await page.keyboard.press('Escape');
  await settings.getByRole('button', { name: 'About Progress weight' }).click();
  await expect(tipNote('Progress weight')).toHaveText(/progress/i);
  await expect(page.locator('main [title]')).toHaveCount(0);
});

test('a page load requests nothing that fails, the favicon included', async ({ page }) => {
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => failed.push(`failed ${request.url()}`));
  await openView(page, '#/play');
  const icon = page.locator('link[rel="icon"]');
  await expect(icon).toHaveCount(1);
  const href = await icon.evaluate((link: HTMLLinkElement) => link.href);
  const response = await page.request.get(href);
  expect(response.status(), href).toBe(200);
  expect(response.headers()['content-type']).toContain('image/svg+xml');
  await openView(page, '#/help');
  await expect(page.getByRole('heading', { level: 2, name: 'How it works' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(failed).toEqual([]);
});
