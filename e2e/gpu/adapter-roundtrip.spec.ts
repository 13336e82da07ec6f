/**
 * An adapter saved as PEFT files and loaded back gives identical logits, in headless Chromium
 * (src/gpu-tests/checks/adapter-roundtrip.ts): one AdamW step on the GPU, the adapter read back, written as
 * adapter_model.safetensors + adapter_config.json, read again and loaded into a fresh engine, whose logits equal the
 * training engine's bit for bit; F16 and BF16 files are reported beside it with their logit difference.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test('adapter saved as PEFT files and loaded into a fresh engine gives identical logits', async ({ page }) => {
  test.setTimeout(480_000);
  await openHarness(page);
  const report: CheckReport = await page.evaluate(() => window.gpuHarness!.run('adapter-roundtrip', 1));
  for (const r of report.results) {
    console.log(
      `${r.label.padEnd(80)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=${r.tol.abs.toExponential(1)}+${r.tol.rel.toExponential(1)}·|ref| ${r.pass ? 'ok' : 'FAIL'}`,
    );
  }
  console.log(`adapter-roundtrip: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}; ${report.results[0]?.shape ?? ''}`);
  for (const n of report.notes) console.log(`note: ${n}`);
  expect(report.results.filter((r) => !r.pass), 'failing cases of adapter-roundtrip').toEqual([]);
});
