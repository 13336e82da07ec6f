/**
 * A transcript step's badge explains itself behind a "?" button (InfoTip), not a `title` tooltip that touch and
 * keyboard users never see: a QUERY's badge opens the glossary's words on outcomes, an ANSWER's the verifier's
 * verdict; Escape closes the note.
 */
import { expect, openView, test } from './fixtures.ts';
import { button, transcriptSteps, typeSql } from './play-helpers.ts';

test("each step's badge says what it means behind a ? button, not a hover title", async ({ page }) => {
  await openView(page, '#/play?dataset=demo&q=demo-library-001&seed=1');
  await typeSql(page, 'SELECT 1');
  await button(page, 'Query').click();
  const answer = page.getByRole('textbox', { name: 'Answer' });
  await answer.fill('not the answer to anything');
  await answer.press('Enter');
  await expect(transcriptSteps(page)).toHaveCount(2);

  const [query, answered] = [transcriptSteps(page).nth(0), transcriptSteps(page).nth(1)];
  await expect(query.locator('.step-head .badge')).toHaveText('ok');
  await expect(answered.locator('.step-head .badge')).toHaveText('wrong');
  await expect(page.locator('.step-head [title]')).toHaveCount(0);

  const queryTip = query.getByRole('button', { name: "About step 1's outcome" });
  await expect(queryTip).toHaveAttribute('aria-expanded', 'false');
  await queryTip.click();
  await expect(queryTip).toHaveAttribute('aria-expanded', 'true');
  await expect(query.getByRole('note')).toHaveText(/^How the step went: ok \(it ran\)/);
  await page.keyboard.press('Escape');
  await expect(query.getByRole('note')).toHaveCount(0);

  await answered.getByRole('button', { name: "About step 2's outcome" }).click();
  await expect(answered.getByRole('note')).toHaveText('The answer does not match the gold result');
});
