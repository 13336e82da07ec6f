/**
 * Device acquisition in headless Chromium: limits requested at the adapter's maxima, typed errors for a missing or
 * too-small adapter, recovery from a lost device, and an intentional shutdown that is not reported as a loss.
 */
import { expect, test } from '@playwright/test';
import { openHarness } from './harness.ts';

test('device acquisition, typed errors and recovery from a lost device', async ({ page }) => {
  await openHarness(page);
  const report = await page.evaluate(() => window.gpuHarness!.device());
  console.log(JSON.stringify({ limits: report.limits, shaderF16: report.shaderF16 }));
  expect(report.limitsMatchAdapter).toBe(true);
  expect(report.tooSmall?.name).toBe('GpuLimitError');
  expect(report.tooSmall?.limit).toBe('maxStorageBufferBindingSize');
  expect(report.noAdapter?.name).toBe('GpuUnavailableError');
  expect(report.noAdapter?.reason).toBe('no-adapter');
  expect(report.lost).toEqual({ state: 'lost', listenerCalled: true, assertError: 'GpuDeviceLostError', reason: 'destroyed' });
  expect(report.recovered).toEqual({ state: 'ready', listenerCalled: true, roundTrip: [1.5, -2, 3.25] });
  expect(report.destroyed).toEqual({ state: 'destroyed', lostListenerCalled: false });
});
