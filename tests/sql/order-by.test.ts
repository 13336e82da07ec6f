/**
 * Row order in a query's meaning (src/sql/order-by.ts): only the outer query's ORDER BY orders the result (issue 21:
 * one inside a subquery imposes no order), and the tie rewrite that finds the gold's legal results.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { hasOrderBy, tieRewrite } from '../../src/sql/order-by.ts';

describe('hasOrderBy', () => {
  it.each([
    ['SELECT name FROM t ORDER BY age', true],
    ['select name from t order by age desc limit 3', true],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY 1', true],
    ['WITH x AS (SELECT a FROM t) SELECT a FROM x ORDER BY a', true],
    // ORDER BY only inside parentheses orders nothing the caller sees (the old rule said true for these three)
    ['SELECT name FROM t WHERE age = (SELECT age FROM t ORDER BY age DESC LIMIT 1)', false],
    ['SELECT count(*) FROM (SELECT * FROM t ORDER BY a LIMIT 5)', false],
    ['SELECT a, rank() OVER (ORDER BY b) FROM t', false],
    ["SELECT 'order by' FROM t", false],
    ['SELECT "order" FROM t', false],
    ['SELECT a FROM t', false],
  ])('%s → %s', (sql, expected) => {
    expect(hasOrderBy(sql)).toBe(expected);
  });
});

describe('tieRewrite', () => {
  it('drops the LIMIT and adds the ORDER BY keys as columns', () => {
    expect(tieRewrite('SELECT name FROM t ORDER BY age DESC, id LIMIT 3')).toEqual({
      sql: 'SELECT name, (age) AS "__tie_key_0", (id) AS "__tie_key_1" FROM t ORDER BY age DESC, id',
      keys: 2,
      offset: 0,
      limit: 3,
    });
    expect(tieRewrite('SELECT name FROM t GROUP BY name ORDER BY count(*) DESC LIMIT 1 OFFSET 2;')).toMatchObject({
      sql: 'SELECT name, (count(*)) AS "__tie_key_0" FROM t GROUP BY name ORDER BY count(*) DESC',
      offset: 2,
      limit: 1,
    });
    expect(tieRewrite('SELECT name FROM t ORDER BY age LIMIT 2, 5')).toMatchObject({ offset: 2, limit: 5 });
    expect(tieRewrite('SELECT name FROM t ORDER BY age NULLS LAST')).toMatchObject({ sql: 'SELECT name, (age) AS "__tie_key_0" FROM t ORDER BY age NULLS LAST', limit: null });
  });

  it.each([
    ['SELECT name FROM t', 'no ORDER BY'],
    ['SELECT name FROM t WHERE a IN (SELECT a FROM u ORDER BY a LIMIT 1)', 'ORDER BY only in a subquery'],
    ['SELECT DISTINCT name FROM t ORDER BY age LIMIT 1', 'DISTINCT: extra columns would change the rows'],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 1', 'compound select'],
    ['SELECT name FROM t ORDER BY 1 LIMIT 1', 'ordinal key'],
    ['SELECT name FROM t ORDER BY name COLLATE NOCASE LIMIT 1', 'COLLATE key'],
    ['SELECT name FROM t ORDER BY age LIMIT (SELECT 1)', 'LIMIT not a literal'],
    ['SELECT 1 ORDER BY 1', 'no FROM'],
  ])('gives up on %s (%s)', (sql) => {
    expect(tieRewrite(sql)).toBeUndefined();
  });

  it('gives a query SQLite runs, whose first columns in order are the original rows', async () => {
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    db.run("CREATE TABLE t (name TEXT, age INT); INSERT INTO t VALUES ('a', 3), ('b', 1), ('c', 2), ('d', 3);");
    const rows = (sql: string): unknown[][] => db.exec(sql)[0]?.values ?? [];
    const original = 'SELECT name FROM t ORDER BY age DESC, name LIMIT 2 OFFSET 1';
    const rewrite = tieRewrite(original)!;
    const all = rows(rewrite.sql);
    expect(all.map((r) => r[0]).slice(rewrite.offset, rewrite.offset + rewrite.limit!)).toEqual(rows(original).map((r) => r[0]));
    expect(all).toEqual([['a', 3, 'a'], ['d', 3, 'd'], ['c', 2, 'c'], ['b', 1, 'b']]);
    db.close();
  });
});
