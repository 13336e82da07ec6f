/**
 * Serves the GPU test harness (src/gpu-tests/harness.ts) to a Playwright page. The harness is bundled once per test
 * worker with Vite's build API (same toolchain as the app, `?raw` WGSL included) and served through `page.route` on
 * the app's own origin (http://127.0.0.1:4173, a secure context, so `navigator.gpu` is there). Nothing is added to
 * the app's build: vite.config.ts stays as it is.
 */
import type { Page } from '@playwright/test';
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
