/**
 * Attention backward in headless Chromium (SwiftShader): dq, dk, dv of causal GQA/MHA attention over a packed batch
 * of sequences in their own cache slots, against the float64 reference (src/gpu-tests/checks/backward-attention.ts);
 * each case's largest absolute/relative difference printed and held to the tolerance the check states.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test.describe('attention backward matches the CPU reference', () => {
  for (const seed of [1, 2]) {
    test(`backward-attention seed ${seed}`, async ({ page }) => {
      await openHarness(page);
      const report: CheckReport = await page.evaluate((s) => window.gpuHarness!.run('backward-attention', s), seed);
      for (const r of report.results) {
        console.log(
          `[${report.adapter}] ${r.label.padEnd(24)} ${r.shape.padEnd(36)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=abs ${r.tol.abs} + rel ${r.tol.rel} ${r.pass ? 'ok' : 'FAIL'}`,
        );
      }
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), 'failing cases of backward-attention').toEqual([]);
      expect(report.pass).toBe(true);
    });
  }
});
