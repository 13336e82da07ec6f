/**
 * What makes a statement's result change between runs on the same data (src/sql/nondeterministic.ts): SQLite's
 * random draws and its clock (sqlite.org/deterministic.html, sqlite.org/lang_datefunc.html: a date function with the
 * time value 'now', or none, reads the current time). Any spelling SQLite resolves counts; a name that is not called
 * does not. The environment pays no closeness for such a statement (tests/env/env.test.ts).
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { nondeterminismIn } from '../../src/sql/nondeterministic.ts';

describe('nondeterminismIn', () => {
  it.each<[string, string]>([
    ['SELECT random()', 'random()'],
    ['SELECT abs(RANDOM()) % 10', 'random()'],
    ['SELECT hex(randomblob(2))', 'randomblob()'],
    ['SELECT "random"()', 'random()'],
    ['SELECT [RandomBlob] (4)', 'randomblob()'],
    ['SELECT name FROM singer ORDER BY random /* a comment */ () LIMIT 1', 'random()'],
    ["SELECT strftime('%f', 'now')", "the clock ('now')"],
    ["SELECT date(' NOW ')", "the clock ('now')"],
    ['SELECT CURRENT_TIMESTAMP', 'the clock (CURRENT_TIMESTAMP)'],
    ['SELECT 1 FROM t WHERE d < current_date', 'the clock (CURRENT_DATE)'],
    ['SELECT date()', 'the clock (date() without a time value)'],
    ['SELECT unixepoch ( )', 'the clock (unixepoch() without a time value)'],
    ["SELECT strftime('%S')", 'the clock (strftime() without a time value)'],
    ['SELECT julianday()', 'the clock (julianday() without a time value)'],
  ])('%s reads %s', (sql, reason) => {
    expect(nondeterminismIn(sql)).toBe(reason);
  });

  it.each([
    'SELECT count(*) FROM singer',
    "SELECT 'random()'",
    'SELECT random FROM t',
    'SELECT randomness(1)',
    'SELECT t.random FROM t -- random()',
    "SELECT date('2020-01-01')",
    "SELECT strftime('%Y', birthday) FROM singer",
    "SELECT datetime(max(d), '+1 day') FROM t",
    "SELECT julianday(d) - julianday('2000-01-01') FROM t",
    'SELECT date(d) FROM t',
    // An argument list of its own inside the call does not count as the call's: strftime has its time value.
    "SELECT strftime('%Y', coalesce(d, e)) FROM t",
    'SELECT changes(), last_insert_rowid()',
  ])('%s does not', (sql) => {
    expect(nondeterminismIn(sql)).toBeNull();
  });

  it('names what SQLite itself draws at random: two runs of each spelling above differ', async () => {
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    try {
      // A 64-bit draw repeats with probability ~2^-64; the quoted spellings resolve to the same functions.
      for (const sql of ['SELECT random()', 'SELECT "random"()', 'SELECT [RandomBlob] (8)']) {
        expect(db.exec(sql)[0].values[0][0], sql).not.toEqual(db.exec(sql)[0].values[0][0]);
      }
      // Without a time value the date functions read 'now' (SQLite holds 'now' fixed within one statement's step).
      expect(db.exec("SELECT julianday() = julianday('now'), strftime('%f') = strftime('%f', 'now'), unixepoch() = unixepoch('now')")[0].values[0]).toEqual([1, 1, 1]);
    } finally {
      db.close();
    }
  });
});
