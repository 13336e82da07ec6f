/**
 * The GPU sampler in headless Chromium (src/gpu-tests/checks/sample.ts, engine-sample.ts): greedy == argmax, the
 * log-probability under the distribution actually used equals the CPU value, the counter-based draws equal the
 * TypeScript hash's and do not depend on the batch, and 20,000 draws per setting pass a chi-square test against
 * softmax(logits / T) after top-k / top-p (false-failure rate 1e-6 per setting, 5 settings: 5e-6 for the spec).
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test.describe('GPU sampling matches the CPU reference distribution', () => {
  for (const name of ['sample-greedy', 'sample-vocab', 'sample-distribution', 'engine-sample']) {
    test(name, async ({ page }) => {
      test.setTimeout(180_000);
      await openHarness(page);
      const report: CheckReport = await page.evaluate((check) => window.gpuHarness!.run(check, 1), name);
      for (const r of report.results) {
        console.log(`${r.label.padEnd(46)} ${r.shape.padEnd(44)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=abs ${r.tol.abs.toPrecision(4)} + rel ${r.tol.rel} ${r.pass ? 'ok' : 'FAIL'}`);
      }
      console.log(`${name}: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), `failing cases of ${name}`).toEqual([]);
      expect(report.pass).toBe(true);
    });
  }
});
