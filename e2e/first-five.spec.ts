/**
 * A newcomer's first minutes in Play (issue 24, items 7, 9 and 10): the first-visit card (an easy question to start
 * with, closed for good), the answer box's "read as" line for a one-line list, a "?" explanation a tap opens, tables that wrap only between words at desktop width and scroll sideways instead, and a
 * phone layout where the editor and the newest transcript step are on screen together.
 *
 * The wide table is made by the test's own query (aliases like `loan_identifier_…` and ISO dates as values), so
 * what is measured does not depend on the dataset. A word is "split" when the browser lays it out on more than one
 * line: a Range over the word gives client rectangles on more than one line box.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

const firstVisit = (page: Page): Locator => page.getByRole('region', { name: 'New here? Play one episode by hand' });
const questionCard = (page: Page): Locator => page.getByRole('region', { name: 'Question' });
/** A demo question on a small database: the layout tests' queries do not read its tables. */
const SMALL_QUESTION = '#/play?dataset=demo&q=demo-library-001&seed=1';

/** Closes the first-visit card (a new browser profile shows it) so the layout under test is Play's own. */
async function closeFirstVisit(page: Page): Promise<void> {
  await firstVisit(page).getByRole('button', { name: 'Close this guide' }).click();
  await expect(firstVisit(page)).toHaveCount(0);
}

test('the first-visit card offers an easy question, and once closed it stays closed after a reload', async ({ page, pageErrors, shot }) => {
  await openView(page, '#/play');
  const card = firstVisit(page);
  await expect(card).toBeVisible();
  await expect(card.getByRole('link', { name: 'Read how it works' })).toHaveAttribute('href', '#/help');
  const example = (await card.locator('q').textContent()) ?? '';
  expect(example.length).toBeGreaterThan(0);
  await expect(card).toContainText('· easy)');
  await shot('first-visit-card');

  await card.getByRole('button', { name: 'Play this easy question' }).click();
  await expect(questionCard(page)).toContainText(example);
  await expect(questionCard(page).getByRole('definition').filter({ hasText: /^easy$/ })).toBeVisible();
  await expect(card).toContainText('You are playing it now.');

  // A one-line list is shown as the environment will read it before it is sent (issue 24, item 10).
  await page.getByRole('textbox', { name: 'Answer' }).fill('Rex, Tom');
  await expect(page.getByRole('region', { name: 'How the answer was read' })).toContainText('Read as a list of 2 values (comma-separated).');
  await page.getByRole('textbox', { name: 'Answer' }).fill('42');
  await expect(page.getByRole('region', { name: 'How the answer was read' })).toHaveCount(0);

  // What a figure means opens with a press (touch screens show no `title`), and Escape closes it.
  const difficultyTip = questionCard(page).getByRole('button', { name: 'About difficulty' });
  await difficultyTip.click();
  await expect(difficultyTip).toHaveAttribute('aria-expanded', 'true');
  await expect(questionCard(page).getByRole('note')).toContainText('Spider’s hardness');
  await difficultyTip.press('Escape');
  await expect(questionCard(page).getByRole('note')).toHaveCount(0);

  await closeFirstVisit(page);
  await page.reload();
  // The settings are read from localStorage when the page starts, before Play renders anything.
  await expect(page.getByRole('region', { name: 'New episode' })).toBeVisible();
  await expect(firstVisit(page)).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});

/** Puts `sql` in the editor in one input event (typing 400 characters key by key is slow on a loaded machine). */
async function pasteSql(page: Page, sql: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'SQL query' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(sql);
  await page.keyboard.press('Escape');
  await expect(editor).toHaveText(sql);
}

/** Words of the table's header and body cells that the browser laid out over two lines or more. */
async function splitWords(table: Locator): Promise<string[]> {
  return table.evaluate((root) => {
    const split: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        // One rectangle per line box the word touches (a word split inside gives two tops).
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) split.push(match[0]);
      }
    }
    return split;
  });
}

test('at 1280 px a wide result wraps only between words and scrolls sideways', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openView(page, SMALL_QUESTION);
  await closeFirstVisit(page);
  await expect(questionCard(page)).toBeVisible();
  const columns = Array.from({ length: 10 }, (_, i) => `'2023-01-0${i}' AS loan_identifier_${i}`);
  await pasteSql(page, `SELECT ${columns.join(', ')}`);
  await button(page, 'Query').click();
  const table = transcriptSteps(page).last().getByRole('table');
  await expect(table.getByRole('columnheader', { name: 'loan_identifier_9' })).toBeAttached();
  expect(await splitWords(table)).toEqual([]);
  // The table is wider than its panel: its box scrolls sideways and the page does not.
  const box = transcriptSteps(page).last().locator('.result-table');
  const { scroll, client, overflowX } = await box.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, overflowX: getComputedStyle(e).overflowX }));
  expect(scroll).toBeGreaterThan(client);
  expect(overflowX).toBe('auto');
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
});

/** Whether the element's box lies wholly inside the window's height. */
async function inView(locator: Locator, page: Page): Promise<boolean> {
  const height = page.viewportSize()?.height ?? 0;
  const box = await locator.boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= height;
}

test('on a phone the editor and the newest transcript step are on screen together', async ({ page, shot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openView(page, SMALL_QUESTION);
  await closeFirstVisit(page);
  await expect(questionCard(page)).toBeVisible();
  const editor = page.getByRole('textbox', { name: 'SQL query' });
  for (let i = 1; i <= 3; i++) {
    await typeSql(page, `SELECT ${i} AS answer_${i}`);
    await button(page, 'Query').click();
    await expect(transcriptSteps(page)).toHaveCount(i);
    const result = transcriptSteps(page).nth(i - 1).getByRole('cell', { name: String(i), exact: true });
    await expect(result).toBeVisible();
    // The view scrolls the newest step into view by itself (smoothly): wait for its result, then the editor must be
    // in view too, with no scrolling by the person.
    await expect.poll(() => inView(result, page), { message: `step ${i}'s result in view` }).toBe(true);
    expect(await inView(editor, page), `editor in view after step ${i}`).toBe(true);
  }
  await shot('first-five-phone');
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
});
