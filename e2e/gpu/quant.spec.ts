/**
 * Quantised base weights in headless Chromium (src/gpu-tests/checks/quant.ts): q8 and q4 matmul (every variant) and
 * embedding against the decoded weights, and the tiny Qwen3 model's logits with q8 / q4 weights against the f16
 * engine, the error printed and held to the stated bounds (QUANT_BOUNDS).
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test.describe('quantised weights', () => {
  for (const name of ['quant-matmul', 'quant-embedding', 'quant-engine']) {
    test(name, async ({ page }) => {
      test.setTimeout(180_000);
      await openHarness(page);
      const report: CheckReport = await page.evaluate((check) => window.gpuHarness!.run(check, 1), name);
      for (const r of report.results) {
        console.log(`${r.label.padEnd(46)} ${r.shape.padEnd(44)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=abs ${r.tol.abs} + rel ${r.tol.rel} ${r.pass ? 'ok' : 'FAIL'}`);
      }
      console.log(`${name}: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), `failing cases of ${name}`).toEqual([]);
      expect(report.pass).toBe(true);
    });
  }
});
