/**
 * `npm run bench:app`: what a visitor waits for, measured in Debian's headless Chromium against the built app
 * (`npm run build` first; with SPIDER_DIR set at build time the Spider bundle is in it).
 *  1. Gzipped size of the JavaScript the first view (Play) loads: page scripts, then worker scripts, and the WASM.
 *  2. Time from navigation to an interactive episode (question shown, Query button enabled), median of 5 loads.
 *  3. Time to evaluate Oracle on the whole curated eval split in the page (Spider's when built, else the demo's).
 */
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from '@playwright/test';
import { preview } from 'vite';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

interface Loaded {
  url: string;
  kind: 'page-js' | 'worker-js' | 'wasm';
  gzip: number;
  raw: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function waitInteractive(page: Page): Promise<number> {
  await page.getByRole('region', { name: 'Question' }).waitFor();
  await page.getByRole('button', { name: 'Query', exact: true }).and(page.locator(':enabled')).waitFor();
  return page.evaluate(() => performance.now());
}

async function firstViewBytes(page: Page, base: string): Promise<Loaded[]> {
  const loaded: Loaded[] = [];
  const pending: Array<Promise<void>> = [];
  const record = (url: string, body: Promise<Buffer>, kind: Loaded['kind']): void => {
    pending.push(body.then((b) => void loaded.push({ url: url.replace(base, ''), kind, raw: b.length, gzip: gzipSync(b).length })).catch(() => undefined));
  };
  page.on('response', (response) => {
    const url = response.url();
    // Vite names worker chunks after their entry files (env.worker-…, sql.worker.browser-…).
    if (url.endsWith('.js')) record(url, response.body(), /\.worker[.-]/.test(url) ? 'worker-js' : 'page-js');
    else if (url.endsWith('.wasm')) record(url, response.body(), 'wasm');
  });
  // Worker scripts load from inside workers; their responses reach the page's `response` event in Chromium.
  await page.goto(`${base}#/play`);
  await waitInteractive(page);
  await Promise.all(pending);
  return loaded;
}

async function evaluateOracle(page: Page, base: string, dataset: string): Promise<{ ms: number; episodes: string; success: string }> {
  await page.goto(`${base}#/evaluate?dataset=${dataset}`);
  const form = page.getByRole('form', { name: 'Evaluation settings' });
  await form.getByRole('combobox', { name: 'Policy' }).selectOption('oracle');
  await form.getByRole('combobox', { name: 'Split' }).selectOption('eval');
  await form.getByRole('checkbox', { name: /All questions of the split/ }).check();
  const t0 = Date.now();
  await form.getByRole('button', { name: 'Run evaluation' }).click();
  await page.getByRole('region', { name: 'Evaluation in progress' }).waitFor({ state: 'detached', timeout: 600_000 });
  const ms = Date.now() - t0;
  const figure = (label: string) => page.getByLabel('Summary').locator('div', { has: page.locator('dt', { hasText: label }) }).locator('dd').first().textContent();
  return { ms, episodes: (await figure('Episodes')) ?? '?', success: (await figure('Success rate')) ?? '?' };
}

async function main(): Promise<void> {
  if (!existsSync('dist/index.html')) throw new Error("dist/ is missing: run 'npm run build' first (with SPIDER_DIR set to include Spider).");
  const server = await preview({ preview: { host: '127.0.0.1', port: 4175, strictPort: true }, logLevel: 'silent' });
  const base = 'http://127.0.0.1:4175/';
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const loaded = await firstViewBytes(page, base);
    const sum = (kind: Loaded['kind'], key: 'gzip' | 'raw'): number => loaded.filter((l) => l.kind === kind).reduce((a, l) => a + l[key], 0);
    console.log('first view (Play) transfer, gzipped (raw):');
    for (const kind of ['page-js', 'worker-js', 'wasm'] as const) {
      console.log(`  ${kind.padEnd(9)} ${(sum(kind, 'gzip') / 1024).toFixed(1)} KiB (${(sum(kind, 'raw') / 1024).toFixed(1)} KiB) in ${loaded.filter((l) => l.kind === kind).length} files`);
      for (const l of loaded.filter((x) => x.kind === kind).sort((a, b) => b.gzip - a.gzip)) console.log(`    ${(l.gzip / 1024).toFixed(1).padStart(6)} KiB  ${l.url}`);
    }

    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const fresh = await browser.newContext();
      const p = await fresh.newPage();
      await p.goto(`${base}#/play`);
      times.push(await waitInteractive(p));
      await fresh.close();
    }
    console.log(`navigation → interactive episode: median ${median(times).toFixed(0)} ms (of ${times.map((t) => t.toFixed(0)).join(', ')})`);

    const bundles = (await (await fetch(`${base}bundles/index.json`)).json()) as { bundles: string[] };
    const dataset = bundles.bundles.includes('spider') ? 'spider' : 'demo';
    const run = await evaluateOracle(page, base, dataset);
    console.log(`Oracle on the ${dataset} eval split in the page: ${run.episodes} episodes, success ${run.success}, ${(run.ms / 1000).toFixed(2)} s`);
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
  }
}

await main();
