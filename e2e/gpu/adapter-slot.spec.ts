/**
 * One inference engine for every adapter (src/gpu-tests/checks/adapter-slot.ts), in headless Chromium: a small
 * adapter padded to a wider LoRA plan gives the logits of an engine planned for it exactly, bit for bit, and those
 * logits differ from the base model's.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test('a padded adapter plays exactly as the adapter', async ({ page }) => {
  test.setTimeout(240_000);
  await openHarness(page);
  const report: CheckReport = await page.evaluate(() => window.gpuHarness!.run('adapter-slot', 1));
  for (const r of report.results) console.log(`${r.label.padEnd(58)} ${r.shape} maxAbs=${r.maxAbs.toExponential(2)} ${r.pass ? 'ok' : 'FAIL'}`);
  console.log(`adapter-slot: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
  expect(report.results.filter((r) => !r.pass), 'failing cases').toEqual([]);
});
