/**
 * The Play view, driven the way a person plays: by roles and labels. Questions are chosen from the built dataset
 * (its manifest, fetched through the page's own server) and answers are computed from their gold results, so no
 * answer is hard-coded. Journeys: solving a demo question (and a Spider one when its bundle is built), a runaway
 * query that hits the time limit while the page keeps answering, deep links that survive a reload, the four ways
 * to start an episode, a wrong answer with the gold SQL behind its reveal. Screenshots go to e2e-artifacts/.
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import type { DatasetManifest, JsonSqlValue } from '../src/data/types.ts';
import { expect, HAS_SPIDER, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

type ManifestQuestion = DatasetManifest['questions'][number];

async function manifest(request: APIRequestContext, name: string): Promise<DatasetManifest> {
  const response = await request.get(`bundles/${name}/manifest.json`);
  expect(response.ok(), `bundles/${name}/manifest.json`).toBe(true);
  return (await response.json()) as DatasetManifest;
}

/** A question a person solves in one query: one table after FROM, one scalar number as the gold result. */
interface Solvable {
  question: ManifestQuestion;
  table: string;
  answer: string;
}

function scalarNumber(rows: JsonSqlValue[][]): number | null {
  return rows.length === 1 && rows[0].length === 1 && typeof rows[0][0] === 'number' ? rows[0][0] : null;
}

