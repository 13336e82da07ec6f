/**
 * Serves the GPU test harness (src/gpu-tests/harness.ts) to a Playwright page. The harness is bundled once per test
 * worker with Vite's build API (same toolchain as the app, `?raw` WGSL included) and served through `page.route` on
 * the app's own origin (http://127.0.0.1:4173, a secure context, so `navigator.gpu` is there). Nothing is added to
 * the app's build: vite.config.ts stays as it is.
 *
 * Seeds: each run draws a fresh seed (src/gpu-tests/seed.ts) that every test prints; `GPU_CHECK_SEED=<n> npx
 * playwright test e2e/gpu` replays it. The checks themselves are the registry's (src/gpu-tests/registry.ts), which
 * the Node suite (tests/gpu/checks-node*.test.ts) runs too; this file imports only their report format (report.ts),
 * never the checks, so the Playwright process does not load WGSL.
 */
import { expect, test, type Page } from '@playwright/test';
import { failingCases, reportLines, type CheckReport } from '../../src/gpu-tests/report.ts';
import { describeSeed, runSeed, type RunSeed } from '../../src/gpu-tests/seed.ts';
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
 * The seed of this run: GPU_CHECK_SEED, else drawn once per test worker (Playwright runs one worker, but starts a
 * fresh one after a failure, which draws again). Every test prints the seed it used and how to replay it.
 */
export const RUN_SEED: RunSeed = runSeed(process.env);

export interface DescribeOptions {
  /** Time allowed per check, or per check by name (default: the config's 60 s). */
  timeoutMs?: number | ((check: string) => number);
  /** Consecutive seeds each check runs with (default 1: the run's seed only). */
  draws?: number;
}

/** Runs `name` in the page with `seed`, prints its lines, and fails naming the cases out of tolerance. */
export async function runCheckInPage(page: Page, name: string, seed: number): Promise<CheckReport> {
  const report: CheckReport = await page.evaluate(([check, s]) => window.gpuHarness!.run(check, s), [name, seed] as const);
  console.log(reportLines(report).join('\n'));
  expect(failingCases(report), `failing cases of ${name} (seed ${seed}; replay with GPU_CHECK_SEED=${seed})`).toEqual([]);
  expect(report.pass).toBe(true);
  return report;
}

/**
 * Declares one Playwright test per check, all on ONE harness page (so one GPU device) per `describeChecks` call, as
 * the Node suite shares one GpuContext per file (tests/gpu/checks-node-suite.ts): opening a page, loading the bundle
 * and acquiring a device cost 2–3 s per test on SwiftShader, and a fresh device compiled again every pipeline that the
 * previous check had already built. Each test runs its check with the run's seed (RUN_SEED, and the next `draws − 1`
 * seeds), prints every case's largest absolute/relative difference against the tolerance it is held to (and the
 * check's notes), and fails naming the cases out of tolerance. After a failure Playwright starts a fresh worker,
 * whose `beforeAll` opens a fresh page, so a check never runs on a device that a failed check left behind.
 */
export function describeChecks(title: string, checks: readonly string[], options: DescribeOptions = {}): void {
  const seeds = Array.from({ length: options.draws ?? 1 }, (_, i) => RUN_SEED.seed + i);
  test.describe(title, () => {
    let page: Page | null = null;
    test.beforeAll(async ({ browser }, testInfo) => {
      // The first page of a worker also builds the harness bundle (Vite), which the 60 s default leaves tight on a
      // loaded 2-core machine; it used to share each check's own, longer, limit.
      testInfo.setTimeout(180_000);
      page = await browser.newPage({ baseURL: testInfo.project.use.baseURL });
      await openHarness(page);
    });
    test.afterAll(async () => {
      await page?.close();
      page = null;
    });
    for (const name of checks) {
      test(name, async () => {
        if (!page) throw new Error(`gpu harness: no page for ${name} (beforeAll failed)`);
        const timeout = typeof options.timeoutMs === 'function' ? options.timeoutMs(name) : options.timeoutMs;
        if (timeout !== undefined) test.setTimeout(timeout);
        console.log(describeSeed(RUN_SEED, 'npx playwright test e2e/gpu'));
        test.info().annotations.push({ type: 'seed', description: seeds.join(', ') });
        for (const seed of seeds) await runCheckInPage(page, name, seed);
      });
    }
  });
}
