/**
 * Evaluate, as a person uses it: run Oracle and Random on 20 demo episodes each (Oracle solves all, Random few),
 * see both saved, reload and find them still there, export a run file (JSONL) and CSV (20 episodes each), open a transcript,
 * cancel a long run while the page keeps answering, delete a run; screenshots in light, dark and narrow.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { ENV_VERSION } from '../src/env/env.ts';
import { expect, openView, test } from './fixtures.ts';

/** Rows of RFC 4180 CSV (quoted fields may hold commas, quotes and newlines). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

async function runEvaluation(page: Page, policy: string, episodes: number): Promise<void> {
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: policy });
  await form.getByRole('combobox', { name: 'Split' }).selectOption('eval');
  const all = form.getByRole('checkbox', { name: /All questions of the split/ });
  if (await all.isChecked()) await all.uncheck();
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill(String(episodes));
  await form.getByRole('spinbutton', { name: 'Seed' }).fill('0');
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.getByRole('heading', { name: `${policy} · demo/eval · ${episodes} episodes`, level: 3 })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('region', { name: 'Evaluation in progress' })).toHaveCount(0);
  await expect(page.getByRole('img', { name: /Episode returns/ })).toBeVisible();
}

/** The run's success rate as the summary figures show it, as a fraction. */
async function successRate(page: Page): Promise<number> {
  const text = await page.locator('.summary-figures > div', { hasText: 'Success rate' }).getByRole('definition').textContent();
  return Number((text ?? '').replace('%', '')) / 100;
}

test('evaluating Random and Oracle on 20 episodes each; saved, kept after a reload, exported', async ({ page, shot }) => {
  test.setTimeout(120_000);
  await openView(page, '#/evaluate');
  await expect(page.getByText('No saved runs yet.')).toBeVisible();

  await runEvaluation(page, 'Oracle', 20);
  expect(await successRate(page)).toBe(1);
  await expect(page.getByRole('table').filter({ hasText: 'Outcome' }).getByRole('row')).toHaveCount(21);
  await expect(page.getByText('saved in this browser')).toBeVisible();
  await expect(page.getByRole('img', { name: /Success by difficulty/ })).toBeVisible();
  await expect(page.getByRole('img', { name: /Episode returns/ })).toBeVisible();
  await shot('evaluate-oracle');

  await runEvaluation(page, 'Random', 20);
  const random = await successRate(page);
  expect(random).toBeLessThan(0.3);
  await shot('evaluate-random');

  const runs = page.getByRole('list', { name: 'Saved runs' }).getByRole('listitem');
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0)).toContainText('Random · demo/eval · 20 episodes');
  await expect(runs.nth(1)).toContainText('Oracle · demo/eval · 20 episodes');
  await expect(runs.nth(1)).toContainText('success 100%');

  await page.reload();
  await expect(runs).toHaveCount(2);
  // The run on screen comes back too.
  await expect(page.getByRole('heading', { name: 'Random · demo/eval · 20 episodes', level: 3 })).toBeVisible();

  const oracle = runs.filter({ hasText: 'Oracle' });
  const [jsonl] = await Promise.all([page.waitForEvent('download'), oracle.getByRole('button', { name: 'JSONL' }).click()]);
  expect(jsonl.suggestedFilename()).toMatch(/^sqlenv-oracle-demo-eval-\d{8}-\d{6}\.jsonl$/);
  // A run file (docs/run-files.md): a header line naming the environment version and the run, then one episode a line.
  const [headerLine, ...lines] = (await readFile(await jsonl.path(), 'utf8')).trimEnd().split('\n');
  expect(JSON.parse(headerLine)).toMatchObject({ format: 'sqlenv-run', envVersion: ENV_VERSION, dataset: 'demo', split: 'eval', policy: 'oracle', episodes: 20 });
  expect(lines).toHaveLength(20);
  const records = lines.map((l) => JSON.parse(l) as { success: boolean; transcript: unknown[] });
  expect(records.every((r) => r.success && r.transcript.length > 0)).toBe(true);

  const [csv] = await Promise.all([page.waitForEvent('download'), oracle.getByRole('button', { name: 'CSV' }).click()]);
  expect(csv.suggestedFilename()).toMatch(/\.csv$/);
  const rows = csvRows(await readFile(await csv.path(), 'utf8'));
  expect(rows).toHaveLength(21);
  expect(rows[0].slice(0, 3)).toEqual(['episode', 'policy', 'dataset']);
  expect(rows.slice(1).every((r) => r.length === rows[0].length && r[rows[0].indexOf('success')] === 'true')).toBe(true);

  // The run on screen exports too (the Random run), from its own header.
  const [shownCsv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(csvRows(await readFile(await shownCsv.path(), 'utf8'))).toHaveLength(21);
});

