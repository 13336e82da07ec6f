import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng, pick, randomInt } from '../../src/data/rng.ts';
import { checkReadOnlySql } from '../../src/sql/guard.ts';
import { significantTokens, tokenize, unquoteIdentifier } from '../../src/sql/tokenize.ts';

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

/**
 * The guard against SQLite itself: whatever the guard lets through, run on a WRITABLE database (no query_only, the
 * second wall removed), must leave the table as it was. SQLite is the oracle for how the text is really tokenised.
 */
describe('checkReadOnlySql against SQLite', () => {
  let SQL: SqlJsStatic;
  beforeAll(async () => {
    SQL = await initSqlJs();
  });

  /** Runs `sql` as the engine would (prepare the first statement, step it out); whether table t lost its row. */
  function writesThroughGuard(sql: string): boolean {
    const verdict = checkReadOnlySql(sql);
    if (!verdict.ok) return false;
    const db = new SQL.Database();
    try {
      db.run('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
      try {
        const stmt = db.prepare(verdict.sql);
        while (stmt.step());
        stmt.free();
      } catch {
        // SQLite refused it: nothing ran.
      }
      return db.exec('SELECT count(*) FROM t')[0].values[0][0] !== 1;
    } finally {
      db.close();
    }
  }

  // `$a(…)` (and :a, @a, #a) variables end at the first ')' or space and may hold quotes, brackets or comment
  // openers; a lexer that read `'` there as a string start saw a SELECT where SQLite ran a DELETE.
  it.each([
    "WITH x AS (SELECT $a(')) DELETE FROM t --')) SELECT 1",
    "WITH x AS (SELECT :a(')) DELETE FROM t --')) SELECT 1",
    "WITH x AS (SELECT @a(')) DELETE FROM t --')) SELECT 1",
    "WITH x AS (SELECT #a(')) DELETE FROM t --')) SELECT 1",
    'WITH x AS (SELECT $a::b(")) DELETE FROM t --")) SELECT 1',
    'WITH x AS (SELECT $a([)) DELETE FROM t --])) SELECT 1',
    'WITH x AS (SELECT $a(`)) DELETE FROM t --`)) SELECT 1',
    'WITH x AS (SELECT $a(/*)) DELETE FROM t --*/)) SELECT 1',
  ])('refuses the variable trick %s', (sql) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/not DELETE/);
    expect(writesThroughGuard(sql)).toBe(false);
  });

  it('reads variables as SQLite does', () => {
    expect(significantTokens("SELECT ?1, ?, :x, @y, #z, $w, $a('), $a::b(c)").filter((t) => t.kind === 'variable').map((t) => t.text)).toEqual(['?1', '?', ':x', '@y', '#z', '$w', "$a(')", '$a::b(c)']);
    // Whitespace ends the (…) suffix: SQLite calls it illegal, so '$' is no variable here.
    expect(tokenize('$a( b)')[0]).toEqual({ kind: 'punct', text: '$', start: 0 });
    const verdict = checkReadOnlySql('SELECT ?1, :x, @y, $z, $a(b), $a::b(c)');
    expect(verdict.ok).toBe(true);
  });

  it('lets nothing that writes through, on seeded random mixes of quotes, variables and statements', () => {
    const seed = Date.now() % 1_000_000;
    console.log(`guard fuzz seed: ${seed}`);
    const rng = createRng(seed);
    const pieces = ['SELECT 1', 'WITH x AS (SELECT ', 'DELETE FROM t', ' ', ')', '(', "'", '"', '`', '[', ']', ';', '--', '\n', '/*', '*/', '$a(', ':b(', '@c(', '#d(', '$e::f(', '?2', 'x', ',', ' SELECT 1'];
    let accepted = 0;
    for (let i = 0; i < 3_000; i++) {
      const n = 2 + randomInt(rng, 10);
      let sql = pick(rng, ['SELECT ', 'WITH x AS (SELECT ']);
      for (let k = 0; k < n; k++) sql += pick(rng, pieces);
      if (checkReadOnlySql(sql).ok) accepted++;
      if (writesThroughGuard(sql)) throw new Error(`seed ${seed}: the guard passed a statement that wrote: ${JSON.stringify(sql)}`);
    }
    // The mix must exercise acceptance too, or the property says nothing.
    expect(accepted).toBeGreaterThan(30);
  });
});

describe('function names in call position', () => {
  it.each([
    ['SELECT "load_extension"(\'evil\')', /load_extension\(\) is not allowed/],
    ["SELECT [readfile]('/etc/passwd')", /readfile\(\) is not allowed/],
    ["SELECT `writefile`('/tmp/x', 'y')", /writefile\(\) is not allowed/],
    ['SELECT "Load_Extension" (\'evil\')', /Load_Extension\(\) is not allowed/],
    ["SELECT 'edit'('x')", /edit\(\) is not allowed/],
    ["SELECT /* c */ \"fts3_tokenizer\" /* c */ ('simple')", /fts3_tokenizer\(\) is not allowed/],
  ])('refuses a quoted forbidden name: %s', (sql, reason) => {
    const verdict = checkReadOnlySql(sql);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });

  it.each(['replicate', 'padl', 'padr', 'padc', 'REPLICATE', '"padc"', 'median', 'strfilter', 'charindex', 'reverse'])(
    'refuses the disabled legacy function %s',
    (name) => {
      const verdict = checkReadOnlySql(`SELECT length(${name}('ab', 2147483648))`);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason).toMatch(/legacy extension functions are disabled/);
    },
  );

  it.each(['SELECT sign(-2), log(100), sqrt(4), pi(), ceil(1.5)', 'SELECT "name" FROM t', 'SELECT [x] FROM [t]', 'SELECT count(*) FROM "t"'])(
    'accepts SQLite built-ins and quoted names outside call position: %s',
    (sql) => {
      expect(checkReadOnlySql(sql).ok).toBe(true);
    },
  );
});
