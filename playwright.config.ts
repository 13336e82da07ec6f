/**
 * Playwright: end-to-end tests in `e2e/` against the BUILT app (`dist/`, served by `vite preview` on 127.0.0.1 —
 * a secure context, which WebGPU needs), in Debian's Chromium at /usr/bin/chromium. Playwright never downloads a
 * browser here: `executablePath` names the system one, and `.ci/run` sets PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD.
 *
 * Build first (`npm run build`; `npm test` does it before this suite), so a build failure is reported as such and
 * not as a web server that would not start.
 *
 * Chromium flags: the network is closed, so background networking, component updates and first-run work are off;
 * `--enable-unsafe-webgpu` exposes WebGPU through SwiftShader in headless mode. Chromium keeps only the LAST
 * `--enable-features` flag and Playwright passes its own, so any feature we need is merged with Playwright's into a
 * single flag (none is needed today).
 *
 * Reports: the list reporter for people, JSON at E2E_JSON_REPORT for scripts/test-all.mjs; screenshots that tests
 * take on purpose go to e2e-artifacts/ (gitignored), failure screenshots and traces to test-results/.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

export const E2E_JSON_REPORT = '.cache/reports/playwright.json';
/** Overridable so that several people (or helpers) can test separate builds at once: E2E_DIST=dist-x E2E_PORT=4180. */
const PORT = Number(process.env.E2E_PORT ?? 4173);
const DIST = process.env.E2E_DIST ?? 'dist';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Features Playwright 1.65 enables itself (its chromiumSwitches); kept when we add ours. */
const PLAYWRIGHT_FEATURES = ['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies'];
/** Chromium features this project needs on top; add here, never as a second `--enable-features` flag. */
const PROJECT_FEATURES: string[] = [];

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--enable-unsafe-webgpu',
  ...(PROJECT_FEATURES.length > 0 ? [`--enable-features=${[...PLAYWRIGHT_FEATURES, ...PROJECT_FEATURES].join(',')}`] : []),
];

if (!existsSync(`${DIST}/index.html`)) {
  throw new Error(`playwright: ${DIST}/index.html is missing. Run 'npm run build' first (npm test does it for you).`);
}
if (!existsSync(CHROMIUM)) {
  throw new Error(`playwright: no Chromium at ${CHROMIUM}. Install Debian's: apt-get install -y chromium (or set CHROMIUM_PATH).`);
}

/**
 * Specs that run only on request, each with the variable that asks for it: long learning runs, which the project keeps
 * out of `npm test` (their figures come from scripts; see the spec's header). Left out of the run, not declared and
 * skipped: a skipped test proves nothing.
 */
const ON_REQUEST_SPECS: ReadonlyArray<{ spec: string; variable: string }> = [{ spec: 'gpu/train-reads.spec.ts', variable: 'GPU_CHECKS_LEARNING' }];

export default defineConfig({
  testDir: 'e2e',
  testIgnore: ON_REQUEST_SPECS.filter((s) => process.env[s.variable] !== '1').map((s) => `**/${s.spec}`),
  outputDir: process.env.E2E_PORT ? `test-results-${PORT}` : 'test-results',
  // One browser at a time: CI has 2 cores and SwiftShader is CPU-bound.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 30_000 }, // generous: the 2-core CI machine runs the app, Chromium and SwiftShader at once
  reporter: [['list'], ['json', { outputFile: process.env.E2E_PORT ? `.cache/reports/playwright-${PORT}.json` : E2E_JSON_REPORT }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM, args: chromiumArgs },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
  projects: [{ name: 'chromium' }],
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${PORT} --strictPort --outDir ${DIST}`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
