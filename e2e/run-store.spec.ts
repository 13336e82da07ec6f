/**
 * Saved runs when the browser's storage is full: the run is still shown (marked not saved) and the message says
 * what happened and what to do. The quota is simulated by making IndexedDB writes fail with QuotaExceededError.
 */
import { expect, openView, test } from './fixtures.ts';

test('a full storage gives a clear message and keeps the results on screen', async ({ page, shot }) => {
  await page.addInitScript(() => {
    IDBObjectStore.prototype.put = function put(): IDBRequest {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  await openView(page, '#/evaluate');
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption({ label: 'Oracle' });
  await form.getByRole('spinbutton', { name: 'Episodes' }).fill('3');
  await form.getByRole('button', { name: 'Run evaluation' }).click();

  const alert = page.getByRole('alert').filter({ hasText: 'Browser storage is full: the run was not saved' });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText('export them to keep them');
  await expect(page.getByText('not saved', { exact: false }).first()).toBeVisible();
  await expect(page.getByRole('heading', { name: /Oracle · demo\/.+ · 3 episodes/, level: 3 })).toBeVisible();
  await expect(page.getByText('No saved runs yet.')).toBeVisible();
  // What is on screen can still be exported.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSONL' }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.jsonl$/);
  await shot('evaluate-storage-full');
});
