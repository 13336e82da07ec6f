/**
 * A statement that draws at random earns no closeness (src/env/closeness.ts): the perturbed copies make a chance
 * match unlikely, not impossible, so the rule is on the statement itself. Which calls count is SQLite's resolution of
 * a function name (case-insensitive, bare or quoted); a name that is not called (a column, a string) does not count.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/data/types.ts';
import { drawsAtRandom } from '../../src/env/closeness.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

describe('drawsAtRandom', () => {
  it.each([
    'SELECT random()',
    'SELECT abs(RANDOM()) % 10',
    'SELECT hex(randomblob(2))',
    'SELECT "random"()',
    'SELECT [RandomBlob] (4)',
    'SELECT count(*) FROM singer WHERE random() IS NOT NULL',
    'SELECT name FROM singer ORDER BY random /* a comment */ () LIMIT 1',
  ])('%s draws at random', (sql) => {
    expect(drawsAtRandom(sql)).toBe(true);
  });

  it.each(['SELECT count(*) FROM singer', "SELECT 'random()'", 'SELECT random FROM t', 'SELECT randomness(1)', 'SELECT t.random FROM t -- random()'])('%s does not', (sql) => {
    expect(drawsAtRandom(sql)).toBe(false);
  });

  it('is what SQLite calls: each spelling above that draws really is random there', async () => {
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    try {
      // Two runs of a 64-bit draw differ (a collision is ~2^-64); the quoted spellings resolve to the same function.
      for (const sql of ['SELECT random()', 'SELECT "random"()', 'SELECT [RandomBlob] (8)']) {
        const a = db.exec(sql)[0].values[0][0];
        const b = db.exec(sql)[0].values[0][0];
        expect(a, sql).not.toEqual(b);
      }
    } finally {
      db.close();
    }
  });
});

describe('closeness of a statement that draws at random', () => {
  let dataset: Dataset;
  let executor: WorkerSqlExecutor;
  beforeAll(async () => {
    dataset = await buildTinyDataset();
    executor = createNodeSqlExecutor();
  });
  afterAll(() => executor.close());

  it('is 0 even when its result follows the gold on the database and every copy; the same count without it pays', async () => {
    const env = new SqlEnv(dataset, executor, { queryTimeoutMs: 800 });
    await env.reset({ questionId: 'tiny-1' });
    // random() IS NOT NULL is always true: the result is count(*), which follows the gold everywhere.
    const drawn = await env.step('QUERY SELECT count(*) FROM singer WHERE random() IS NOT NULL');
    expect(drawn.observation.result?.rows).toEqual([[5]]);
    expect(drawn.info.components.progress).toBe(0);
    const read = await env.step('QUERY SELECT count(*) FROM singer WHERE singer_id IS NOT NULL');
    expect(read.info.components.progress).toBe(1);
  });
});
