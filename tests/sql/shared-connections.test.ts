/**
 * Sessions on one database content share one read-only connection (issue 22, item 7): per worker, memory is one
 * copy per content, not one per session. Sharing is only safe if nothing a session can run changes the connection
 * for the others; these tests try every kind of per-connection state through the engine's front door.
 */
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKeyOf } from '../../src/sql/content-key.ts';
import { SqlEngine } from '../../src/sql/engine.ts';
import { spawnNodeSqlWorker } from '../../src/sql/node-worker.ts';
import { SqlError } from '../../src/sql/types.ts';
import { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import type { SqlRequest } from '../../src/sql/worker-protocol.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

let SQL: SqlJsStatic;
let bytes: Uint8Array;
beforeAll(async () => {
  SQL = await initSqlJs();
  bytes = await tinyDatabaseBytes();
});

const count = (engine: SqlEngine, key: string, sql: string): unknown => engine.query(key, sql, { maxRows: 10 }).rows[0][0];

describe('SqlEngine connection sharing', () => {
  it('opens one connection per content key and closes it with the last key', () => {
    const engine = new SqlEngine(SQL);
    const key = contentKeyOf(bytes);
    for (let i = 0; i < 5; i++) engine.load(`session-${i}`, bytes, key);
    expect(engine.openConnections).toBe(1);
    // Replacing a key by the same content keeps the one connection.
    engine.load('session-0', bytes, key);
    expect(engine.openConnections).toBe(1);
    engine.load('solo', bytes.slice());
    expect(engine.openConnections).toBe(2);
    for (let i = 0; i < 4; i++) engine.unload(`session-${i}`);
    expect(engine.openConnections).toBe(2);
    expect(count(engine, 'session-4', 'SELECT count(*) FROM singer')).toBe(5);
    expect(() => engine.query('session-0', 'SELECT 1', { maxRows: 1 })).toThrow(/not loaded/);
    engine.unload('session-4');
    expect(engine.openConnections).toBe(1);
    engine.close();
    expect(engine.openConnections).toBe(0);
  });

  it('moves a key to another content without touching the others', () => {
    const engine = new SqlEngine(SQL);
    const other = bytes.slice();
    engine.load('a', bytes, contentKeyOf(bytes));
    engine.load('b', bytes, contentKeyOf(bytes));
    engine.load('a', other, contentKeyOf(other));
    expect(engine.openConnections).toBe(2);
    engine.unload('b');
    expect(engine.openConnections).toBe(1);
    expect(count(engine, 'a', 'SELECT count(*) FROM performs')).toBe(7);
    engine.close();
  });

  it('shares by content key without bytes, and says when there is nothing to share', () => {
    const engine = new SqlEngine(SQL);
    expect(engine.share('x', 'content-none')).toBe(false);
    expect(engine.has('x')).toBe(false);
    engine.load('a', bytes, 'k');
    expect(engine.share('b', 'k')).toBe(true);
    expect(count(engine, 'b', 'SELECT count(*) FROM singer')).toBe(5);
    engine.close();
  });

  it('keeps a failed load from leaving anything open', () => {
    const engine = new SqlEngine(SQL);
    const garbage = new TextEncoder().encode('not a database '.repeat(100));
    expect(() => engine.load('bad', garbage, 'g')).toThrow(SqlError);
    expect(engine.openConnections).toBe(0);
    expect(engine.has('bad')).toBe(false);
  });

  // Everything that could leave state on a connection: settings, temp objects, attached databases, transactions,
  // pragma functions with arguments. One session tries them all; the other must see the connection as it was.
  it.each([
    'PRAGMA query_only = 0',
    'PRAGMA temp_store = 2',
    'PRAGMA cache_size = 1',
    'PRAGMA foreign_keys = 1',
    'CREATE TEMP TABLE t1(a)',
    'CREATE TEMP VIEW v1 AS SELECT 1',
    'CREATE TEMP TRIGGER tr AFTER INSERT ON singer BEGIN SELECT 1; END',
    "ATTACH ':memory:' AS m",
    'BEGIN',
    'SAVEPOINT s',
    'SELECT * FROM pragma_query_only(0)',
    'SELECT * FROM pragma_cache_size(1)',
    "SELECT * FROM pragma_table_info('singer'); PRAGMA query_only = 0",
    'WITH x AS (SELECT 1) DELETE FROM singer',
    'DELETE FROM singer',
    'SELECT 1 FROM singer; CREATE TEMP TABLE t2(a)',
  ])('one session cannot change the shared connection with %s', (sql) => {
    const engine = new SqlEngine(SQL);
    engine.load('mallory', bytes, 'shared');
    engine.load('alice', bytes, 'shared');
    const probes = [
      'SELECT query_only FROM pragma_query_only',
      'SELECT cache_size FROM pragma_cache_size',
      'SELECT temp_store FROM pragma_temp_store',
      'SELECT foreign_keys FROM pragma_foreign_keys',
      'SELECT count(*) FROM temp.sqlite_master',
      'SELECT group_concat(name) FROM pragma_database_list',
      'SELECT count(*) FROM singer',
    ];
    const state = (): unknown[] => probes.map((q) => engine.query('alice', q, { maxRows: 10 }).rows);
    const before = state();
    expect(before[0]).toEqual([[1]]);
    try {
      engine.query('mallory', sql, { maxRows: 10 });
    } catch (e) {
      if (!(e instanceof SqlError)) throw e;
    }
    expect(state()).toEqual(before);
    engine.close();
  });
});

describe('WorkerSqlExecutor connection sharing', () => {
  let executor: WorkerSqlExecutor;
  const sent: Array<SqlRequest['type']> = [];

  beforeAll(() => {
    executor = new WorkerSqlExecutor(
      () => {
        const port = spawnNodeSqlWorker();
        return { ...port, send: (request: SqlRequest) => (sent.push(request.type), port.send(request)) };
      },
      { limits: { timeoutMs: 800 } },
    );
  });
  afterAll(() => executor.close());

  it('sends the bytes once per worker, and again only to a replacement worker', async () => {
    for (let i = 0; i < 6; i++) await executor.load(`session-${i}`, bytes);
    expect(sent.filter((t) => t === 'load')).toHaveLength(1);
    expect(sent.filter((t) => t === 'share')).toHaveLength(5);
    const runaway = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c';
    await expect(executor.query('session-0', runaway)).rejects.toMatchObject({ kind: 'timeout' });
    sent.length = 0;
    for (let i = 0; i < 6; i++) expect((await executor.query(`session-${i}`, 'SELECT count(*) FROM singer')).rows).toEqual([[5]]);
    expect(sent.filter((t) => t === 'load')).toHaveLength(1);
    expect(sent.filter((t) => t === 'share')).toHaveLength(5);
  });
});

describe('WorkerSqlExecutor.unload', () => {
  it('gives a connection back when its last key is unloaded, and the others read on', async () => {
    const executor = new WorkerSqlExecutor(() => spawnNodeSqlWorker(), { limits: { timeoutMs: 5_000 } });
    try {
      await executor.load('a', bytes);
      await executor.load('b', bytes);
      await executor.unload('a');
      await executor.unload('never-loaded');
      expect((await executor.query('b', 'SELECT count(*) FROM singer')).rows).toEqual([[5]]);
      await expect(executor.query('a', 'SELECT 1')).rejects.toMatchObject({ kind: 'no-database' });
      await executor.unload('b');
      await expect(executor.query('b', 'SELECT 1')).rejects.toMatchObject({ kind: 'no-database' });
    } finally {
      await executor.close();
    }
  });
});
