import { describe, expect, it } from 'vitest';
import { checkReadOnlySql } from '../../src/sql/guard.ts';
import { tokenize, unquoteIdentifier } from '../../src/sql/tokenize.ts';

describe('checkReadOnlySql', () => {
  it.each([
    ['SELECT 1', 'SELECT 1'],
    ['  select * from t;  ', 'select * from t'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'WITH x AS (SELECT 1) SELECT * FROM x'],
    ["SELECT 'a;b' FROM t -- trailing ; comment", "SELECT 'a;b' FROM t"],
    ['SELECT replace(name, "a", "b") FROM t', 'SELECT replace(name, "a", "b") FROM t'],
    ['WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3) SELECT x FROM c', null],
    ['SELECT * FROM pragma_table_info(\'t\')', null],
    ['SELECT 1;;', 'SELECT 1'],
    // CTEs named like write keywords are names, not statements.
    ['WITH replace AS (SELECT 1) SELECT * FROM replace', null],
    ['WITH "update" AS (SELECT 2) SELECT * FROM "update"', null],
    ['WITH RECURSIVE replace(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM replace WHERE n < 3) SELECT n FROM replace', null],
    ['WITH x AS (SELECT 1), replace AS NOT MATERIALIZED (SELECT 2) SELECT * FROM x, replace', null],
    ['WITH x(a) AS MATERIALIZED (SELECT 1) SELECT a FROM x', null],
    ['WITH x AS (SELECT 1) VALUES (1)', null],
  ])('accepts %s', (sql, expected) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict.ok).toBe(true);
    if (verdict.ok && expected !== null) expect(verdict.sql).toBe(expected);
  });

  it.each([
    ['', /Empty query/],
    ['-- only a comment', /Empty query/],
    ['DELETE FROM t', /DELETE is not allowed/],
    ['insert into t values (1)', /INSERT is not allowed/],
    ['UPDATE t SET a = 1', /UPDATE is not allowed/],
    ['DROP TABLE t', /DROP is not allowed/],
    ["ATTACH DATABASE 'x.db' AS x", /ATTACH is not allowed/],
    ['PRAGMA writable_schema = 1', /PRAGMA is not allowed/],
    ['VACUUM', /VACUUM is not allowed/],
    ['SELECT 1; DROP TABLE t', /Only one statement/],
    ['SELECT 1; SELECT 2', /Only one statement/],
    ['WITH x AS (SELECT 1) DELETE FROM t', /WITH must lead into a SELECT, not DELETE/],
    ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', /not INSERT/],
    ["SELECT load_extension('evil')", /load_extension\(\) is not allowed/],
    ["SELECT writefile('/tmp/x', 'y')", /writefile\(\) is not allowed/],
    ['EXPLAIN SELECT 1', /must start with SELECT or WITH/],
    ['/* hi */ BEGIN', /BEGIN is not allowed/],
    ['WITH x AS (SELECT 1) REPLACE INTO t VALUES (1)', /not REPLACE/],
    ['WITH replace AS (SELECT 1) REPLACE INTO t SELECT * FROM replace', /not REPLACE/],
    ['WITH x AS (SELECT 1), "select" AS (SELECT 2) UPDATE t SET a = 1', /not UPDATE/],
    ['WITH x AS NOT MATERIALIZED (SELECT 1) DELETE FROM t', /not DELETE/],
    ['WITH RECURSIVE insert(n) AS (SELECT 1) INSERT INTO t SELECT n FROM insert', /not INSERT/],
    ['WITH x AS (SELECT 1)', /WITH must lead into a SELECT/],
    ['WITH (SELECT 1) SELECT 2', /WITH must lead into a SELECT/],
    [`${'x'.repeat(300)} FROM t`, /^A query must start with SELECT or WITH, not 'x{40}'/],
  ])('refuses %s', (sql, reason) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });

  it('is not fooled by keywords inside strings, identifiers or comments', () => {
    expect(checkReadOnlySql("SELECT 'DELETE FROM t; DROP TABLE t' AS s").ok).toBe(true);
    expect(checkReadOnlySql('SELECT "delete" FROM t /* ; drop table t */').ok).toBe(true);
  });
});

describe('tokenize', () => {
  it('keeps doubled quotes inside strings and identifiers', () => {
    expect(tokenize("'it''s'").map((t) => t.kind)).toEqual(['string']);
    expect(unquoteIdentifier('"a""b"')).toBe('a"b');
    expect(unquoteIdentifier('[my table]')).toBe('my table');
    expect(unquoteIdentifier('`x`')).toBe('x');
  });

  it('never throws on unterminated input', () => {
    expect(tokenize("SELECT 'open").at(-1)?.kind).toBe('string');
    expect(tokenize('SELECT /* open').at(-1)?.kind).toBe('comment');
  });
});
