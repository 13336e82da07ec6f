/**
 * Cases that kill what Stryker's run over src/sql/guard.ts left alive (docs/mutation.md): every write keyword and
 * every forbidden function named in its own refusal, the WITH list's grammar at its edges, the one-statement rule
 * around empty statements, and the 40-character cut of what is echoed back. The keyword and function lists are
 * written out here by hand (SQLite's statement keywords that change or lock the database, and the functions that
 * reach files or the engine), never read from the module.
 */
import { describe, expect, it } from 'vitest';
import { checkReadOnlySql } from '../../src/sql/guard.ts';

function refusal(sql: string): string {
  const verdict = checkReadOnlySql(sql);
  if (verdict.ok) throw new Error(`expected a refusal for ${JSON.stringify(sql)}, got ok: ${verdict.sql}`);
  return verdict.reason;
}

function accepted(sql: string): string {
  const verdict = checkReadOnlySql(sql);
  if (!verdict.ok) throw new Error(`expected ${JSON.stringify(sql)} to pass, got: ${verdict.reason}`);
  return verdict.sql;
}

describe('write statements are refused as writes, each by its keyword', () => {
  it.each([
    ['INSERT INTO t VALUES (1)', 'INSERT'],
    ['UPDATE t SET a = 1', 'UPDATE'],
    ['DELETE FROM t', 'DELETE'],
    ['REPLACE INTO t VALUES (1)', 'REPLACE'],
    ['CREATE TABLE x (a)', 'CREATE'],
    ['DROP TABLE t', 'DROP'],
    ['ALTER TABLE t ADD COLUMN b', 'ALTER'],
    ["ATTACH DATABASE 'x.db' AS x", 'ATTACH'],
    ['DETACH DATABASE x', 'DETACH'],
    ['PRAGMA query_only = 0', 'PRAGMA'],
    ['VACUUM', 'VACUUM'],
    ['REINDEX t', 'REINDEX'],
    ['ANALYZE t', 'ANALYZE'],
    ['BEGIN TRANSACTION', 'BEGIN'],
    ['COMMIT', 'COMMIT'],
    ['ROLLBACK', 'ROLLBACK'],
    ['SAVEPOINT s', 'SAVEPOINT'],
    ['RELEASE s', 'RELEASE'],
  ])('%s', (sql, keyword) => {
    expect(refusal(sql)).toBe(`${keyword} is not allowed: the database is read-only. Only a single SELECT (or WITH … SELECT) statement runs.`);
  });

  it('a statement that is neither a write nor a query is told to start with SELECT or WITH', () => {
    expect(refusal('EXPLAIN QUERY PLAN SELECT 1')).toBe("A query must start with SELECT or WITH, not 'EXPLAIN'. Only a single SELECT (or WITH … SELECT) statement runs.");
  });
});

describe('functions that reach files or the engine are refused by name, however they are quoted', () => {
  it.each([
    ["SELECT load_extension('x')", 'load_extension'],
    ["SELECT readfile('/etc/passwd')", 'readfile'],
    ["SELECT writefile('/tmp/x', 'y')", 'writefile'],
    ["SELECT edit('text')", 'edit'],
    ["SELECT fts3_tokenizer('simple')", 'fts3_tokenizer'],
    ["SELECT sqlite_attach('x.db', 'x', NULL)", 'sqlite_attach'],
    ["SELECT sqlite_detach('x')", 'sqlite_detach'],
    ['SELECT "readfile"(\'/etc/passwd\')', 'readfile'],
    ["SELECT [Sqlite_Attach]('x.db', 'x', NULL)", 'Sqlite_Attach'],
  ])('%s', (sql, shown) => {
    expect(refusal(sql)).toBe(`The function ${shown}() is not allowed: queries may only read the database.`);
  });

  it('a forbidden name that is not called (a column, a string) passes', () => {
    expect(accepted('SELECT edit FROM t')).toBe('SELECT edit FROM t');
    expect(accepted("SELECT 'readfile(1)' AS s")).toBe("SELECT 'readfile(1)' AS s");
  });
});

