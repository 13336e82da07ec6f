import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { SqlError } from '../../src/sql/types.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';

async function errorOf(promise: Promise<unknown>): Promise<SqlError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error('expected the statement to fail');
}

describe('WorkerSqlExecutor', () => {
  let executor: WorkerSqlExecutor;
  let bytes: Uint8Array;
  let before: Uint8Array;

  beforeAll(async () => {
    executor = createNodeSqlExecutor({ limits: { timeoutMs: 800 } });
    bytes = await tinyDatabaseBytes();
    before = bytes.slice();
    await executor.load('db', bytes);
  });
  afterAll(() => executor.close());

  it('runs a read-only query and reports truncation', async () => {
    const all = await executor.query('db', 'SELECT name FROM singer ORDER BY singer_id');
    expect(all.rows.map((r) => r[0])).toEqual(['Ana', 'Bo', 'Cy', 'Di', 'Ed']);
    expect(all.truncated).toBe(false);
    const few = await executor.query('db', 'SELECT name FROM singer', { maxRows: 2 });
    expect(few.rows).toHaveLength(2);
    expect(few.truncated).toBe(true);
  });

  it.each([
    ['WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c', 'timeout'],
    ['SELECT count(*) FROM singer a, singer b, singer c, singer d, singer e, singer f, singer g, singer h, singer i, singer j, singer k, singer l, singer m', 'timeout'],
    ['SELECT length(randomblob(900000000))', null],
    ['DELETE FROM singer', 'refused'],
    ['SELECT 1; DROP TABLE singer', 'refused'],
    ["ATTACH DATABASE 'other.db' AS other", 'refused'],
    ['PRAGMA query_only = 0', 'refused'],
    ['SELECT * FROM singer WHERE', 'sql'],
    ['SELECT * FROM no_such_table', 'sql'],
  ])('stops %s and keeps working afterwards', async (sql, kind) => {
    const error = await errorOf(executor.query('db', sql));
    // A huge randomblob either exhausts WASM memory (crashed) or runs past the limit (timeout), depending on the host.
    if (kind === null) expect(['timeout', 'crashed', 'sql']).toContain(error.kind);
    else expect(error.kind).toBe(kind);
    const next = await executor.query('db', 'SELECT count(*) FROM singer');
    expect(next.rows).toEqual([[5]]);
  });

  it('restarts the worker after a time-out and reloads the databases', async () => {
    const restarts = executor.restarts;
    await errorOf(executor.query('db', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c'));
    expect(executor.restarts).toBe(restarts + 1);
    expect((await executor.tables('db')).sort()).toEqual(['concert', 'performs', 'singer']);
  });

  it('never changes the bytes it was given', () => {
    expect(Buffer.from(bytes).equals(Buffer.from(before))).toBe(true);
  });

  it('describes tables with keys and row counts, matching names case-insensitively', async () => {
    const info = await executor.describe('db', 'PERFORMS');
    expect(info.name).toBe('performs');
    expect(info.rowCount).toBe(7);
    expect(info.foreignKeys.map((f) => `${f.column}->${f.refTable}.${f.refColumn}`).sort()).toEqual(['concert_id->concert.concert_id', 'singer_id->singer.singer_id']);
    const singer = await executor.describe('db', 'singer');
    expect(singer.columns.find((c) => c.name === 'singer_id')?.primaryKey).toBe(1);
    expect(singer.columns.find((c) => c.name === 'name')?.notNull).toBe(true);
  });

  it('reports a corrupt database file clearly at load time', async () => {
    const garbage = new TextEncoder().encode('this is not a sqlite file at all, just text '.repeat(200));
    const error = await errorOf(executor.load('bad', garbage));
    expect(error.message).toMatch(/could not be opened/);
    expect((await executor.query('db', 'SELECT 1')).rows).toEqual([[1]]);
  });

  it('leaves a Spider database file unchanged on disk after hostile SQL', async () => {
    const file = `${spiderDir()}/database/concert_singer/concert_singer.sqlite`;
    const original = readFileSync(file);
    await executor.load('cs', new Uint8Array(original));
    for (const sql of ['DELETE FROM singer', 'UPDATE singer SET name = 1', 'DROP TABLE singer', 'SELECT 1; DELETE FROM singer']) {
      await errorOf(executor.query('cs', sql));
    }
    expect((await executor.query('cs', 'SELECT count(*) FROM singer')).rows).toEqual([[6]]);
    expect(readFileSync(file).equals(original)).toBe(true);
  });
});
