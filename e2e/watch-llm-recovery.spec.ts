/**
 * Recovery from a lost GPU device, in Chromium on SwiftShader: a tiny random Qwen3 (e2e/llm-fixtures.ts) plays a
 * step in Watch; then the environment worker's next `createCommandEncoder` destroys its device first
 * (`GPUDevice.destroy()` loses the device as a driver reset would, in the middle of a turn). That step must still
 * be played: the engine gets a new device, is re-created, the weights are read again from the served folder and
 * uploaded, the turn is run again, and the Model panel says so. A third step runs on the new device as usual.
 */
import { dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { expect, openView, test } from './fixtures.ts';
import { loadServedModel, makeTinyModel, serveModel, watchSteps } from './llm-fixtures.ts';

let dir = '';

test.beforeAll(() => {
  dir = makeTinyModel('tiny-lost');
});
test.afterAll(() => {
  if (dir) rmSync(dirname(dir), { recursive: true, force: true });
});

/** Runs in the environment worker: the next command encoder of any device destroys that device first. */
const LOSE_DEVICE_ON_NEXT_ENCODER = `(() => {
  const proto = GPUDevice.prototype;
  const original = proto.createCommandEncoder;
  let armed = true;
  proto.createCommandEncoder = function (...args) {
    if (armed) {
      armed = false;
      this.destroy();
    }
    return original.apply(this, args);
  };
  return 'armed';
})()`;

test('a lost GPU device is recovered from on the next turn, with a notice in the Model panel', async ({ page, context, shot }) => {
  test.setTimeout(300_000);
  await serveModel(context, 'tiny', dir);
  await openView(page, '#/watch');
  const panel = await loadServedModel(page, 'tiny', { maxNewTokens: 2, temperature: 0, weights: 'f16' });
  const steps = await watchSteps(page, 'demo-library-001', 1);

  const env = page.workers().find((w) => w.url().includes('env.worker'));
  expect(env, 'the environment worker').toBeDefined();
  expect(await env!.evaluate(LOSE_DEVICE_ON_NEXT_ENCODER)).toBe('armed');

  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(panel.getByRole('status', { name: 'GPU recovery' })).toContainText(/Recovered from a lost GPU device \(destroyed\) in [\d.]+ s: new device, engine re-created, weights uploaded again \(recovery 1\)/, {
    timeout: 120_000,
  });
  await expect(steps).toHaveCount(2, { timeout: 120_000 });
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(steps.nth(1).locator('.raw-text summary')).toContainText(/\d+ tokens/);

  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(steps).toHaveCount(3, { timeout: 120_000 });
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(steps.nth(2).locator('.raw-text summary')).toContainText(/\d+ tokens/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('watch-qwen-recovered');
});
