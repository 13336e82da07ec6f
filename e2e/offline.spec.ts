/**
 * Offline: once the app has loaded, its service worker holds the whole build (JS, sql.js's WASM, data bundles), so
 * a reload without network still opens, and an episode still runs SQL in its worker.
 */
import { expect, openView, test } from './fixtures.ts';

test('the app reloads and plays an episode after going offline', async ({ page, context, shot }) => {
  await openView(page, '#/play');
  await expect(page.getByRole('region', { name: 'Question' })).toBeVisible();
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // The first load is not controlled yet; a reload is, and from then on everything comes from the cache.
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Question' })).toBeVisible();
  const table = page.getByRole('region', { name: /Tables/ }).getByRole('radio').first();
  await table.check();
  await page.getByRole('button', { name: 'Describe', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Transcript' }).getByRole('listitem')).toHaveCount(1);
  await expect(page.getByRole('list', { name: 'Transcript' })).toContainText('DESCRIBE');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await shot('offline-play');
  await context.setOffline(false);
});
