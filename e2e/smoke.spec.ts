/**
 * Smoke test of the built app: the page opens, the embedded demo dataset loads and its summary shows (read the way
 * a person would: by headings, tables and lists), the SQL worker opens a database, and no error is uncaught. Also checks that this Chromium exposes a
 * WebGPU adapter on the served page, which the GPU tests of later issues rely on. Screenshot: e2e-artifacts/.
 */
import { expect, test } from '@playwright/test';

test('the demo dataset summary shows', async ({ page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await page.goto('./');
  await expect(page.getByRole('heading', { level: 1, name: 'SQLEnv Web' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: /^Dataset: / })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);

  // At least one database and some questions, and the split table accounts for every question.
  const databases = Number(await page.getByRole('definition').nth(0).textContent());
  const questions = Number(await page.getByRole('definition').nth(1).textContent());
  expect(databases).toBeGreaterThan(0);
  expect(questions).toBeGreaterThan(0);

  const splits = page.getByRole('table', { name: 'Questions by split' });
  await expect(splits.getByRole('rowheader', { name: 'train' })).toBeVisible();
  await expect(splits.getByRole('rowheader', { name: 'eval' })).toBeVisible();
  const splitCounts = await splits.locator('tbody td').allTextContents();
  expect(splitCounts.map(Number).reduce((a, b) => a + b, 0)).toBe(questions);

  const sample = page.getByRole('list', { name: 'Some questions' }).getByRole('listitem');
  expect(await sample.count()).toBeGreaterThan(0);

  // The SQL Web Worker (sql.js and its WASM, served by the app) opens the first database of the bundle.
  await expect(page.getByRole('region', { name: 'SQL engine' }).getByText(/^SQL engine ready:/)).toBeVisible();

  await page.screenshot({ path: 'e2e-artifacts/smoke-dataset-summary.png', fullPage: true });
  expect(pageErrors).toEqual([]);
});

test('a missing bundle gives a clear error that names the fix', async ({ page }) => {
  await page.route('**/bundles/demo/manifest.json', (route) => route.fulfill({ status: 404, body: 'Not found' }));
  await page.goto('./');
  const alert = page.getByRole('alert');
  await expect(alert.getByRole('heading', { name: 'The demo dataset could not be loaded' })).toBeVisible();
  await expect(alert).toContainText('npm run data:demo');
  await page.screenshot({ path: 'e2e-artifacts/smoke-missing-bundle.png' });
});

test('WebGPU is available on the served page (SwiftShader in headless Chromium)', async ({ page }) => {
  await page.goto('./');
  const adapter = await page.evaluate(async () => {
    if (!('gpu' in navigator)) return null;
    const found = await navigator.gpu.requestAdapter();
    if (!found) return null;
    const device = await found.requestDevice();
    device.destroy();
    return { architecture: found.info.architecture, shaderF16: found.features.has('shader-f16') };
  });
  expect(adapter, 'navigator.gpu.requestAdapter() gave no adapter: is --enable-unsafe-webgpu passed?').not.toBeNull();
});
