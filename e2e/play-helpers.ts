/**
 * What several e2e specs do in Play as a person would: find the transcript's steps and buttons, type SQL, open the
 * SQL editor's completion list.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, openView } from './fixtures.ts';

export const transcriptSteps = (page: Page): Locator => page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
export const button = (page: Page, name: string): Locator => page.getByRole('button', { name, exact: true });

/** Replaces the SQL editor's text by typing, then closes the completion list as a person would before running. */
export async function typeSql(page: Page, sql: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'SQL query' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(sql);
  await page.keyboard.press('Escape');
  await expect(editor).toHaveText(sql);
}

/**
 * Opens Play on a demo question and types a query whose last word is half a table name (`boo`), so the SQL editor's
 * completion list opens; returns the focused editor and the visible list.
 */
export async function openCompletionList(page: Page): Promise<{ editor: Locator; list: Locator }> {
  await openView(page, '#/play?dataset=demo&q=demo-library-001&seed=1');
  const editor = page.getByRole('textbox', { name: 'SQL query' });
  await editor.click();
  await page.keyboard.type('SELECT count(*) FROM boo');
  const list = page.getByRole('listbox');
  await expect(list).toBeVisible();
  return { editor, list };
}
