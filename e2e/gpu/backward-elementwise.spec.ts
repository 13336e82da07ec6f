/**
 * GPU checks of the row-wise backward kernels and the optimiser in headless Chromium (SwiftShader): rmsnorm,
 * swiglu and chosen-token log-prob backward, and the fused AdamW with the GPU gradient norm, each against the
 * float64 CPU reference (src/gpu-tests/checks/backward-elementwise.ts states the tolerances).
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

const CHECKS = ['backward-rmsnorm', 'backward-swiglu', 'backward-token-logprob', 'adamw'];

test.describe('GPU backward kernels and AdamW match the CPU reference', () => {
  for (const name of CHECKS) {
    test(name, async ({ page }) => {
      await openHarness(page);
      const report: CheckReport = await page.evaluate((check) => window.gpuHarness!.run(check, 1), name);
      for (const r of report.results) {
        console.log(
          `[${report.adapter}] ${r.label.padEnd(34)} ${r.shape.padEnd(40)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=abs ${r.tol.abs} + rel ${r.tol.rel} ${r.pass ? 'ok' : 'FAIL'}`,
        );
      }
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), `failing cases of ${name}`).toEqual([]);
      expect(report.pass).toBe(true);
    });
  }
});
