/**
 * Leftovers of the newcomer's walk-through in Play (issue 24 follow-ups), each seconds on the demo dataset:
 *  - the first-visit card never says "You are playing it now" of its example once that episode has ended: it says
 *    how it ended and offers "Play it again";
 *  - the SQL completion list closes when the query is sent, however it is sent: here by the Query button without
 *    the editor losing focus first (as a tap or a click in a browser that does not focus buttons does), where
 *    CodeMirror's own close-on-blur never fires.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, openView, test } from './fixtures.ts';
import { button, openCompletionList, transcriptSteps } from './play-helpers.ts';

const firstVisit = (page: Page): Locator => page.getByRole('region', { name: 'New here? Play one episode by hand' });

test('the first-visit card says how its example ended, not "You are playing it now"', async ({ page, shot }) => {
  await openView(page, '#/play?dataset=demo');
  const card = firstVisit(page);
  await card.getByRole('button', { name: 'Play this easy question' }).click();
  await expect(card).toContainText('You are playing it now.');
  const answer = page.getByRole('textbox', { name: 'Answer' });
  await answer.fill('not the answer to anything');
  await answer.press('Enter');
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(card).not.toContainText('You are playing it now.');
  await expect(card).toContainText('That answer was not right, and answering ended the episode.');
  await shot('walkthrough-first-visit-ended');
  // Play it again: the same question, a new episode under way.
  await card.getByRole('button', { name: 'Play it again' }).click();
  await expect(transcriptSteps(page)).toHaveCount(0);
  await expect(card).toContainText('You are playing it now.');
});

test('the completion list closes when the Query button sends the query while the editor keeps focus', async ({ page }) => {
  const { editor, list } = await openCompletionList(page);
  // A click event alone: no pointer press, so focus stays in the editor (CodeMirror closes the list only on blur).
  await button(page, 'Query').dispatchEvent('click');
  await expect(transcriptSteps(page)).toHaveCount(1);
  await expect(editor).toBeFocused();
  await expect(list).toBeHidden();
});
