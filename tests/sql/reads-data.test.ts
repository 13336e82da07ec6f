/**
 * `compareWithEmpty` / `QueryResult.readsData`: whether a result depends on the database's rows, judged against
 * the database's empty twin in the same request. The same table of cases runs on LocalSqlExecutor and on
 * WorkerSqlExecutor; the twin is rebuilt when a database is loaded again.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmptyTwin, sameRows } from '../../src/sql/empty-twin.ts';
import { MAX_SHARED_TWINS } from '../../src/sql/engine.ts';
import { LocalSqlExecutor, type SqlExecutor } from '../../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { spiderDir } from '../fixtures/spider-dir.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

/** The tiny concert database plus a view, an index and an AUTOINCREMENT table (so sqlite_sequence exists). */
async function fixtureBytes(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await tinyDatabaseBytes());
  db.run(`
    CREATE VIEW french AS SELECT name FROM singer WHERE country = 'France';
    CREATE INDEX singer_country ON singer(country);
    CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT UNIQUE);
    INSERT INTO log (note) VALUES ('a'), ('b');
  `);
  const bytes = db.export();
  db.close();
  return bytes;
}

const CASES: Array<[sql: string, readsData: boolean]> = [
  ['SELECT 5', false],
  ["SELECT 'x'", false],
  ['SELECT (SELECT 5)', false],
  ['SELECT * FROM sqlite_master', false],
  ["SELECT * FROM pragma_table_info('singer')", false],
  ['SELECT name FROM singer WHERE 0', false],
  ['SELECT count(*) FROM singer WHERE 0', false],
  ['SELECT count(*) FROM singer', true],
  ['SELECT 6 FROM singer LIMIT 1', true],
  ['SELECT name FROM singer', true],
  ['SELECT * FROM french', true],
  ["SELECT count(*) FROM singer INDEXED BY singer_country WHERE country = 'Spain'", true],
  ['SELECT max(id) FROM log', true],
  // The twin runs past its own row budget too (maxRows 100 below): counted as reading, never as content-free.
  ['WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT x FROM c', true],
];

const executors: Array<[string, () => SqlExecutor]> = [
  ['LocalSqlExecutor', () => new LocalSqlExecutor(SQL_STATIC)],
  ['WorkerSqlExecutor', () => createNodeSqlExecutor({ limits: { timeoutMs: 10_000 } })],
];

let SQL_STATIC: Awaited<ReturnType<typeof initSqlJs>>;
let bytes: Uint8Array;

beforeAll(async () => {
  SQL_STATIC = await initSqlJs();
  bytes = await fixtureBytes();
});

describe.each(executors)('readsData on %s', (_name, create) => {
  let executor: SqlExecutor;

  beforeAll(async () => {
    executor = create();
    await executor.load('db', bytes);
  });
  afterAll(() => executor.close());

  it.each(CASES)('%s → %s', async (sql, expected) => {
    const r = await executor.query('db', sql, { maxRows: 100, compareWithEmpty: true });
    expect(r.readsData).toBe(expected);
  });

  it('counts every result as reading when not asked to compare', async () => {
    expect((await executor.query('db', 'SELECT 5')).readsData).toBe(true);
  });

  it('compares against the schema of the database loaded last under the key', async () => {
    expect((await executor.query('db', 'SELECT * FROM sqlite_master', { compareWithEmpty: true })).readsData).toBe(false);
    const other = new SQL_STATIC.Database();
    other.run('CREATE TABLE u (a); CREATE TABLE w (b)');
    await executor.load('db2', other.export());
    // Same key, new schema: a twin kept from the first load would have a different sqlite_master.
    await executor.load('db', other.export());
    other.close();
    expect((await executor.query('db', 'SELECT * FROM sqlite_master', { compareWithEmpty: true })).readsData).toBe(false);
    expect((await executor.query('db', 'SELECT count(*) FROM u', { compareWithEmpty: true })).readsData).toBe(false);
    await executor.load('db', bytes);
  });

  it('keeps each query and its empty-twin run together when callers share the executor', async () => {
    await executor.load('db-b', bytes);
    // Interleaved callers on two databases: a content-free query must never be judged against another's result.
    const calls = Array.from({ length: 24 }, (_, i) =>
      i % 2 === 0
        ? executor.query(i % 4 === 0 ? 'db' : 'db-b', 'SELECT 5', { compareWithEmpty: true }).then((r) => ['SELECT 5', r.readsData])
        : executor.query(i % 4 === 1 ? 'db' : 'db-b', 'SELECT count(*) FROM singer', { compareWithEmpty: true }).then((r) => ['count', r.readsData]),
    );
    for (const [what, readsData] of await Promise.all(calls)) expect(readsData, String(what)).toBe(what === 'count');
  });
});

