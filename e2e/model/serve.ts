/**
 * What the model CLIs share (scripts/model-logits.ts, scripts/make-tiny-model.ts, scripts/export-onnx.ts,
 * bench/engine.bench.ts), so each says only what is its own:
 *  - `parseCliArgs`: `--name value` flags (plus boolean switches), `--help`, typed reads that name the bad flag, and
 *    an error for any flag left unread; `runCli` maps a `UsageError` to exit 2 with the usage line, others to exit 1.
 *  - `servePage`: a page bundled by bundle.ts at `/` and `/page.js`, plus folders mounted under URL prefixes
 *    (`/model/` → a model folder, nested `onnx/` included), on 127.0.0.1 at an ephemeral port: a secure context, so
 *    WebGPU and Cache Storage are there. Paths are normalised and may not leave their folder.
 *  - `withChromium`: Debian's headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium) with
 *    `--enable-unsafe-webgpu` (SwiftShader where there is no GPU), opened on the served page once its script has set
 *    the title to `<title> ready`; closed (and the server with it) whatever happens. Nothing leaves 127.0.0.1: any
 *    http(s) request to another origin (a CDN fallback, say) is aborted and fails the run, naming the URL.
 * Vite (bundle.ts) and Playwright are imported only when a page is served, so a CLI that just parses its flags
 * (make-tiny-model) does not load them.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Page } from '@playwright/test';

export class UsageError extends Error {}

export interface CliArgs {
  /** The value of `--name`, or undefined when absent. */
  string(name: string): string | undefined;
  /** `--name` as a positive integer, or `fallback` when absent. */
  int(name: string, fallback: number): number;
  int(name: string): number | undefined;
  /** Whether the switch `--name` (declared in `switches`) was given. */
  flag(name: string): boolean;
  /** Throws for any flag not read. */
  done(): void;
}

/**
 * Parses `argv` (process.argv.slice(2)). `switches` take no value; `--help`/`-h` prints `usage` and exits 0. A value
 * may not start with `--` (a forgotten value) unless its flag is listed in `freeText` (e.g. `--text`).
 */
export function parseCliArgs(argv: readonly string[], usage: string, options: { switches?: readonly string[]; freeText?: readonly string[] } = {}): CliArgs {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      console.log(usage);
      process.exit(0);
    }
    if (!flag.startsWith('--')) throw new UsageError(`unexpected argument '${flag}'`);
    const name = flag.slice(2);
    if (options.switches?.includes(name)) {
      switches.add(name);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || (value.startsWith('--') && !options.freeText?.includes(name))) throw new UsageError(`${flag} needs a value`);
    values.set(name, value);
    i++;
  }
  const string = (name: string): string | undefined => {
    const v = values.get(name);
    values.delete(name);
    return v;
  };
  function int(name: string, fallback: number): number;
  function int(name: string): number | undefined;
  function int(name: string, fallback?: number): number | undefined {
    const v = string(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} must be a positive integer, not '${v}'`);
    return Number(v);
  }
  return {
    string,
    int,
    flag: (name) => switches.has(name),
    done() {
      if (values.size > 0) throw new UsageError(`unknown option${values.size > 1 ? 's' : ''} ${[...values.keys()].map((k) => `--${k}`).join(', ')}`);
    },
  };
}

/** Runs a CLI's main: a usage error (or one `isUsage` accepts) prints the message and usage and exits 2; any other, 1. */
export function runCli(main: () => Promise<void>, usage: string, isUsage: (e: unknown) => boolean = () => false): void {
  main().catch((error: unknown) => {
    if (error instanceof UsageError || isUsage(error)) {
      console.error(`${(error as Error).message}\n${usage}`);
      process.exit(2);
    }
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

export interface PageServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  close(): void;
}

export interface PageOptions {
  /** Folders served under URL prefixes: `{ '/model/': dir }`. */
  mounts?: Readonly<Record<string, string>>;
  /** Module specifiers the page resolves at run time (an import map, placed before the page's script). */
  importMap?: Readonly<Record<string, string>>;
}

/**
 * Serves the bundle of `entry` as `/page.js` under an HTML page titled `title`, and each mounted folder under its
 * URL prefix; anything else is a 404.
 */
export async function servePage(entry: string, title: string, options: PageOptions = {}): Promise<PageServer> {
  const mounts = options.mounts ?? {};
  const { PAGE_HTML, pageBundle } = await import('./bundle.ts');
  const code = await pageBundle(entry);
  const importMap = options.importMap ? `<script type="importmap">${JSON.stringify({ imports: options.importMap })}</script>` : '';
  const html = PAGE_HTML.replace('<title>model-page</title>', `<title>${title}</title>${importMap}`);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/' || path === '/index.html') return res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    if (path === '/page.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
    const prefix = Object.keys(mounts).find((p) => path.startsWith(p));
    const file = prefix === undefined ? null : normalize(decodeURIComponent(path.slice(prefix.length)));
    if (prefix === undefined || file === null || file.startsWith('..') || file.startsWith('/')) return res.writeHead(404).end();
    readFile(join(mounts[prefix], file)).then(
      (bytes) => res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': bytes.length }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/**
 * Serves `entry` (see servePage), opens it in headless Chromium, waits for the title `<title> ready`, and runs `fn`
 * with the page and the server's origin; the browser and the server are closed afterwards.
 */
export async function withChromium<T>(entry: string, title: string, options: PageOptions, fn: (page: Page, origin: string) => Promise<T>): Promise<T> {
  const server = await servePage(entry, title, options);
  try {
    const { chromium } = await import('@playwright/test');
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--enable-unsafe-webgpu'],
    });
    try {
      const page = await browser.newPage();
      const offOrigin: string[] = [];
      await page.route(
        (url) => /^https?:$/.test(url.protocol) && url.origin !== server.origin,
        (route) => {
          offOrigin.push(route.request().url());
          return route.abort();
        },
      );
      await page.goto(`${server.origin}/index.html`);
      await page.waitForFunction((t) => document.title === `${t} ready`, title);
      const result = await fn(page, server.origin);
      if (offOrigin.length > 0) throw new Error(`the page requested files from outside 127.0.0.1 (blocked): ${offOrigin.join(', ')}`);
      return result;
    } finally {
      await browser.close();
    }
  } finally {
    server.close();
  }
}
