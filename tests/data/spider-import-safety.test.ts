/**
 * The Spider importer against hostile input (issue 22, items 10, 11, 14, the trap of item 2, and terminal escapes in
 * the report): a dev.json whose db_id climbs out of the folder, symbolic links that lead out, names holding terminal
 * escapes and bidi overrides, runaway and crashing gold queries, an overall time budget on a fake clock, and zips
 * with bombs, liars and duplicate entries. Every folder is built in a temp dir of its own and removed after.
 *
 * This file imports only modules that existed before these rules (spider.ts, spider-source-memory.ts, …), so it can
 * be run against the old importer to see each case fail there (the lead's check; see /tmp/notes/import.md).
 */
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/data/bundle.ts';
import { formatImportReport, importSpider } from '../../src/data/spider.ts';
import { fileListSpiderSource, zipSpiderSource } from '../../src/data/spider-source-memory.ts';
import type { SqlExecutor } from '../../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { SqlError } from '../../src/sql/types.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { buildSpiderFixture, FIXTURE_DEV, type FixtureExample } from './spider-fixture.ts';

let executor: WorkerSqlExecutor;
const temps: string[] = [];

beforeAll(() => {
  executor = createNodeSqlExecutor({ limits: { timeoutMs: 20_000 } });
});
afterAll(async () => {
  await executor.close();
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp dir `<tmp>/x/` holding the tiny Spider fixture at `spider/` with `dev` as its dev.json, and `outside/`. */
async function layout(dev: FixtureExample[]): Promise<{ root: string; spider: string; outside: string }> {
  const root = await mkdtemp(join(tmpdir(), 'sqlenv-import-safety-'));
  temps.push(root);
  const spider = join(root, 'x', 'spider');
  const outside = join(root, 'x', 'outside');
  await mkdir(join(root, 'x'), { recursive: true });
  await rename(await buildSpiderFixture({ train: false }), spider);
  await writeFile(join(spider, 'dev.json'), JSON.stringify(dev));
  // A database outside the Spider folder, with a table no question should ever reach.
  await mkdir(join(outside, 'secret'), { recursive: true });
  await writeFile(join(outside, 'secret.sqlite'), await readFile(join(spider, 'database', 'zoo', 'zoo.sqlite')));
  return { root, spider, outside };
}

const COUNT_PETS = FIXTURE_DEV[0];
const PETS_BY_AGE = FIXTURE_DEV[1];
const q = (db_id: string, query: string): FixtureExample => ({ db_id, question: `Asked of ${db_id}?`, query });

/** `target` with some methods replaced; every other method runs on `target` itself. */
function intercept(target: SqlExecutor, overrides: Partial<SqlExecutor>): SqlExecutor {
  return new Proxy(target, {
    get(t, property) {
      if (property in overrides) return overrides[property as keyof SqlExecutor];
      const value: unknown = Reflect.get(t, property, t);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}

// eslint-disable-next-line no-control-regex -- what a terminal acts on: C0, DEL, C1, bidi overrides and isolates
const TERMINAL_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('db_id and paths stay inside the Spider folder', () => {
  it('skips a db_id that climbs out (../../outside/secret) and never reads the file it names', async () => {
    const { spider } = await layout([COUNT_PETS, q('../../outside/secret', 'SELECT count(*) FROM pets'), q('/etc/passwd', 'SELECT 1'), q('..', 'SELECT 1')]);
    const { dataset, report } = await importSpider(spider, executor);
    expect(dataset.questions.map((x) => x.id)).toEqual(['dev-0000']);
    expect(dataset.databases.map((d) => d.id)).toEqual(['zoo']);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([
      ['dev-0001', 'bad-db-id'],
      ['dev-0002', 'bad-db-id'],
      ['dev-0003', 'bad-db-id'],
    ]);
    expect(report.skippedQuestions[0].detail).toMatch(/db_id '\.\.\/\.\.\/outside\/secret' is not a plain database name/);
    await expect(dataset.loadDatabase('../../outside/secret')).rejects.toBeInstanceOf(DatasetError);
    expect(formatImportReport(report)).toMatch(/db_ids that are not plain names .*: \.\.\/\.\.\/outside\/secret, \/etc\/passwd, \.\./);
  });

  it('follows a link inside the folder, refuses one that leads out (as an unreadable database, naming why)', async () => {
    const { spider, outside } = await layout([COUNT_PETS, q('leak', 'SELECT count(*) FROM pets'), q('alias', 'SELECT count(*) FROM pets')]);
    await mkdir(join(spider, 'database', 'leak'));
    await symlink(join(outside, 'secret.sqlite'), join(spider, 'database', 'leak', 'leak.sqlite'));
    await mkdir(join(spider, 'database', 'alias'));
    await symlink('../zoo/zoo.sqlite', join(spider, 'database', 'alias', 'alias.sqlite'));
    const { dataset, report } = await importSpider(spider, executor);
    expect(dataset.databases.map((d) => d.id)).toEqual(['alias', 'zoo']);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([['dev-0001', 'unreadable-database']]);
    expect(report.skippedQuestions[0].detail).toMatch(/database\/leak\/leak\.sqlite leads outside the Spider folder/);
  });

  it('refuses a dev.json that is a link to a file outside the folder', async () => {
    const { spider, outside } = await layout([COUNT_PETS]);
    await writeFile(join(outside, 'dev.json'), JSON.stringify([COUNT_PETS]));
    await rm(join(spider, 'dev.json'));
    await symlink(join(outside, 'dev.json'), join(spider, 'dev.json'));
    await expect(importSpider(spider, executor)).rejects.toThrow(/dev\.json leads outside the Spider folder/);
  });
});

describe('names in the report', () => {
  it('prints terminal escapes and bidi overrides escaped, never raw', async () => {
    const rtl = 'pets\u202e';
    const { spider } = await layout([COUNT_PETS, q('zoo\u001b[2J\u001b]0;owned\u0007', 'SELECT 1'), q(rtl, 'SELECT count(*) FROM pets'), q('ghost\u009b31m', 'SELECT 1')]);
    await mkdir(join(spider, 'database', rtl));
    await writeFile(join(spider, 'database', rtl, `${rtl}.sqlite`), await readFile(join(spider, 'database', 'zoo', 'zoo.sqlite')));
    const { dataset, report } = await importSpider(spider, executor);
    // A bidi override is no path separator: the database is imported, and printed escaped.
    expect(dataset.databases.map((d) => d.id)).toEqual([rtl, 'zoo']);
    const text = formatImportReport(report);
    expect(text).not.toMatch(TERMINAL_UNSAFE);
    expect(text).toContain('pets\\u202e');
    expect(text).toContain('zoo\\x1b[2J\\x1b]0;owned\\x07');
    expect(text).toContain('ghost\\x9b31m');
  });
});

describe('time budget', () => {
  it('stops a runaway gold query at the per-query limit, skips it as a timeout, and goes on', async () => {
    const runaway = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
    const { spider } = await layout([COUNT_PETS, q('zoo', runaway), PETS_BY_AGE, q('shop', 'SELECT count(*) FROM sales')]);
    const { dataset, report } = await importSpider(spider, executor, { budget: { queryMs: 300 } });
    expect(dataset.questions.map((x) => x.id)).toEqual(['dev-0000', 'dev-0002', 'dev-0003']);
    expect(dataset.questions[1].goldResult.rows).toEqual([['Tom'], ['Rex'], ['Kit']]);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([['dev-0001', 'timeout']]);
    expect(report.skipped.timeout).toBe(1);
    expect(formatImportReport(report)).toContain('gold queries stopped at the 0.3 s limit per query: 1');
  });

  it('skips every question left once the overall budget is spent, and says how many (a fake clock)', async () => {
    const golds = ['SELECT count(*) FROM pets', "SELECT name FROM pets WHERE owner = 'Ann'", 'SELECT max(age) FROM pets', 'SELECT min(age) FROM pets', 'SELECT sum(age) FROM pets'];
    const { spider } = await layout([...golds.map((g) => q('zoo', g)), q('shop', 'SELECT count(*) FROM sales')]);
    // Each gold query takes one fake second; the budget is 2.5 s, so three run (at 0, 1 and 2 s) and three do not.
    // Databases run in name order: shop's question first, then zoo's in file order.
    let clock = 0;
    const timed = intercept(executor, {
      query: (dbKey, sql, limits) => {
        if (golds.includes(sql) || sql.includes('sales')) clock += 1000;
        return executor.query(dbKey, sql, limits);
      },
    });
    const { dataset, report } = await importSpider(spider, timed, { budget: { totalMs: 2500 }, now: () => clock });
    expect(dataset.questions.map((x) => x.id)).toEqual(['dev-0000', 'dev-0001', 'dev-0005']);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([
      ['dev-0002', 'over-budget'],
      ['dev-0003', 'over-budget'],
      ['dev-0004', 'over-budget'],
    ]);
    expect(report.kept + report.skipped['over-budget']).toBe(report.questions);
    expect(formatImportReport(report)).toContain("the import's time budget of 2.5 s ran out: 3 questions were not run");
  });
});

describe('a gold query that crashes the SQL engine', () => {
  it('is skipped as a crash, and the import goes on on a fresh engine (an engine left broken until reloaded)', async () => {
    const { spider } = await layout([COUNT_PETS, q('zoo', 'SELECT CRASH_HERE'), PETS_BY_AGE, q('shop', 'SELECT count(*) FROM sales')]);
    // After the crash every call fails as a trashed heap does ("file is not a database"), until a database is loaded.
    let broken = false;
    const brokenUnlessLoaded = (): void => {
      if (broken) throw new SqlError('sql', 'file is not a database');
    };
    const crashing = intercept(executor, {
      load: async (dbKey, bytes) => {
        broken = false;
        return executor.load(dbKey, bytes);
      },
      query: async (dbKey, sql, limits) => {
        brokenUnlessLoaded();
        if (sql.includes('CRASH_HERE')) {
          broken = true;
          throw new SqlError('crashed', 'SQLite crashed (memory access out of bounds); the SQL worker was replaced.');
        }
        return executor.query(dbKey, sql, limits);
      },
      tables: async (dbKey) => {
        brokenUnlessLoaded();
        return executor.tables(dbKey);
      },
    });
    const { dataset, report } = await importSpider(spider, crashing);
    expect(dataset.questions.map((x) => x.id)).toEqual(['dev-0000', 'dev-0002', 'dev-0003']);
    expect(dataset.questions.find((x) => x.id === 'dev-0002')?.goldResult.rows).toEqual([['Tom'], ['Rex'], ['Kit']]);
    expect(dataset.databases).toEqual([
      { id: 'shop', file: 'db/shop.sqlite', tables: ['sales', 'staff'] },
      { id: 'zoo', file: 'db/zoo.sqlite', tables: ['pets'] },
    ]);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([['dev-0001', 'engine-crash']]);
    expect(formatImportReport(report)).toContain('gold queries that crashed the SQL engine (it was replaced): 1');
  });

  it('a real trap in sql.js (replicate past 2 GiB) costs only its own question', async () => {
    const { spider } = await layout([COUNT_PETS, q('zoo', "SELECT length(replicate('ab', 2147483648))"), PETS_BY_AGE, q('shop', 'SELECT count(*) FROM sales')]);
    const { dataset, report } = await importSpider(spider, executor);
    expect(dataset.questions.map((x) => [x.id, x.goldResult.rows])).toEqual([
      ['dev-0000', [[3]]],
      ['dev-0002', [['Tom'], ['Rex'], ['Kit']]],
      ['dev-0003', [[3]]],
    ]);
    // A crash where the trap is caught as one; an SQL error where the function is refused before it runs.
    expect(report.skippedQuestions.map((s) => s.id)).toEqual(['dev-0001']);
    expect(['engine-crash', 'sql-error']).toContain(report.skippedQuestions[0].reason);
  });
});

/** A zip of `entries` in this order (duplicates allowed: fflate's streaming writer does not check names). */
function zipOf(entries: Array<[name: string, bytes: Uint8Array]>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    parts.push(data);
  });
  for (const [name, bytes] of entries) {
    const file = bytes.length > 4096 ? new ZipDeflate(name, { level: 9 }) : new ZipPassThrough(name);
    zip.add(file);
    file.push(bytes, true);
  }
  zip.end();
  return new Uint8Array(Buffer.concat(parts));
}

describe('zips in the page', () => {
  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  let zooBytes: Uint8Array;
  beforeAll(async () => {
    const { spider } = await layout([COUNT_PETS]);
    zooBytes = new Uint8Array(await readFile(join(spider, 'database', 'zoo', 'zoo.sqlite')));
  });

  it('refuses a bomb from its directory, before inflating it', () => {
    const bomb = zipOf([['spider/dev.json', json([q('b', 'SELECT 1')])], ['spider/database/b/b.sqlite', new Uint8Array(8 * 1024 * 1024)]]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => zipSpiderSource('bomb.zip', bomb)).toThrow(DatasetError);
    expect(() => zipSpiderSource('bomb.zip', bomb)).toThrow(/'bomb\.zip' cannot be imported: .*b\.sqlite.*zip bomb/);
  });

  it('refuses a zip holding dev.json twice (the last used to win silently)', () => {
    const twice = zipOf([['spider/dev.json', json([COUNT_PETS])], ['spider/database/zoo/zoo.sqlite', zooBytes], ['spider/dev.json', json([q('zoo', 'SELECT 666')])]]);
    expect(() => zipSpiderSource('spider.zip', twice)).toThrow(/two files named 'spider\/dev\.json'/);
  });

  it('skips a database whose entry lies about its size, and keeps the rest', async () => {
    const liar = zipOf([['spider/dev.json', json([COUNT_PETS, q('big', 'SELECT 1')])], ['spider/database/zoo/zoo.sqlite', zooBytes], ['spider/database/big/big.sqlite', new Uint8Array(200_000)]]);
    // The central directory says big.sqlite is 100 bytes.
    const view = new DataView(liar.buffer, liar.byteOffset);
    const name = new TextEncoder().encode('spider/database/big/big.sqlite');
    for (let at = 0; at + 46 + name.length <= liar.length; at++) {
      if (view.getUint32(at, true) === 0x02014b50 && name.every((b, i) => liar[at + 46 + i] === b)) view.setUint32(at + 24, 100, true);
    }
    const { dataset, report } = await importSpider(zipSpiderSource('liar.zip', liar), executor);
    expect(dataset.databases.map((d) => d.id)).toEqual(['zoo']);
    expect(report.skippedQuestions.map((s) => [s.id, s.reason])).toEqual([['dev-0001', 'unreadable-database']]);
    expect(report.skippedQuestions[0].detail).toMatch(/big\.sqlite' inflates to more than its declared 100 bytes/);
  });

  it('refuses a dropped folder list that names one file twice', () => {
    const files = [
      { path: 'spider/dev.json', data: json([COUNT_PETS]) },
      { path: 'spider/database/zoo/zoo.sqlite', data: zooBytes },
      { path: 'spider\\dev.json', data: json([]) },
    ];
    expect(() => fileListSpiderSource('spider', files)).toThrow(/two files named 'spider\/dev\.json'/);
  });
});