describe('buildEmptyTwin and sameRows', () => {
  it('keeps the schema exactly (root pages included) and no rows, even where triggers refill tables', () => {
    const db = new SQL_STATIC.Database(bytes);
    db.run(`
      CREATE TABLE audit (what TEXT);
      CREATE TRIGGER refill AFTER DELETE ON audit BEGIN INSERT INTO log (note) VALUES ('refilled ' || old.what); END;
      INSERT INTO audit VALUES ('x');
    `);
    const withTrigger = db.export();
    db.close();
    const source = new SQL_STATIC.Database(withTrigger);
    const twin = buildEmptyTwin(SQL_STATIC, withTrigger);
    const master = 'SELECT * FROM sqlite_master ORDER BY rowid';
    expect(twin.exec(master)[0].values).toEqual(source.exec(master)[0].values);
    for (const table of ['singer', 'log', 'audit', 'sqlite_sequence']) expect(twin.exec(`SELECT count(*) FROM ${table}`)[0].values).toEqual([[0]]);
    expect(() => twin.run('CREATE TABLE x (a)')).toThrow(/readonly|read-only|query_only/i);
    twin.close();
    source.close();
  });

  it('compares column counts and rows as a multiset of type-tagged values', () => {
    const r = (columns: number, rows: (number | string | null)[][]) => ({ columns: Array.from({ length: columns }, (_, i) => `c${i}`), rows });
    expect(sameRows(r(1, [[1], [2]]), r(1, [[2], [1]]))).toBe(true);
    expect(sameRows(r(1, [[1]]), r(1, [['1']]))).toBe(false);
    expect(sameRows(r(1, [[1], [1]]), r(1, [[1], [2]]))).toBe(false);
    expect(sameRows(r(1, []), r(2, []))).toBe(false);
    expect(sameRows(r(2, [['a', 'bc']]), r(2, [['ab', 'c']]))).toBe(false);
  });
});

describe('readsData on the Spider databases', () => {
  it('finds that sqlite_master reads no rows and that counting the first table does', async () => {
    const executor = new LocalSqlExecutor(SQL_STATIC);
    const root = `${spiderDir()}/database`;
    const names = readdirSync(root);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      await executor.load(name, new Uint8Array(readFileSync(`${root}/${name}/${name}.sqlite`)));
      const master = await executor.query(name, 'SELECT * FROM sqlite_master', { compareWithEmpty: true });
      expect([name, master.readsData]).toEqual([name, false]);
      const [first] = await executor.tables(name);
      const count = await executor.query(name, `SELECT count(*) > 0 FROM "${first}"`);
      const counted = await executor.query(name, `SELECT count(*) FROM "${first}"`, { compareWithEmpty: true });
      expect([name, counted.readsData]).toEqual([name, count.rows[0][0] === 1]);
    }
    await executor.close();
  });
});

describe('readsData when the empty-twin run passes its time limit', () => {
  it('counts the result as reading nothing, and the next query works', async () => {
    const executor = createNodeSqlExecutor({ limits: { timeoutMs: 500 } });
    try {
      await executor.load('db', await fixtureBytes());
      // Quick on the database (singer has rows), endless on the twin: only a statement that computes without
      // reading a table can be slow there, so a timeout there must never pay.
      const sql = 'SELECT CASE WHEN (SELECT count(*) FROM singer) > 0 THEN 1 ELSE (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c) END';
      const r = await executor.query('db', sql, { compareWithEmpty: true });
      expect(r.rows).toEqual([[1]]);
      expect(r.readsData).toBe(false);
      expect((await executor.query('db', 'SELECT count(*) FROM singer', { compareWithEmpty: true })).readsData).toBe(true);
    } finally {
      await executor.close();
    }
  });
});

describe('the empty twin is built once per database content', () => {
  it('reuses it across reloads of the same bytes, builds anew for other bytes, and keeps a bounded number', async () => {
    const executor = new LocalSqlExecutor(SQL_STATIC);
    const stats = executor.engine.twinStats;
    const b = await fixtureBytes();
    for (let episode = 0; episode < 5; episode++) {
      for (const key of ['s1', 's2', 's3']) {
        await executor.load(key, b);
        expect((await executor.query(key, 'SELECT 5', { compareWithEmpty: true })).readsData).toBe(false);
      }
    }
    expect(stats.built).toBe(1);
    await executor.load('s1', b.slice());
    expect((await executor.query('s1', 'SELECT count(*) FROM singer', { compareWithEmpty: true })).readsData).toBe(true);
    expect(stats.built).toBe(2);
    for (let i = 0; i < MAX_SHARED_TWINS + 8; i++) {
      await executor.load('s1', b.slice());
      await executor.query('s1', 'SELECT 5', { compareWithEmpty: true });
    }
    expect(stats.kept).toBeLessThanOrEqual(MAX_SHARED_TWINS);
    await executor.close();
  });
});

