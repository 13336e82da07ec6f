/**
 * Answers in Play, the way a person gives them (issue 12, items 3 and 10): a result table pasted as the answer —
 * tab-separated with its header, and the page's own "Copy table" — shown as read (rows × columns, header) before it
 * is sent, and judged correct; Enter answers while Shift+Enter starts a new line; a wrong answer's step says
 * "wrong", not "ok"; the end card's "Next question" plays another question; Ctrl+Enter closes the completion list;
 * an empty split cannot be chosen; a 500-character cell does not make a table thousands of pixels wide.
 * Questions and answers come from the demo bundle's manifest, so nothing is hard-coded.
 */
import type { Page } from '@playwright/test';
import type { DatasetManifest } from '../src/data/types.ts';
import { expect, openView, test } from './fixtures.ts';
import { button, openCompletionList, transcriptSteps, typeSql } from './play-helpers.ts';

type ManifestQuestion = DatasetManifest['questions'][number];

async function demo(page: Page): Promise<DatasetManifest> {
  return (await (await page.request.get('bundles/demo/manifest.json')).json()) as DatasetManifest;
}

/** A demo question whose gold is several rows of two or more columns, in any order. */
function rowsQuestion(m: DatasetManifest): ManifestQuestion {
  const q = m.questions.find((q) => !q.orderMatters && q.goldResult.rows.length >= 3 && q.goldResult.columns.length >= 2 && !/["\n]/.test(q.gold));
  if (!q) throw new Error('The demo has no question whose gold is several rows.');
  return q;
}

/** The gold rows as a person's spreadsheet copies them: a header line, then tab-separated rows. */
function tsv(q: ManifestQuestion): string {
  return [q.goldResult.columns, ...q.goldResult.rows].map((row) => row.map(String).join('\t')).join('\n');
}

const answerBox = (page: Page) => page.getByRole('textbox', { name: 'Answer' });
const preview = (page: Page) => page.getByRole('region', { name: 'How the answer was read' });
const outcome = (page: Page) => page.getByRole('status', { name: 'Episode result' });

test('a pasted tab-separated table with its header is shown as read and judged correct', async ({ page, shot }) => {
  const q = rowsQuestion(await demo(page));
  const [rows, columns] = [q.goldResult.rows.length, q.goldResult.columns.length];
  await openView(page, `#/play?dataset=demo&q=${q.id}&seed=1`);
  await expect(page.getByRole('region', { name: 'Question' })).toContainText(q.question);

  await answerBox(page).fill(tsv(q));
  await expect(answerBox(page)).toHaveValue(tsv(q)); // the lines are kept, not flattened into one
  await expect(preview(page)).toContainText(`Read as ${rows} rows × ${columns} columns (tab-separated); the first line is the header.`);
  await expect(preview(page).getByRole('checkbox', { name: /First line is a header/ })).toBeChecked();
  await expect(preview(page).getByRole('table', { name: 'Answer as read' }).getByRole('columnheader', { name: q.goldResult.columns[0], exact: true })).toBeVisible();
  await shot('play-answer-pasted-table');

  // Unticking the header makes it a row (and would be wrong); ticking it again restores the reading.
  await preview(page).getByRole('checkbox', { name: /First line is a header/ }).uncheck();
  await expect(preview(page)).toContainText(`Read as ${rows + 1} rows × ${columns} columns`);
  await preview(page).getByRole('checkbox', { name: /First line is a header/ }).check();

  await answerBox(page).press('Enter');
  await expect(outcome(page)).toContainText('Success: the answer is correct');
  const answerStep = transcriptSteps(page).last();
  await expect(answerStep.locator('.step-head')).toContainText('correct');
});

test("the page's own Copy table gives an answer the box reads back", async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const q = rowsQuestion(await demo(page));
  await openView(page, `#/play?dataset=demo&q=${q.id}&seed=2`);
  await typeSql(page, q.gold);
  await button(page, 'Query').click();
  await expect(transcriptSteps(page)).toHaveCount(1);
  await transcriptSteps(page).first().getByRole('button', { name: 'Copy table' }).click();
  await expect(transcriptSteps(page).first()).toContainText('Copied');
  await answerBox(page).click();
  await page.keyboard.press('ControlOrMeta+v');
  await expect(preview(page)).toContainText(`Read as ${q.goldResult.rows.length} rows × ${q.goldResult.columns.length} columns (tab-separated); the first line is the header.`);
  await expect(preview(page)).toContainText('column names of a result you saw');
  await button(page, 'Answer').click();
  await expect(outcome(page)).toContainText('Success: the answer is correct');
});

test('Shift+Enter starts a new line and Enter answers; a wrong answer says "wrong"; Next question plays another', async ({ page, shot }) => {
  const m = await demo(page);
  const q = rowsQuestion(m);
  await openView(page, `#/play?dataset=demo&q=${q.id}&seed=3`);
  await answerBox(page).click();
  await page.keyboard.type('no such');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('answer');
  await expect(answerBox(page)).toHaveValue('no such\nanswer');
  await expect(transcriptSteps(page)).toHaveCount(0);
  await expect(preview(page)).toContainText('Read as 2 rows × 1 column (one value per line)');

  await page.keyboard.press('Enter');
  await expect(outcome(page)).toContainText('Failure: the answer is not correct');
  const badge = transcriptSteps(page).last().locator('.step-head .badge');
  await expect(badge).toHaveText('wrong');
  await shot('play-wrong-answer-badge');

  const next = page.getByRole('button', { name: 'Next question' });
  await next.click();
  await expect(page).not.toHaveURL(new RegExp(`q=${q.id}(&|$)`));
  const card = page.getByRole('region', { name: 'Question' });
  await expect(card).not.toContainText(q.question);
  const id = new URL(page.url()).hash.match(/q=([^&]+)/)?.[1];
  expect(m.questions.some((x) => x.id === id)).toBe(true);
  await expect(card).toContainText(m.questions.find((x) => x.id === id)?.question ?? '');
  await expect(transcriptSteps(page)).toHaveCount(0);
  await expect(answerBox(page)).toHaveValue('');
});

test('Ctrl+Enter runs the query and closes the completion list', async ({ page }) => {
  const { list } = await openCompletionList(page);
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(list).toBeHidden();
});

test('a split without questions cannot be chosen in Play, Watch or Evaluate', async ({ page }) => {
  const m = await demo(page);
  expect(m.questions.some((q) => q.split === 'heldout'), 'this test needs a split without questions: the demo has no held-out ones').toBe(false);
  await openView(page, '#/play?dataset=demo&q=demo-library-001&seed=1');
  const split = page.getByRole('combobox', { name: 'Split' });
  await expect(split.getByRole('option', { name: 'heldout (no questions)' })).toBeDisabled();
  await expect(split.getByRole('option', { name: /^train \(\d+ questions\)$/ })).toBeEnabled();
  for (const view of ['#/watch', '#/evaluate']) {
    await openView(page, view);
    await expect(page.getByRole('combobox', { name: 'Split' }).getByRole('option', { name: 'heldout (no questions)' })).toBeDisabled();
  }
});

test('a 500-character cell wraps inside a bounded column', async ({ page, shot }) => {
  await openView(page, '#/play?dataset=demo&q=demo-library-001&seed=1');
  await typeSql(page, "SELECT printf('%.*c', 500, 'x') AS long_text, count(*) AS n FROM books");
  await button(page, 'Query').click();
  const table = transcriptSteps(page).first().getByRole('table');
  await expect(table).toBeVisible();
  const box = await table.boundingBox();
  expect(box?.width ?? Infinity, 'table width in px').toBeLessThan(800);
  await shot('play-long-cell');
});
