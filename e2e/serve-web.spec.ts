/**
 * The app as an OpenEnv Space shows it: `sqlenv serve` (a real child process, as the Space's start script runs it)
 * serving the built dist/ at /web/. The test opens the server's root, which redirects to /web/ keeping the route in
 * the fragment, and plays one step of Play there; every request the page makes must stay under /web/.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';

const BIN = fileURLToPath(new URL('../bin/sqlenv.mjs', import.meta.url));
const DIST = process.env.E2E_DIST ?? 'dist';

let server: ChildProcessWithoutNullStreams;
let origin = '';

test.beforeAll(async () => {
  server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--max-sessions', '2', '--web', DIST]);
  let stderr = '';
  origin = await new Promise<string>((resolve, reject) => {
    server.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+) .*page http:\/\/127\.0\.0\.1:\d+\/web\//.exec(stderr);
      if (match) resolve(match[1]);
    });
    server.on('close', () => reject(new Error(`sqlenv serve exited before serving the page: ${stderr}`)));
  });
});

test.afterAll(async () => {
  const exited = new Promise((resolve) => server.on('close', resolve));
  server.kill('SIGTERM');
  await exited;
});

test('sqlenv serve shows the app at /web/ and a step of Play works there', async ({ page, shot }) => {
  const outside: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === origin && url.pathname !== '/' && !url.pathname.startsWith('/web/')) outside.push(url.pathname);
  });
  const response = await page.goto(`${origin}/#/play`);
  expect(new URL(page.url()).pathname).toBe('/web/');
  expect(response?.headers()['content-type']).toMatch(/^text\/html/);
  // A bound on waiting, not a timing check: the first load compiles sql.js's WASM while the service worker
  // precaches the whole build, which takes a while on a loaded 2-core machine.
  await expect(page.getByRole('region', { name: 'Question' })).toBeVisible({ timeout: 45_000 });
  await page.getByRole('region', { name: /Tables/ }).getByRole('radio').first().check();
  await page.getByRole('button', { name: 'Sample', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Transcript' })).toContainText('SAMPLE');
  expect(outside.filter((p) => p !== '/favicon.ico')).toEqual([]);
  await shot('serve-web-play');
});
