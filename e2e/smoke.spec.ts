/**
 * Smoke test of the built app: the shell opens with its views and the embedded demo dataset, a missing bundle is
 * explained, and this Chromium exposes a WebGPU adapter on the served page (the GPU tests of later issues rely on it).
 */
import { expect, openView, test } from './fixtures.ts';

test('the app shell opens on the demo dataset', async ({ page, pageErrors, shot }) => {
  await openView(page, '');
  await expect(page.getByRole('heading', { level: 1, name: 'SQLEnv Web' })).toBeVisible();
  for (const name of ['Play', 'Watch', 'Evaluate', 'Train', 'Compare', 'Data']) await expect(page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Dataset' })).toHaveValue('demo');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await shot('smoke-shell');
  expect(pageErrors).toEqual([]);
});

test('a missing bundle gives a clear error that names the fix', async ({ page, shot }) => {
  await page.route('**/bundles/demo/manifest.json', (route) => route.fulfill({ status: 404, body: 'Not found' }));
  await openView(page, '#/data');
  const alert = page.getByRole('alert').filter({ hasText: 'dataset could not be loaded' });
  await expect(alert.getByRole('heading', { name: 'The demo dataset could not be loaded' })).toBeVisible();
  await expect(alert).toContainText('npm run data:demo');
  await shot('smoke-missing-bundle');
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
