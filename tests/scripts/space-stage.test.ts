/**
 * scripts/space-stage.sh: the folder `openenv push` uploads. It must hold what push's structure check requires at
 * its root (read from OpenEnv's cli/_cli_utils.py validate_env_structure: openenv.yaml, __init__.py, client.py,
 * models.py, README.md, a Dockerfile, pyproject.toml), the repository's own files and none of its ignored output, and
 * a pyproject.toml that is python/pyproject.toml with the package found under python/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PUSH_REQUIRED = ['openenv.yaml', '__init__.py', 'client.py', 'models.py', 'README.md', 'Dockerfile', 'pyproject.toml'];

let parent: string;
let out: string;
let run: { status: number | null; output: string };

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), 'sqlenv-stage-'));
  out = join(parent, 'space');
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'space-stage.sh'), out], { encoding: 'utf8' });
  run = { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}, 120_000);

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('scripts/space-stage.sh', () => {
  it("holds every file openenv push's structure check requires at the root", () => {
    expect(run.status, run.output).toBe(0);
    for (const file of PUSH_REQUIRED) expect(existsSync(join(out, file)), file).toBe(true);
  });

  it("copies the repository's files (the ones the Dockerfile builds from) and none of its ignored output", async () => {
    for (const file of ['package.json', 'package-lock.json', 'scripts/space-build.sh', 'scripts/space-start.sh', 'src/cli/main.ts', 'python/sqlenv_client/openenv.yaml']) {
      expect(existsSync(join(out, file)), file).toBe(true);
    }
    expect(await readFile(join(out, 'Dockerfile'), 'utf8')).toBe(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    for (const ignored of ['node_modules', 'dist', '.git', 'public/bundles']) expect(existsSync(join(out, ignored)), ignored).toBe(false);
  });

  it('writes pyproject.toml as python/pyproject.toml with the package found under python/', async () => {
    const original = (await readFile(join(ROOT, 'python', 'pyproject.toml'), 'utf8')).split('\n');
    const staged = (await readFile(join(out, 'pyproject.toml'), 'utf8')).split('\n');
    const at = staged.indexOf('[tool.setuptools]');
    expect(at).toBeGreaterThan(0);
    expect(staged[at + 1]).toBe('package-dir = { "" = "python" }');
    // Dropping the header comment and the added line gives the original back, line for line.
    expect(staged.filter((_, i) => i !== 0 && i !== at + 1)).toEqual(original);
  });

  it('client.py and models.py re-export the client package; a non-empty target is refused', async () => {
    expect(await readFile(join(out, 'client.py'), 'utf8')).toMatch(/^from sqlenv_client import SQLEnvClient, SqlenvEnv$/m);
    expect(await readFile(join(out, 'models.py'), 'utf8')).toMatch(/^from sqlenv_client import SQLEnvAction, SQLEnvObservation, SQLEnvState$/m);
    const busy = join(parent, 'busy');
    await mkdir(busy);
    await writeFile(join(busy, 'keep.txt'), 'mine');
    const again = spawnSync('bash', [join(ROOT, 'scripts', 'space-stage.sh'), busy], { encoding: 'utf8' });
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/is not empty/);
    expect(await readFile(join(busy, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
