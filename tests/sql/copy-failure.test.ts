/**
 * When SQLite cannot build a perturbed copy of a database (src/sql/engine.ts, `copies`), closeness fails CLOSED:
 * the failure is logged, the run has no copy to judge with, and no statement earns progress on that database — not
 * the gold itself, not `SELECT * FROM sqlite_master` or `SELECT sqlite_version()`. (Judging with the copies that
 * were built would pay for whatever only the missing copy exposes: a swallowed failure switching a rule off.)
 *
 * The failure is injected: a sql.js module whose `export()` throws a plain Error (what sql.js throws for an SQLite
 * failure) on the n-th call. The engine's own database is never exported; each copy is built by one export.
 */
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { COPY_PLANS } from '../../src/sql/perturbed-copies.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

let SQL: SqlJsStatic;
let dataset: Dataset;

/** `sql` whose databases fail to export on the calls numbered in `failing` (0-based, counted over the module). */
function failingExports(sql: SqlJsStatic, failing: ReadonlySet<number>): SqlJsStatic {
  let calls = 0;
  class Database extends sql.Database {
    override export(): Uint8Array {
      if (failing.has(calls++)) throw new Error('disk I/O error (injected)');
      return super.export();
    }
  }
  return { ...sql, Database };
}

beforeAll(async () => {
  SQL = await initSqlJs();
  dataset = await buildTinyDataset();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const GOLD = "SELECT name FROM singer WHERE country = 'France'"; // tiny-2's gold

async function progressOf(sql: SqlJsStatic, statements: string[]): Promise<number[]> {
  const executor = new LocalSqlExecutor(sql);
  const env = new SqlEnv(dataset, executor, { queryTimeoutMs: 800 });
  const out: number[] = [];
  try {
    for (const statement of statements) {
      await env.reset({ questionId: 'tiny-2' });
      out.push((await env.step(`QUERY ${statement}`)).info.components.progress);
    }
  } finally {
    await executor.close();
  }
  return out;
}

describe('a perturbed copy SQLite cannot build', () => {
  it('the healthy engine pays the gold its closeness (the premise)', async () => {
    expect(await progressOf(SQL, [GOLD])).toEqual([1]);
  });

  for (let failing = 0; failing < COPY_PLANS.length; failing++) {
    it(`copy ${failing} missing: logged, no copy judges, and nothing earns progress`, async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      expect(await progressOf(failingExports(SQL, new Set([failing])), [GOLD, 'SELECT * FROM sqlite_master', 'SELECT sqlite_version()'])).toEqual([0, 0, 0]);
      warn.mockClear();
      const broken = failingExports(SQL, new Set([failing]));
      const executor = new LocalSqlExecutor(broken);
      await executor.load('db', await dataset.loadDatabase('concerts'));
      const run = await executor.runOnCopies('db', GOLD, GOLD);
      expect(run.copies).toEqual([]);
      expect(executor.engine.copyStats.incomplete).toBe(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(new RegExp(`could not build perturbed copy ${failing} of 'db'`));
      await executor.close();
    });
  }
});