test('an episode opens its transcript; a run is deleted', async ({ page, shot }) => {
  await openView(page, '#/evaluate');
  await runEvaluation(page, 'Oracle', 5);
  await page.getByRole('button', { name: 'Transcript of episode 2' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Transcript of episode 2' }).getByRole('listitem').last()).toContainText('ANSWER');
  await expect(dialog.getByRole('status', { name: 'Episode result' })).toContainText('Success');
  await shot('evaluate-transcript');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  const runs = page.getByRole('list', { name: 'Saved runs' }).getByRole('listitem');
  await expect(runs).toHaveCount(1);
  await runs.first().getByRole('button', { name: 'Delete' }).click();
  await runs.first().getByRole('button', { name: 'Keep' }).click();
  await expect(runs).toHaveCount(1);
  await runs.first().getByRole('button', { name: 'Delete' }).click();
  await runs.first().getByRole('button', { name: 'Delete run' }).click();
  await expect(page.getByText('No saved runs yet.')).toBeVisible();
  await page.reload();
  await expect(page.getByText('No saved runs yet.')).toBeVisible();
});

test('an episode of a run replays in Watch from its link', async ({ page }) => {
  await openView(page, '#/evaluate');
  await runEvaluation(page, 'Oracle', 3);
  const question = await page.getByRole('table').filter({ hasText: 'Outcome' }).getByRole('row').nth(1).locator('.question-text').textContent();
  await page.getByRole('link', { name: 'Watch episode 1 again' }).click();
  await expect(page.getByRole('heading', { name: 'Watch a policy play' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Question' }).locator('.question-text')).toHaveText(question ?? '');
  await expect(page.getByRole('combobox', { name: 'Policy' })).toHaveValue('oracle');
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: 'Instant' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Episode result' })).toContainText('Success');
});

test('cancel stops a run, and the page keeps answering while it runs', async ({ page, shot }) => {
  await openView(page, '#/evaluate');
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Random' });
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('5000');
  await form.getByRole('button', { name: 'Run evaluation' }).click();

  const progress = page.getByRole('region', { name: 'Evaluation in progress' });
  await expect(progress.getByRole('progressbar', { name: 'Evaluation progress' })).toBeVisible();
  await expect(progress.getByRole('status').filter({ hasText: /of 5,000 episodes/ })).toContainText(/[1-9][\d,]* of 5,000 episodes/);
  await expect(progress).toContainText(/about .+ left/);
  // The UI thread is free: the theme switches while episodes are played (the run is still going after it: its
  // button stays disabled and its progress shown). A blocked thread would apply the switch only after the run.
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(form.getByRole('button', { name: 'Run evaluation' })).toBeDisabled();
  await expect(progress).toBeVisible();
  await shot('evaluate-progress-dark');

  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('status').filter({ hasText: /Evaluation cancelled after [\d,]+ episodes?; nothing was saved/ })).toBeVisible();
  await expect(progress).toHaveCount(0);
  await expect(page.getByText('No saved runs yet.')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Run evaluation' })).toBeEnabled();
});

test('the Evaluate view in dark and at a narrow width', async ({ page, shot }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openView(page, '#/evaluate');
  await runEvaluation(page, 'Random', 20);
  await shot('evaluate-dark');
  await page.setViewportSize({ width: 400, height: 900 });
  await expect(page.getByRole('img', { name: /Episode returns/ })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the page scrolls sideways at 400 px').toBeLessThanOrEqual(0);
  await shot('evaluate-narrow-dark');
});
