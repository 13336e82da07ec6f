/**
 * The engine's training pass in headless Chromium on tiny random Qwen3 and Qwen2 models (src/gpu-tests/checks/
 * train-engine.ts): chosen-token log-probs of packed sequences (adapter on and off) vs the float64 reference model;
 * the LoRA gradients of Σ c·logp over two accumulated micro-batches vs the reference backward, and vs central finite
 * differences of the GPU loss; one clipped and one plain AdamW step vs the float64 AdamW, and the engine's next logits
 * with the updated adapter. Each case's largest differences are printed with the tolerance it is held to.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test.describe('the training pass matches the reference model', () => {
  for (const name of ['train-logprobs', 'train-gradients', 'train-adamw-step']) {
    test(name, async ({ page }) => {
      test.setTimeout(480_000);
      await openHarness(page);
      const report: CheckReport = await page.evaluate((check) => window.gpuHarness!.run(check, 1), name);
      for (const r of report.results) {
        console.log(
          `${r.label.padEnd(60)} ${r.shape.padEnd(70)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=${r.tol.abs.toExponential(1)}+${r.tol.rel.toExponential(1)}·|ref| ${r.pass ? 'ok' : 'FAIL'}`,
        );
      }
      console.log(`${name}: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), `failing cases of ${name}`).toEqual([]);
    });
  }
});
