/**
 * A WASM trap inside sql.js (issue 22, item 2): it must surface as a crash, never as an ordinary SQL error; the
 * worker that trapped must be replaced before anyone else's request runs, and every database it held must read as
 * before on the new worker. Legacy extension functions (the known way to trap) are removed from every database.
 */
import { createRequire } from 'node:module';
import type initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/engine.ts';
import { LEGACY_FUNCTION_NAMES, SQL_JS_OPTIONS, withoutLegacyFunctions } from '../../src/sql/legacy-functions.ts';
import { spawnNodeSqlWorker } from '../../src/sql/node-worker.ts';
import { RESULT_BUDGET } from '../../src/sql/limits.ts';
import { readStatement } from '../../src/sql/read-result.ts';
import { SqlError } from '../../src/sql/types.ts';
import { isWasmTrap, WasmTrapError } from '../../src/sql/wasm-trap.ts';
import { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import type { SqlRequest } from '../../src/sql/worker-protocol.ts';
import { handleSqlRequest } from '../../src/workers/sql-worker-core.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

const TRAP_SQL = "SELECT length(replicate('ab', 2147483648))";
const trapWorkerEntry = new URL('./fixtures/trap-worker.node.ts', import.meta.url).href;

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

const require = createRequire(import.meta.url);

/**
 * A fresh sql.js module (sql.js caches its first one, options included, so each caller here loads the file anew):
 * one that really traps must not be shared with the rest of the file.
 */
function freshModule(options?: Parameters<typeof initSqlJs>[0]): Promise<SqlJsStatic> {
  const path = require.resolve('sql.js');
  delete require.cache[path];
  const init = require(path) as typeof initSqlJs;
  return init(options);
}

/** With the legacy functions registered (sql.js's default), so replicate really traps. */
function legacyModule(): Promise<SqlJsStatic> {
  return freshModule();
}

function names(db: InstanceType<SqlJsStatic['Database']>): string[] {
  return (db.exec('SELECT DISTINCT name FROM pragma_function_list WHERE builtin = 0')[0]?.values ?? []).map((r) => String(r[0]));
}

describe('recognising a trap', () => {
  it('reads a real replicate() overflow as a trap, and a SQL error as none', async () => {
    const SQL = await legacyModule();
    const db = new SQL.Database();
    const trap = (() => {
      try {
        db.exec(TRAP_SQL);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(trap).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(isWasmTrap(trap)).toBe(true);
    expect(isWasmTrap(new Error('RuntimeError: memory access out of bounds'))).toBe(true);
    expect(isWasmTrap(new Error('Aborted(OOM)'))).toBe(true);
    expect(isWasmTrap(new Error('no such table: memory access out of bounds'))).toBe(false);
    expect(isWasmTrap(new SqlError('sql', 'near "SELEC": syntax error'))).toBe(false);
  });

  it('reading a statement that traps throws WasmTrapError, not a SqlError', async () => {
    const SQL = await legacyModule();
    const db = new SQL.Database();
    const stmt = db.prepare(TRAP_SQL);
    const error = (() => {
      try {
        readStatement(stmt, 10, RESULT_BUDGET);
      } catch (e) {
        return e;
      }
      return null;
    })();
    // Before the fix this was SqlError('sql', 'memory access out of bounds'): an ordinary error, the worker kept.
    expect(error).toBeInstanceOf(WasmTrapError);
    expect(error).not.toBeInstanceOf(SqlError);
    expect((error as Error).message).toMatch(/SQLite crashed inside WebAssembly \(memory access out of bounds\)/);
  });
});

describe('legacy extension functions', () => {
  it('are disabled on every database the engine opens, and refused by its guard', async () => {
    const SQL = await legacyModule();
    const raw = new SQL.Database();
    // The premise: sql.js's default registers them (replicate, padl, …).
    expect(names(raw)).toEqual(expect.arrayContaining(['replicate', 'padl', 'padr', 'padc', 'median', 'charindex']));
    const safe = new (withoutLegacyFunctions(SQL).Database)();
    for (const sql of [TRAP_SQL, "SELECT padl('x', 2147483648)", "SELECT padc('x', 2147483647)", "SELECT charindex('a', 'ba')", "SELECT charindex('a', 'ba', 1)", 'SELECT median(1)']) {
      expect(() => safe.exec(sql)).toThrow(/function \w+\(\) is disabled/);
    }
    // Nothing trapped: the module still works.
    expect(safe.exec("SELECT sqrt(16), upper('ok')")[0].values).toEqual([[4, 'OK']]);

    const engine = new SqlEngine(SQL);
    engine.load('db', await tinyDatabaseBytes());
    expect(() => engine.query('db', TRAP_SQL, { maxRows: 10 })).toThrow(/legacy extension functions are disabled/);
    expect(engine.query('db', 'SELECT count(*) FROM singer', { maxRows: 10 }).rows).toEqual([[5]]);
    engine.close();
  });

  it('are never registered by a module initialised with SQL_JS_OPTIONS (what the worker hosts use)', async () => {
    const SQL = await freshModule(SQL_JS_OPTIONS);
    const db = new SQL.Database();
    expect(names(db).filter((n) => LEGACY_FUNCTION_NAMES.has(n))).toEqual([]);
    expect(() => db.exec("SELECT replicate('a', 3)")).toThrow(/no such function: replicate/);
    // SQLite's own math functions answer instead (its log(x) is base 10; sign() is a built-in).
    expect(db.exec('SELECT log(1000), sign(-7), sqrt(16)')[0].values).toEqual([[3, -1, 4]]);
    expect(withoutLegacyFunctions(SQL)).toBe(SQL);
  });
});

describe('the worker request handler after a trap', () => {
  it('answers the trap as a crash and refuses every later request on that engine', async () => {
    const SQL = await legacyModule();
    class DatabaseWithTrap extends SQL.Database {
      constructor(data?: ArrayLike<number> | null) {
        super(data);
        this.create_function('trap_now', () => new SQL.Database().exec(TRAP_SQL));
      }
    }
    const engine = new SqlEngine(Object.assign(Object.create(SQL) as SqlJsStatic, { Database: DatabaseWithTrap }));
    const bytes = await tinyDatabaseBytes();
    const load: SqlRequest = { id: 1, type: 'load', dbKey: 'db', bytes };
    expect(handleSqlRequest(engine, load)).toEqual({ id: 1, type: 'result', value: null });
    const crash = handleSqlRequest(engine, { id: 2, type: 'query', dbKey: 'db', sql: 'SELECT trap_now()', maxRows: 5 });
    expect(crash).toMatchObject({ id: 2, type: 'error', kind: 'crashed' });
    const next = handleSqlRequest(engine, { id: 3, type: 'query', dbKey: 'db', sql: 'SELECT 1', maxRows: 5 });
    expect(next).toMatchObject({ id: 3, type: 'error', kind: 'crashed' });
    if (next.type === 'error') expect(next.message).toMatch(/crashed earlier/);
  });
});

describe('WorkerSqlExecutor when its worker traps', () => {
  let executor: WorkerSqlExecutor;
  let bytes: Uint8Array;
  let other: Uint8Array;
  const restarts: string[] = [];

  beforeAll(async () => {
    executor = new WorkerSqlExecutor(() => spawnNodeSqlWorker(trapWorkerEntry), { limits: { timeoutMs: 5_000 }, onRestart: (reason) => restarts.push(reason) });
    bytes = await tinyDatabaseBytes();
    other = bytes.slice(); // same rows, another content key: a connection of its own
    // Three sessions on one worker: two share a connection, one has its own.
    await executor.load('session-0', bytes);
    await executor.load('session-1', bytes);
    await executor.load('session-2', other);
  });
  afterAll(() => executor.close());

  it('fails the trapping statement as a crash, replaces the worker, and every session reads on', async () => {
    const error = await errorOf(executor.query('session-0', 'SELECT trap_now()'));
    expect(error).toBeInstanceOf(SqlError);
    expect((error as SqlError).kind).toBe('crashed');
    expect((error as SqlError).message).toMatch(/SQLite crashed inside WebAssembly/);
    expect(executor.restarts).toBe(1);
    expect(restarts).toHaveLength(1);
    // The same session's next step, then the other sessions' (one shared the trapped connection, one did not).
    expect((await executor.query('session-0', 'SELECT count(*) FROM singer')).rows).toEqual([[5]]);
    expect((await executor.query('session-1', 'SELECT name FROM singer ORDER BY singer_id LIMIT 2')).rows).toEqual([['Ana'], ['Bo']]);
    expect((await executor.describe('session-2', 'performs')).rowCount).toBe(7);
    expect(executor.restarts).toBe(1);
  });

  it('replaces the worker before a request queued behind the trap runs', async () => {
    const before = executor.restarts;
    const [trap, queued] = await Promise.allSettled([
      executor.query('session-1', 'SELECT trap_now()'),
      executor.query('session-2', 'SELECT count(*) FROM performs'),
    ]);
    expect(trap.status).toBe('rejected');
    expect(queued.status).toBe('fulfilled');
    if (queued.status === 'fulfilled') expect(queued.value.rows).toEqual([[7]]);
    expect(executor.restarts).toBe(before + 1);
  });
});
