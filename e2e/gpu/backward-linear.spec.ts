/**
 * Backward of the linear layers in headless Chromium (SwiftShader): matmul_dx (f16, q8, q4 weights in row chunks,
 * accumulate on and off, tiled and simple variants) and the LoRA backward against the float64 reference
 * (src/gpu-tests/checks/backward-linear.ts); each case's largest absolute/relative difference printed and held to the
 * tolerance the check states.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

const CHECKS = ['backward-matmul-dx', 'backward-lora'];

test.describe('linear-layer backward kernels match the CPU reference', () => {
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
