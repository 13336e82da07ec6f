/**
 * Serves the GPU test harness (src/gpu-tests/harness.ts) to a Playwright page. The harness is bundled once per test
 * worker with Vite's build API (same toolchain as the app, `?raw` WGSL included) and served through `page.route` on
 * the app's own origin (http://127.0.0.1:4173, a secure context, so `navigator.gpu` is there). Nothing is added to
 * the app's build: vite.config.ts stays as it is.
 */
import { expect, test, type Page } from '@playwright/test';
import type { CheckReport } from '../../src/gpu-tests/harness.ts';
import { build, type Rolldown } from 'vite';

const HARNESS_ENTRY = 'src/gpu-tests/harness.ts';
const ROUTE = '**/__gpu-harness/**';

let bundle: Promise<string> | null = null;

async function buildHarness(): Promise<string> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    root: process.cwd(),
    build: {
      write: false,
      minify: false,
      emptyOutDir: false,
      lib: { entry: HARNESS_ENTRY, formats: ['es'], fileName: 'harness' },
    },
  });
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((item) => item.type === 'chunk' && item.isEntry);
  if (!chunk || chunk.type !== 'chunk') throw new Error('gpu harness: the Vite build produced no entry chunk');
  return chunk.code;
}

/** The harness bundle (built on first use in this worker). */
export function harnessBundle(): Promise<string> {
  bundle ??= buildHarness();
  return bundle;
}

/** Opens the harness page and waits until `window.gpuHarness` is ready. */
export async function openHarness(page: Page): Promise<void> {
  const code = await harnessBundle();
  await page.route(ROUTE, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname.endsWith('/harness.js')) return route.fulfill({ contentType: 'text/javascript', body: code });
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><title>gpu-harness</title><script type="module" src="./harness.js"></script>',
    });
  });
  await page.goto('./__gpu-harness/index.html');
  await page.waitForFunction(() => document.title === 'gpu-harness ready');
}

/**
 * Declares one Playwright test per check: each opens the harness, runs its check with seed 1, prints every case's
 * largest absolute/relative difference against the tolerance it is held to (and the check's notes), and fails
 * naming the cases out of tolerance.
 */
export function describeChecks(title: string, checks: readonly string[]): void {
  test.describe(title, () => {
    for (const name of checks) {
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
}
