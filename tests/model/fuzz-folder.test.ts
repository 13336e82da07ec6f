/**
 * Fuzz: the Node model-folder loader (files-node.ts loadModelFolder) on files in a temp dir — config.json mutated or
 * not JSON, model.safetensors mutated, a sharded index whose weight_map names paths that try to leave the folder
 * (`..`, absolute, backslashes, NUL, URLs, a symbolic link to a file outside). A valid-looking model and a secret file
 * sit OUTSIDE the folder as sentinels. Each input either loads or throws one of the project's typed errors; the
 * bytes on disk are the same after as before (hash of the whole temp dir); and every file the loader reads or stats
 * (node:fs/promises wrapped) lies inside the model folder — the sentinels are never opened. 250 inputs per run,
 * seeded (SQLENV_TEST_SEED replays).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { loadModelFolder } from '../../src/model/files-node.ts';
import { readSafetensors, writeSafetensors, type TensorToWrite } from '../../src/model/safetensors.ts';
import { classify, fuzzSeed, mutateConfig, mutateSafetensors, pickOne, tinyConfigJson, tinyWeights } from './fuzz-support.ts';

/** Every path the loader hands to node:fs/promises, by function. */
const fsLog = vi.hoisted(() => ({ calls: [] as Array<{ fn: string; path: string }> }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const wrap = <F extends (...args: never[]) => unknown>(fn: string, f: F): F =>
    ((...args: Parameters<F>) => {
      fsLog.calls.push({ fn, path: String(args[0]) });
      return f(...args);
    }) as F;
  const wrapped = { ...fs, readFile: wrap('readFile', fs.readFile), stat: wrap('stat', fs.stat), open: wrap('open', fs.open), realpath: wrap('realpath', fs.realpath), access: wrap('access', fs.access) };
  return { ...wrapped, default: wrapped };
});

const INPUTS = 250;
const seed = fuzzSeed('fuzz-folder');
let root = '';
let modelDir = '';

async function hashTree(dir: string): Promise<string> {
  const h = createHash('sha256');
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).map((e) => join(e.parentPath, e.name)).sort();
  for (const path of entries) {
    h.update(relative(dir, path));
    h.update(await readFile(path).catch(() => Buffer.from('(not a file)')));
  }
  return h.digest('hex');
}

function split(bytes: Uint8Array): [Uint8Array, Uint8Array, string[]] {
  const { tensors } = readSafetensors(bytes);
  const a = new Map<string, TensorToWrite>();
  const b = new Map<string, TensorToWrite>();
  [...tensors].forEach(([name, t], i) => (i % 2 === 0 ? a : b).set(name, { shape: t.shape, data: t.data }));
  return [writeSafetensors(a), writeSafetensors(b), [...tensors.keys()]];
}

const ESCAPES = [
  '../sentinel.safetensors',
  '../../sentinel.safetensors',
  'sub/../../sentinel.safetensors',
  'link.safetensors',
  '..\\sentinel.safetensors',
  'a\u0000.safetensors',
  'file:///etc/passwd',
  'https://example.com/model.safetensors',
  '%2e%2e/sentinel.safetensors',
  '.hidden.safetensors',
  '',
  'missing.safetensors',
  '../../../../../../etc/passwd',
];

async function writeCase(rng: Rng, weights: Uint8Array): Promise<void> {
  await rm(modelDir, { recursive: true, force: true });
  await mkdir(modelDir);
  await symlink(join(root, 'sentinel.safetensors'), join(modelDir, 'link.safetensors'));
  const config = tinyConfigJson();
  const sharded = randomInt(rng, 2) === 0;
  const what = randomInt(rng, 3);
  const configText = what === 0 ? (randomInt(rng, 8) === 0 ? pickOne(rng, ['', '{', '{"architectures":', 'null']) : JSON.stringify(mutateConfig(rng, config))) : JSON.stringify(config);
  await writeFile(join(modelDir, 'config.json'), configText);
  if (!sharded) {
    await writeFile(join(modelDir, 'model.safetensors'), what === 1 ? mutateSafetensors(rng, weights) : weights);
    return;
  }
  const [a, b, names] = split(weights);
  const files = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
  const weightMap: Record<string, string> = Object.fromEntries(names.map((n, i) => [n, files[i % 2]]));
  if (what === 2) weightMap[pickOne(rng, names)] = pickOne(rng, ESCAPES).replace('/etc', resolve('/etc'));
  if (what === 2 && randomInt(rng, 4) === 0) weightMap[names[0]] = join(root, 'sentinel.safetensors'); // absolute
  const indexText = what === 2 && randomInt(rng, 10) === 0 ? pickOne(rng, ['{', '[]', '{"weight_map": 3}', '{"weight_map": {}}']) : JSON.stringify({ metadata: {}, weight_map: weightMap });
  await writeFile(join(modelDir, 'model.safetensors.index.json'), indexText);
  await writeFile(join(modelDir, files[0]), what === 1 ? mutateSafetensors(rng, a) : a);
  await writeFile(join(modelDir, files[1]), b);
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'fuzz-folder-')));
  modelDir = join(root, 'model');
  // Sentinels outside the model folder: a loadable set of weights and a secret; neither may ever be opened.
  await writeFile(join(root, 'sentinel.safetensors'), tinyWeights(createRng(1)));
  await writeFile(join(root, 'secret.json'), '{"secret": true}');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe(`fuzz the Node model-folder loader (seed ${seed})`, () => {
  it(`${INPUTS} mutated folders: typed errors only, nothing on disk changes, nothing outside the folder is read`, async () => {
    const rng = createRng(seed);
    const weights = tinyWeights(rng);
    const outcomes = new Map<string, number>();
    for (let i = 0; i < INPUTS; i++) {
      const where = `seed ${seed}, case ${i}`;
      await writeCase(rng, weights);
      const before = await hashTree(root);
      fsLog.calls.length = 0;
      let outcome = 'ok';
      try {
        const model = await loadModelFolder(modelDir);
        expect(model.tensors.size, where).toBeGreaterThan(0);
      } catch (e) {
        outcome = classify(e, where);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      const calls = [...fsLog.calls];
      expect(calls.some((c) => c.fn === 'readFile'), `${where}: the fs wrapper saw no read`).toBe(true);
      expect(await hashTree(root), `${where}: files changed`).toBe(before);
      for (const call of calls) {
        const rel = relative(modelDir, resolve(call.path));
        if (call.fn === 'readFile' || call.fn === 'stat' || call.fn === 'open') {
          expect(rel.startsWith('..') || resolve(call.path) === resolve(modelDir), `${where}: ${call.fn}(${call.path}) outside the model folder`).toBe(false);
        }
        expect(call.path.includes('sentinel') && call.fn !== 'realpath', `${where}: ${call.fn}(${call.path})`).toBe(false);
      }
    }
    console.log(`fuzz-folder: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(outcomes.get('ok') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
    expect(outcomes.get('UnsafeModelPathError') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
  });
});
