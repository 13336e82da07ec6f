/**
 * scripts/space-build.sh, the Dockerfile's one build step, in a clean copy of the repository (its tracked and
 * unignored files: no dist/, no data bundles, no caches), then scripts/space-start.sh, the Dockerfile's CMD, on it:
 * the Space's build and start as the image runs them, without a container runtime.
 *
 * Cost: the install step links this checkout's node_modules (SPACE_BUILD_NODE_MODULES) instead of `npm ci` (which
 * CI's own clean checkout already runs); the demo data and the Vite build run for real (about 40 s on the 2-core
 * machine, most of this test's time).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPACE_HOST = 'someone-sqlenv.hf.space';

let copy: string;
let build: { status: number | null; output: string };

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  // A Space has no Spider: the build bundles the demo data only, however this machine is set up.
  delete env.SPIDER_DIR;
  return env;
}

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'sqlenv-space-'));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  expect(listed.status).toBe(0);
  const files = listed.stdout.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)));
  for (const file of files) await cp(join(ROOT, file), join(copy, file), { recursive: true, preserveTimestamps: true });
  const run = spawnSync('bash', ['scripts/space-build.sh'], { cwd: copy, encoding: 'utf8', env: environment({ SPACE_BUILD_NODE_MODULES: join(ROOT, 'node_modules') }), maxBuffer: 64 * 1024 * 1024 });
  build = { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}, 600_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Space build and start scripts, in a clean copy', () => {
  it('builds the page from nothing: the demo data bundle and dist/', async () => {
    expect(build.status, build.output.slice(-4_000)).toBe(0);
    expect(build.output).toMatch(/space-build: done/);
    expect(existsSync(join(copy, 'dist', 'index.html'))).toBe(true);
    const bundles = JSON.parse(await readFile(join(copy, 'dist', 'bundles', 'index.json'), 'utf8')) as unknown;
    expect(JSON.stringify(bundles)).toMatch(/demo/);
    expect(JSON.stringify(bundles)).not.toMatch(/spider/);
  });

  it('starts as the image does: every interface, the page at /web/, the Space name allowed as Host, others refused', async () => {
    expect(build.status).toBe(0);
    const child = spawn('bash', ['scripts/space-start.sh'], { cwd: copy, env: environment({ PORT: '0', SPACE_HOST }) });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /at http:\/\/0\.0\.0\.0:(\d+)/.exec(stderr);
          if (match) resolve(Number(match[1]));
        });
        child.on('close', () => reject(new Error(`space-start.sh exited before listening: ${stderr}`)));
      });
      expect(stderr).toMatch(/page http:\/\/0\.0\.0\.0:\d+\/web\//);
      expect(await get(port, '/health', SPACE_HOST)).toEqual({ status: 200, body: '{"status":"healthy"}' });
      const page = await get(port, '/web/', SPACE_HOST);
      expect(page.status).toBe(200);
      expect(page.body).toBe(await readFile(join(copy, 'dist', 'index.html'), 'utf8'));
      expect((await get(port, '/openapi.json', SPACE_HOST)).status).toBe(200);
      expect((await get(port, '/web/', 'evil.example')).status).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
