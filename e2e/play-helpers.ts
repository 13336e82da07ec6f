/** What several e2e specs do in Play as a person would: find the transcript's steps and buttons, type SQL. */
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

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
