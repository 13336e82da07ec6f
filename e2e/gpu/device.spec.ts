/**
 * Device acquisition in headless Chromium: limits requested at the adapter's maxima, typed errors for a missing or
 * too-small adapter, recovery from a lost device, and an intentional shutdown that is not reported as a loss.
 */
import { expect, test } from '@playwright/test';
import { DEVICE_EXPECTED } from '../../src/gpu-tests/checks/device.ts';
import { openHarness } from './harness.ts';

test('device acquisition, typed errors and recovery from a lost device', async ({ page }) => {
  await openHarness(page);
  const report = await page.evaluate(() => window.gpuHarness!.device());
  console.log(JSON.stringify({ limits: report.limits, shaderF16: report.shaderF16 }));
  expect(report).toMatchObject(DEVICE_EXPECTED);
});