describe('one statement', () => {
  it('empty statements around one query do not count', () => {
    expect(accepted('; SELECT 1')).toBe('SELECT 1');
    expect(accepted(';;SELECT 1;;')).toBe('SELECT 1');
    expect(accepted(' ;\n SELECT 1 ; ')).toBe('SELECT 1');
  });

  it('counts every non-empty statement', () => {
    expect(refusal('SELECT 1; SELECT 2; SELECT 3')).toBe("Only one statement may run at a time; found 3. Remove the extra ';'-separated statements.");
    expect(refusal(';')).toBe('Empty query: write one SELECT statement.');
  });

  it('the accepted text is the statement from its first to its last token, comments around it dropped', () => {
    expect(accepted('/* a */ SELECT 1 /* b */')).toBe('SELECT 1');
    expect(accepted('SELECT (1)')).toBe('SELECT (1)');
  });
});

describe('the WITH list, read as SQLite reads it', () => {
  it.each([
    'WITH x(a, b) AS (SELECT 1, 2) SELECT a FROM x',
    'WITH x AS ((SELECT 1)) SELECT * FROM x',
    "WITH x AS (SELECT ')') SELECT * FROM x",
    'WITH "x" AS (SELECT 1) SELECT * FROM "x"',
    "WITH 'x' AS (SELECT 1) SELECT * FROM x",
    'WITH a AS (SELECT 1), b AS (SELECT (2)), c(n) AS NOT MATERIALIZED (SELECT 3) SELECT * FROM a, b, c',
  ])('passes %s', (sql) => {
    expect(accepted(sql)).toBe(sql);
  });

  it.each([
    ['WITH x AS (SELECT 1), y AS (SELECT 2) DELETE FROM t', 'WITH must lead into a SELECT, not DELETE: the database is read-only.'],
    ['WITH x(a AS (SELECT 1) SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x AS (SELECT (1) SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x AS SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x (SELECT 1) SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x AS (SELECT 1), SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x AS (SELECT 1) (SELECT 1)', 'WITH must lead into a SELECT: the database is read-only.'],
    ['WITH x AS MATERIALIZED NOT (SELECT 1) SELECT 1', 'WITH must lead into a SELECT: the database is read-only.'],
    [`WITH x AS (SELECT 1) ${'y'.repeat(100)}`, `WITH must lead into a SELECT, not ${'Y'.repeat(40)}: the database is read-only.`],
  ])('refuses %s', (sql, reason) => {
    expect(refusal(sql)).toBe(reason);
  });
});

/**
 * Second round (docs/mutation.md, "guard.ts, settled"): the WITH walk's token kinds and its end of input, and
 * "called" meaning followed by `(` and nothing else. Each expected verdict is SQLite's own: a CTE is
 * `nm [(columns)] AS [[NOT] MATERIALIZED] (select)` with `nm` a word, a quoted identifier or a string, so every
 * refused text below is a syntax error to SQLite ("incomplete input" for the cut-off ones), and the accepted ones
 * run there.
 */
describe('the WITH walk refuses what SQLite cannot parse, token kind by token kind', () => {
  const noStatement = 'WITH must lead into a SELECT: the database is read-only.';

  it.each(['WITH', 'WITH x', 'WITH x AS', 'WITH x AS NOT'])('input that ends inside the list: %s', (sql) => {
    expect(refusal(sql)).toBe(noStatement);
  });

  it.each([
    // a number or a bound variable is not a name
    'WITH 1 AS (SELECT 1) SELECT 1',
    'WITH x AS (SELECT 1), ? AS (SELECT 2) SELECT 1',
    // AS is required between the name (or its columns) and the body
    'WITH x y (SELECT 1) SELECT 1',
    'WITH x(a) b (SELECT 1) SELECT 1',
    // the body must open with '(' — another punctuation mark is no body
    'WITH x AS * (SELECT 1) SELECT 1',
    // only ',' continues the list — another punctuation mark ends it, and is no statement keyword
    'WITH x AS (SELECT 1) + y AS (SELECT 2) SELECT 1',
  ])('%s', (sql) => {
    expect(refusal(sql)).toBe(noStatement);
  });
});

describe('a name is called only when "(" follows it', () => {
  it.each([
    'SELECT edit, 1 FROM t',
    'SELECT readfile + 1 FROM t',
    'SELECT a FROM t WHERE load_extension = 1',
    'SELECT replicate * 2 FROM t',
  ])('a forbidden or disabled name as a column passes: %s', (sql) => {
    expect(accepted(sql)).toBe(sql);
  });
});
