/**
 * The page at /web/ (static-web.ts) on a real server, over a small fake build in a temporary folder: redirects,
 * content types, caching, path traversal, the Host/Origin policy, and the token rule (the page needs none, the API
 * still does). Requests go through node:http so paths reach the server exactly as written (fetch would resolve `..`).
 */
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/server.ts';
import { startServer } from './harness.ts';

const TOKEN = 'web-test-token-1234';
const INDEX = '<!doctype html><title>SQLEnv</title><script type="module" src="./assets/index-AbC123.js"></script>';
const SECRET = 'outside the site';

let parent: string;
let site: string;
let open: RunningServer;
let guarded: RunningServer;
let unbuilt: RunningServer;

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'sqlenv-web-'));
  site = join(parent, 'dist');
  await mkdir(join(site, 'assets'), { recursive: true });
  await mkdir(join(site, 'bundles', 'demo'), { recursive: true });
  await writeFile(join(site, 'index.html'), INDEX);
  await writeFile(join(site, 'assets', 'index-AbC123.js'), 'console.log(1);');
  await writeFile(join(site, 'assets', 'sql-wasm-XyZ.wasm'), Buffer.from([0, 97, 115, 109]));
  await writeFile(join(site, 'sw.js'), 'self.skipWaiting();');
  await writeFile(join(site, 'bundles', 'demo', 'manifest.json'), '{"name":"demo"}');
  await writeFile(join(site, 'bundles', 'demo', 'odd.bin'), 'x');
  await writeFile(join(site, '.env'), 'TOKEN=leak');
  await writeFile(join(parent, 'secret.txt'), SECRET);
  await symlink(join(parent, 'secret.txt'), join(site, 'link.txt'));
  await mkdir(join(parent, 'empty'));
  [open, guarded, unbuilt] = await Promise.all([
    startServer({ webDir: site, maxSessions: 2 }),
    startServer({ webDir: site, maxSessions: 2, token: TOKEN }),
    startServer({ webDir: join(parent, 'empty'), maxSessions: 2 }),
  ]);
});

afterAll(async () => {
  await Promise.all([open, guarded, unbuilt].map((s) => s.close()));
  await rm(parent, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(server: RunningServer, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the page at /web/', () => {
  it.each(['/', '/web', '/?token=x'])('%s redirects to /web/', async (path) => {
    const reply = await get(open, path);
    expect(reply.status).toBe(307);
    expect(reply.headers.location).toBe('/web/');
  });

  it('serves index.html at /web/ as HTML, revalidated on every load, 304 when unchanged', async () => {
    const reply = await get(open, '/web/');
    expect(reply).toMatchObject({ status: 200, body: INDEX });
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    const etag = String(reply.headers.etag);
    expect((await get(open, '/web/index.html', { 'if-none-match': etag })).status).toBe(304);
    expect((await get(open, '/web/', { 'if-none-match': 'W/"other"' })).status).toBe(200);
  });

  it.each([
    ['/web/assets/index-AbC123.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/web/assets/sql-wasm-XyZ.wasm', 'application/wasm', 'public, max-age=31536000, immutable'],
    ['/web/sw.js', 'text/javascript; charset=utf-8', 'no-cache'],
    ['/web/bundles/demo/manifest.json', 'application/json', 'no-cache'],
    ['/web/bundles/demo/odd.bin', 'application/octet-stream', 'no-cache'],
    ['/web/bundles/%64emo/manifest.json', 'application/json', 'no-cache'],
  ])('%s is %s, cache %s', async (path, type, cache) => {
    const reply = await get(open, path);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe(type);
    expect(reply.headers['cache-control']).toBe(cache);
  });

  it('HEAD gives the headers and no body; other methods are 405', async () => {
    const head = await get(open, '/web/sw.js', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String('self.skipWaiting();'.length));
    expect(head.body).toBe('');
    expect((await get(open, '/web/sw.js', {}, 'POST')).status).toBe(405);
    expect((await get(open, '/web', {}, 'DELETE')).status).toBe(405);
  });

  it.each([
    '/web/../secret.txt',
    '/web/%2e%2e/secret.txt',
    '/web/..%2fsecret.txt',
    '/web/assets/..%2f..%2fsecret.txt',
    '/web/..%5csecret.txt',
    '/web/%2Fetc%2Fpasswd',
    '//web/../../etc/passwd',
    '/web/link.txt',
    '/web/.env',
    '/web/%00',
    '/web/%E0%A4%A',
    '/web/assets/',
    '/web/nope.html',
  ])('%s is 404 and never a file outside the site', async (path) => {
    const reply = await get(open, path);
    expect(reply.status).toBe(404);
    expect(reply.body).not.toContain(SECRET);
    expect(reply.body).not.toContain('leak');
    expect(reply.body).not.toContain('root:');
  });

  it('keeps the Host and Origin checks: a rebound name, a foreign page, a cross-site no-cors load are 403', async () => {
    expect((await get(open, '/web/', { host: 'evil.example' })).status).toBe(403);
    expect((await get(open, '/', { host: 'evil.example' })).status).toBe(403);
    expect((await get(open, '/web/assets/index-AbC123.js', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await get(open, '/web/assets/index-AbC123.js', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).status).toBe(403);
    // The page's own module scripts carry its own origin, and a link from another site is a navigation: both pass.
    expect((await get(open, '/web/assets/index-AbC123.js', { origin: `http://127.0.0.1:${open.port}` })).status).toBe(200);
    expect((await get(open, '/web/', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).status).toBe(200);
  });

  it('needs no token on a server that has one, while the API still does', async () => {
    expect((await get(guarded, '/web/')).status).toBe(200);
    expect((await get(guarded, '/web/assets/index-AbC123.js')).status).toBe(200);
    expect((await get(guarded, '/')).status).toBe(307);
    for (const path of ['/metadata', '/openapi.json', '/docs', '/state']) expect((await get(guarded, path)).status, path).toBe(401);
    expect((await get(guarded, '/openapi.json', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    // The Host check still applies to the page.
    expect((await get(guarded, '/web/', { host: 'evil.example' })).status).toBe(403);
  });

  it('says how to build the page when there is none, and the API still works', async () => {
    expect(unbuilt.servesPage).toBe(false);
    expect(open.servesPage).toBe(true);
    const reply = await get(unbuilt, '/web/');
    expect(reply.status).toBe(404);
    expect(reply.body).toMatch(/npm run build/);
    expect((await get(unbuilt, '/')).status).toBe(307);
    expect((await get(unbuilt, '/health')).status).toBe(200);
  });
});
