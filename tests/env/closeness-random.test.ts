/**
 * A statement that draws at random earns no closeness (src/env/closeness.ts): the perturbed copies make a chance
 * match unlikely, not impossible, so the rule is on the statement itself. Which calls count is SQLite's resolution of
 * a function name (case-insensitive, bare or quoted); a name that is not called (a column, a string) does not count.
 * The step that pays no progress for it: tests/env/env.test.ts.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { drawsAtRandom } from '../../src/env/closeness.ts';

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
