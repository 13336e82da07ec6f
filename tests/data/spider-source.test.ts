/**
 * In-memory Spider sources (a dropped folder as a file list, a zip): the importer gives exactly what it gives on the
 * same files in a folder on disk, wherever the Spider root sits among the files; layout problems and broken zips
 * give a DatasetError that says what to do. Uses the tiny Spider-layout fixture (nothing copied from Spider).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetError, toManifest } from '../../src/data/bundle.ts';
import { importSpider, type ImportReport } from '../../src/data/spider.ts';
import { fileListSpiderSource, findSpiderRoot, looksLikeZip, normalizePath, PAGE_LAYOUT_HINT, spiderSourceFromFiles, zipSpiderSource, type GivenFile } from '../../src/data/spider-source-memory.ts';
import { checkSpiderSource } from '../../src/data/spider-source.ts';
import type { Dataset } from '../../src/data/types.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { buildSpiderFixture } from './spider-fixture.ts';

let executor: WorkerSqlExecutor;
let dir: string;
/** The fixture's files, paths relative to its folder. */
let files: Array<{ path: string; bytes: Uint8Array }>;
let expected: { dataset: Dataset; report: ImportReport };

async function listFiles(root: string): Promise<Array<{ path: string; bytes: Uint8Array }>> {
  const out: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    out.push({ path: relative(root, full).replaceAll('\\', '/'), bytes: new Uint8Array(await readFile(full)) });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The fixture as dropped files under `prefix`, as Blobs (what the page passes). */
function given(prefix: string, only?: (path: string) => boolean): GivenFile[] {
  return files.filter((f) => !only || only(f.path)).map((f) => ({ path: `${prefix}${f.path}`, data: new Blob([new Uint8Array(f.bytes)]) }));
}

function zipOf(prefix: string, extra: Record<string, Uint8Array> = {}): Uint8Array {
  return zipSync({ ...Object.fromEntries(files.map((f) => [`${prefix}${f.path}`, f.bytes])), ...extra });
}

beforeAll(async () => {
  executor = createNodeSqlExecutor({ limits: { timeoutMs: 20_000 } });
  dir = await buildSpiderFixture();
  files = await listFiles(dir);
  expected = await importSpider(dir, executor, { curated: ['zoo'] });
});
afterAll(async () => {
  await executor.close();
  await rm(dir, { recursive: true, force: true });
});

describe('findSpiderRoot', () => {
  const cases: Array<[string, string[], string]> = [
    ['files at the root', ['dev.json', 'database/zoo/zoo.sqlite'], ''],
    ['under one top folder', ['spider/dev.json', 'spider/database/zoo/zoo.sqlite', 'spider/README.txt'], 'spider/'],
    ['the shallowest of two copies', ['a/b/spider/dev.json', 'a/b/spider/database/x/x.sqlite', 'a/dev.json', 'a/database/x/x.sqlite'], 'a/'],
    ['dev.json beside database/ wins over a lone dev.json', ['dev.json', 'data/dev.json', 'data/database/x/x.sqlite'], 'data/'],
    ['only databases', ['top/database/x/x.sqlite'], 'top/'],
    ['nothing of Spider under one folder', ['photos/a.png', 'photos/b.png'], 'photos/'],
    ['nothing of Spider, several folders', ['a/x.txt', 'b/y.txt'], ''],
  ];
  it.each(cases)('%s', (_name, paths, root) => expect(findSpiderRoot(paths)).toBe(root));

  it('normalises paths from every platform and drop API', () => {
    expect(normalizePath('./spider/dev.json')).toBe('spider/dev.json');
    expect(normalizePath('/spider/dev.json')).toBe('spider/dev.json');
    expect(normalizePath('spider\\database\\zoo\\zoo.sqlite')).toBe('spider/database/zoo/zoo.sqlite');
  });
});

describe('importing from a file list', () => {
  it.each([[''], ['spider/'], ['downloads/spider_data/']])('gives what the folder gives, with the root at %j', async (prefix) => {
    const source = fileListSpiderSource('spider', given(prefix));
    const { dataset, report } = await importSpider(source, executor, { curated: ['zoo'] });
    expect(report).toEqual(expected.report);
    expect(toManifest(dataset)).toEqual(toManifest(expected.dataset));
    expect(await dataset.loadDatabase('zoo')).toEqual(await expected.dataset.loadDatabase('zoo'));
  });

  it('reads nothing from files it does not need (a Blob that fails to read is never touched)', async () => {
    const broken = { path: 'spider/database/zoo/schema.sql', data: { arrayBuffer: () => Promise.reject(new Error('should not be read')) } as unknown as Blob };
    const source = fileListSpiderSource('spider', [...given('spider/'), broken]);
    await expect(importSpider(source, executor, { curated: ['zoo'] })).resolves.toBeTruthy();
  });

  it('says what is missing, and how to fix it on the page', async () => {
    const noDev = fileListSpiderSource('my-folder', given('my-folder/', (p) => p !== 'dev.json'));
    await expect(checkSpiderSource(noDev)).rejects.toThrow(/'my-folder' is not in Spider's official layout: it lacks dev\.json\. Choose the folder/);
    const noDatabases = fileListSpiderSource('x', given('x/', (p) => !p.startsWith('database/')));
    await expect(importSpider(noDatabases, executor)).rejects.toThrow(/lacks database\//);
    await expect(importSpider(noDatabases, executor)).rejects.toBeInstanceOf(DatasetError);
    expect(() => fileListSpiderSource('empty', [])).toThrow(/holds no files/);
    expect(() => fileListSpiderSource('junk', [{ path: '__MACOSX/._dev.json', data: new Uint8Array(1) }])).toThrow(/holds no files/);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('Import cancelled', 'AbortError'));
    await expect(importSpider(fileListSpiderSource('spider', given('')), executor, { signal: controller.signal })).rejects.toThrow(/cancelled/);
  });
});

describe('importing from a zip', () => {
  it('gives what the folder gives, under a top folder and beside macOS metadata', async () => {
    const zip = zipOf('spider_data/', { '__MACOSX/spider_data/._dev.json': new Uint8Array([1, 2, 3]), 'spider_data/.DS_Store': new Uint8Array(8) });
    const source = zipSpiderSource('spider_data.zip', zip);
    expect(source.location).toBe('spider_data.zip: spider_data');
    const { dataset, report } = await importSpider(source, executor, { curated: ['zoo'] });
    expect(report).toEqual(expected.report);
    expect(toManifest(dataset)).toEqual(toManifest(expected.dataset));
    expect(await dataset.loadDatabase('shop')).toEqual(await expected.dataset.loadDatabase('shop'));
  });

  it('is recognised by its first bytes, whatever its name', async () => {
    const zip = zipOf('');
    expect(looksLikeZip(zip)).toBe(true);
    expect(looksLikeZip(new TextEncoder().encode('SQLite format 3'))).toBe(false);
    const source = await spiderSourceFromFiles('ignored', [{ path: 'downloads/archive.bin', data: new Blob([new Uint8Array(zip)]) }]);
    expect(source.location).toBe('archive.bin');
    expect(await source.kind('dev.json')).toBe('file');
    const folder = await spiderSourceFromFiles('spider', given('spider/'));
    expect(folder.location).toBe('spider');
  });

  it('a broken zip, or one in the wrong layout, gives a clear error', async () => {
    const zip = zipOf('');
    const cut = zip.slice(0, Math.floor(zip.length / 2));
    await expect(spiderSourceFromFiles('x', [{ path: 'spider.zip', data: cut }])).rejects.toThrow(/'spider\.zip' is not a readable zip file/);
    const wrong = zipSpiderSource('photos.zip', zipSync({ 'photos/a.png': new Uint8Array(4) }));
    await expect(checkSpiderSource(wrong)).rejects.toThrow(new RegExp(`'photos\\.zip: photos' is not in Spider's official layout: it lacks database/.* and dev\\.json\\. ${PAGE_LAYOUT_HINT.slice(0, 30)}`));
  });
});
