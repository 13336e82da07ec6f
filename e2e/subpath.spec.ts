/**
 * The build works from any sub-path of a static host: every URL in it is relative. The test serves dist/ itself,
 * under /some/deep/path/ on a loopback port of its own, and plays a step there.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { expect, test } from './fixtures.ts';

const PREFIX = '/some/deep/path/';
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };

let server: Server;
let origin = '';
const outside: string[] = [];

test.beforeAll(async () => {
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (!path.startsWith(PREFIX)) {
      outside.push(path);
      response.writeHead(404).end();
      return;
    }
    const file = normalize(join('dist', path.slice(PREFIX.length) || 'index.html'));
    readFile(file).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('the app runs from a sub-path', async ({ page, shot }) => {
  await page.goto(`${origin}${PREFIX}#/play`);
  await expect(page.getByRole('region', { name: 'Question' })).toBeVisible();
  await page.getByRole('region', { name: /Tables/ }).getByRole('radio').first().check();
  await page.getByRole('button', { name: 'Sample', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Transcript' })).toContainText('SAMPLE');
  // Anything requested outside the prefix would be a URL the build did not keep relative.
  expect(outside.filter((p) => p !== '/favicon.ico')).toEqual([]);
  await shot('subpath-play');
});
