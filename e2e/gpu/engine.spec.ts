/**
 * The whole engine in headless Chromium on tiny random Qwen models: prefill and batched KV-cache decode logits
 * against the float64 reference model, greedy ids, batched == single-sequence decode, LoRA (and B = 0 == base), and
 * Qwen2's biases and untied head. Each case's largest differences are printed with the tolerance it is held to.
 */
import { expect, test } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { openHarness } from './harness.ts';

test.describe('the Qwen engine matches the reference model', () => {
  for (const name of ['engine', 'engine-lora', 'engine-qwen2']) {
    test(name, async ({ page }) => {
      test.setTimeout(180_000);
      await openHarness(page);
      const report: CheckReport = await page.evaluate((check) => window.gpuHarness!.run(check, 1), name);
      for (const r of report.results) {
        console.log(`${r.label.padEnd(40)} ${r.shape.padEnd(52)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} ${r.pass ? 'ok' : 'FAIL'}`);
      }
      console.log(`${name}: ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
      for (const n of report.notes) console.log(`note: ${n}`);
      expect(report.results.filter((r) => !r.pass), `failing cases of ${name}`).toEqual([]);
    });
  }
});