function solvable(m: DatasetManifest, filter: (q: ManifestQuestion) => boolean = () => true): Solvable {
  for (const question of m.questions) {
    const value = scalarNumber(question.goldResult.rows);
    const from = /\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/i.exec(question.gold.trim());
    const tables = m.databases.find((d) => d.id === question.dbId)?.tables ?? [];
    const table = from && tables.find((t) => t.toLowerCase() === from[1].toLowerCase());
    if (value !== null && table && !/["\n]/.test(question.gold) && filter(question)) return { question, table, answer: String(value) };
  }
  throw new Error(`No question of ${m.name} is answered by one scalar query on one table.`);
}

const questionCard = (page: Page): Locator => page.getByRole('region', { name: 'Question' });

/** Describe a table, query, answer: the way a person solves a question. */
async function solveByHand(page: Page, { question, table, answer }: Solvable, runWith: 'keyboard' | 'button'): Promise<void> {
  await expect(questionCard(page)).toContainText(question.question);
  await expect(questionCard(page)).toContainText('Steps left: 10 of 10');

  await page.getByRole('radio', { name: table, exact: true }).check();
  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(transcriptSteps(page).nth(0)).toContainText(`DESCRIBE ${table}`);
  await expect(transcriptSteps(page).nth(0).getByRole('table')).toBeVisible();

  await typeSql(page, question.gold);
  if (runWith === 'keyboard') await page.keyboard.press('ControlOrMeta+Enter');
  else await button(page, 'Query').click();
  await expect(transcriptSteps(page)).toHaveCount(2);
  await expect(transcriptSteps(page).nth(1).getByRole('cell', { name: answer, exact: true })).toBeVisible();

  await page.getByRole('textbox', { name: 'Answer' }).fill(answer);
  await button(page, 'Answer').click();
  await expect(transcriptSteps(page)).toHaveCount(3);
  const outcome = page.getByRole('status', { name: 'Episode result' });
  await expect(outcome).toContainText('Success: the answer is correct');
  await expect(outcome.getByRole('table')).toContainText(answer);
  const reward = transcriptSteps(page).nth(2).getByRole('definition');
  await expect(reward.first()).toHaveText('+1.000'); // correctness
  await expect(questionCard(page)).toContainText('Steps left: 7 of 10');
  // Every control is spent: no fourth step.
  await expect(button(page, 'Answer')).toBeDisabled();
  await expect(button(page, 'Describe')).toBeDisabled();
}

test('a person solves a demo question by hand', async ({ page, shot }) => {
  const target = solvable(await manifest(page.request, 'demo'), (q) => q.difficulty === 'easy');
  await openView(page, `#/play?dataset=demo&q=${target.question.id}&seed=11`);
  await solveByHand(page, target, 'keyboard');
  // A correct episode of 3 steps returns 1 − 2 × 0.01 whatever it did before; the answer's own reward settles the
  // shaping paid along the way (rewards.ts).
  await expect(page.getByRole('status').filter({ hasText: /Step 3: ANSWER — ok, reward [+−-]?\d\.\d{3}\. Episode over: success, return 0\.980/ })).toBeVisible();
  await page.setViewportSize({ width: 1440, height: 1000 }); // tall enough for the sticky workbench
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('play-demo-solved-light');

  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await shot('play-demo-solved-dark');

  await page.setViewportSize({ width: 420, height: 900 });
  await expect(button(page, 'Query')).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the narrow layout scrolls sideways').toBeLessThanOrEqual(1);
  await shot('play-demo-solved-narrow-dark');
});

if (HAS_SPIDER) {
  test('a person solves a Spider question by hand', async ({ page, shot }) => {
    const target = solvable(await manifest(page.request, 'spider'), (q) => q.split === 'eval');
    await openView(page, `#/play?dataset=spider&q=${target.question.id}&seed=5`);
    await expect(page.getByRole('combobox', { name: 'Dataset' })).toHaveValue('spider');
    await solveByHand(page, target, 'button');
    await shot('play-spider-solved');

    // Picking another dataset in the header plays one of its questions, once, and the link follows.
    await page.getByRole('combobox', { name: 'Dataset' }).selectOption('demo');
    await expect(page).toHaveURL(/#\/play\?dataset=demo&q=demo-[^&]+&seed=\d+$/);
    const settled = page.url();
    await expect(questionCard(page)).toContainText(new URLSearchParams(settled.split('?')[1]).get('q') ?? '');
    // A second episode start, if the view and the shell disagreed, would be queued in the environment worker before
    // this step: once the step's reply is on screen, the episode it belongs to is the one that stays.
    await button(page, 'Describe').click();
    await expect(transcriptSteps(page)).toHaveCount(1);
    expect(page.url()).toBe(settled);
    await expect(questionCard(page)).toContainText(new URLSearchParams(settled.split('?')[1]).get('q') ?? '');
    await expect(page.getByRole('combobox', { name: 'Dataset' })).toHaveValue('demo');
  });
}

test('a runaway query stops at the time limit while the page keeps answering', async ({ page, shot }) => {
  const target = solvable(await manifest(page.request, 'demo'));
  await openView(page, `#/play?dataset=demo&q=${target.question.id}&seed=2`);
  await expect(questionCard(page)).toContainText(target.question.question);
  const tables = (await manifest(page.request, 'demo')).databases.find((d) => d.id === target.question.dbId)?.tables ?? [];
  // The last table: not the one selected when the episode starts (the first).
  const other = tables[tables.length - 1];
  expect(tables.length).toBeGreaterThan(1);

  await typeSql(page, 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT max(x) FROM c');
  const started = Date.now();
  await button(page, 'Query').click();
  // A second try while it runs (the shortcut, then the button) must not start a second step.
  await page.keyboard.press('ControlOrMeta+Enter');
  // The buttons read while the status says the query runs, in one look inside the page: the query stops at its time
  // limit (2 s), so two separate expectations could see the status, then buttons already enabled again (seen once
  // on a loaded machine).
  const whileRunning = await page.waitForFunction(() => {
    if (![...document.querySelectorAll('[role="status"]')].some((e) => e.textContent?.includes('Running QUERY'))) return null;
    const state = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)?.getAttribute('aria-disabled') ?? 'missing';
    return { query: state('Query'), describe: state('Describe') };
  });
  expect(await whileRunning.jsonValue()).toEqual({ query: 'true', describe: 'true' });
  await shot('play-runaway-running');

  // The page answers while the query runs: a table click takes effect before the step arrives.
  const t0 = Date.now();
  await page.evaluate(() => 1 + 1);
  console.log(`[play] a script round trip while the runaway query ran: ${Date.now() - t0} ms`);
  await page.getByRole('radio', { name: other, exact: true }).check();
  await expect(page.getByRole('radio', { name: other, exact: true })).toBeChecked();

  await expect(transcriptSteps(page)).toHaveCount(1, { timeout: 15_000 });
  await expect(transcriptSteps(page).nth(0)).toContainText(/ran longer than the [\d,]+ ms time limit/);
  await expect(transcriptSteps(page).nth(0)).toContainText('error');
  console.log(`[play] the runaway query was stopped and reported ${Date.now() - started} ms after the click`);

  // Right after, the same episode goes on: the SQL worker was restarted underneath.
  await button(page, 'Describe').click();
  await expect(transcriptSteps(page)).toHaveCount(2);
  await expect(transcriptSteps(page).nth(1)).toContainText(`DESCRIBE ${other}`);
  await expect(transcriptSteps(page).nth(1).getByRole('table')).toBeVisible();
  await expect(questionCard(page)).toContainText('Steps left: 8 of 10');
  await shot('play-runaway-recovered');
});

test('a deep link reopens the same question and seed after a reload', async ({ page, shot }) => {
  await openView(page, '#/play?dataset=demo');
  await page.getByRole('combobox', { name: 'Difficulty' }).selectOption('hard');
  await button(page, 'Random question').click();
  await expect(questionCard(page)).toContainText('hard');
  await expect(page).toHaveURL(/#\/play\?dataset=demo&q=[^&]+&seed=\d+$/);
  const url = new URL(page.url());
  const params = new URLSearchParams(url.hash.split('?')[1]);
  const q = params.get('q') ?? '';
  const seed = params.get('seed') ?? '';
  const text = (await questionCard(page).locator('.question-text').textContent()) ?? '';
  expect(text.length).toBeGreaterThan(0);

  await page.reload();
  await expect(questionCard(page)).toContainText(text);
  await expect(questionCard(page)).toContainText(q);
  await expect(page.getByRole('region', { name: 'New episode' })).toContainText(`seed ${seed}`);
  await expect(page).toHaveURL(new RegExp(`q=${q}&seed=${seed}$`));
  // The preference for hard questions persisted across the reload.
  await expect(page.getByRole('combobox', { name: 'Difficulty' })).toHaveValue('hard');
  await shot('play-deep-link-reopened');
});

test('new episodes by seed, by question search, and a wrong answer with the gold SQL behind a reveal', async ({ page, shot }) => {
  const m = await manifest(page.request, 'demo');
  await openView(page, '#/play?dataset=demo');
  await expect(questionCard(page)).toBeVisible();

  // By seed: the same seed and filters give the same question.
  await page.getByRole('textbox', { name: 'Seed' }).fill('12345');
  await button(page, 'Start with seed').click();
  await expect(page).toHaveURL(/seed=12345$/);
  const first = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('q');
  await button(page, 'Random question').click();
  await expect(page).not.toHaveURL(/seed=12345$/);
  await button(page, 'Start with seed').click();
  await expect(page).toHaveURL(new RegExp(`q=${first}&seed=12345$`));

  // By question: search, pick, play.
  const wanted = m.questions[m.questions.length - 1];
  await page.getByRole('searchbox', { name: 'Search questions' }).fill(wanted.id);
  await expect(page.getByRole('combobox', { name: 'Question' })).toHaveValue(wanted.id);
  await button(page, 'Play question').click();
  await expect(questionCard(page)).toContainText(wanted.question);
  await expect(page).toHaveURL(new RegExp(`q=${wanted.id}&seed=\\d+$`));

  // A wrong answer: failure, the gold answer, the gold SQL behind its reveal.
  await page.getByRole('textbox', { name: 'Answer' }).fill('certainly not the answer');
  await page.getByRole('textbox', { name: 'Answer' }).press('Enter');
  const outcome = page.getByRole('status', { name: 'Episode result' });
  await expect(outcome).toContainText('Failure: the answer is not correct');
  await expect(outcome.getByText(wanted.gold)).toBeHidden();
  await outcome.getByText('Reveal gold SQL').click();
  await expect(outcome.getByText(wanted.gold)).toBeVisible();
  await shot('play-wrong-answer-revealed');

  // Restart the same episode: a fresh budget, same question.
  await button(page, 'Restart this episode').click();
  await expect(transcriptSteps(page)).toHaveCount(0);
  await expect(questionCard(page)).toContainText('Steps left: 10 of 10');
  await expect(questionCard(page)).toContainText(wanted.question);
});

test('a deep link to a missing question says so plainly', async ({ page, shot }) => {
  await openView(page, '#/play?dataset=demo&q=no-such-question&seed=1');
  const alert = page.getByRole('alert');
  await expect(alert.getByRole('heading', { name: 'The episode could not be started' })).toBeVisible();
  await expect(alert).toContainText('no-such-question');
  await shot('play-missing-question');
  await button(page, 'Dismiss').click();
  await expect(page.getByRole('alert')).toHaveCount(0);
  // The rest of the view still works: start a random episode.
  await button(page, 'Random question').click();
  await expect(questionCard(page)).toBeVisible();
});
