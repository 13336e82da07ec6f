/**
 * Perturbed copies (src/sql/perturbed-copies.ts) and `runOnCopies` on both executors: what the
 * environment's closeness is judged on. Expected values are derived from the fixture's own rows by hand (the copy
 * plans' definitions), never from the copies' output.
 */
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SHARED_COPY_SETS } from '../../src/sql/engine.ts';
import { LocalSqlExecutor, type SqlExecutor } from '../../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import { buildPerturbedCopies, contentHash, COPY_PLANS, copySeeds } from '../../src/sql/perturbed-copies.ts';
import { tinyDatabaseBytes } from '../fixtures/tiny-dataset.ts';

let SQL: Awaited<ReturnType<typeof initSqlJs>>;
let bytes: Uint8Array;

/** The tiny concert database plus a view, an index, and triggers that would spoil a copy if they fired. */
async function fixtureBytes(): Promise<Uint8Array> {
  const db = new SQL.Database(await tinyDatabaseBytes());
  db.run(`
    CREATE VIEW french AS SELECT name FROM singer WHERE country = 'France';
    CREATE INDEX singer_country ON singer(country);
    CREATE TABLE fired (what TEXT);
    CREATE TRIGGER no_delete BEFORE DELETE ON singer BEGIN SELECT RAISE(ABORT, 'singers are never deleted'); END;
    CREATE TRIGGER no_insert BEFORE INSERT ON concert BEGIN SELECT RAISE(ABORT, 'concerts are never added'); END;
    CREATE TRIGGER log_delete AFTER DELETE ON performs BEGIN INSERT INTO fired VALUES ('performs'); END;
  `);
  const out = db.export();
  db.close();
  return out;
}

/** The copies' databases (null where one could not be built). */
function copyDbs(source: Uint8Array) {
  return buildPerturbedCopies(SQL, source).map((c) => c?.db ?? null);
}

function column(db: { exec: (sql: string) => Array<{ values: unknown[][] }> }, sql: string): unknown[] {
  return (db.exec(sql)[0]?.values ?? []).map((r) => r[0]);
}

beforeAll(async () => {
  SQL = await initSqlJs();
  bytes = await fixtureBytes();
});

describe('buildPerturbedCopies', () => {
  it('builds one copy per plan, deterministic for the same content, read-only on a fresh connection', () => {
    const a = copyDbs(bytes);
    const b = copyDbs(bytes.slice());
    expect(a).toHaveLength(COPY_PLANS.length);
    a.forEach((copy, i) => {
      expect(copy).not.toBeNull();
      expect(copy?.exec('SELECT * FROM singer ORDER BY rowid')).toEqual(b[i]?.exec('SELECT * FROM singer ORDER BY rowid'));
      expect(copy?.exec('SELECT total_changes(), changes(), last_insert_rowid()')[0].values).toEqual([[0, 0, 0]]);
      expect(() => copy?.run('CREATE TABLE x (a)')).toThrow(/readonly|read-only|query_only/i);
    });
    for (const copy of [...a, ...b]) copy?.close();
  });

  it("'rows' keeps a subset of each table's rows unchanged; 'values' keeps every row with every value mapped", () => {
    const [rows, values, both] = copyDbs(bytes);
    const real = new SQL.Database(bytes);
    const realSingers = real.exec('SELECT singer_id, name, country, age, net_worth FROM singer')[0].values;
    const keyOf = (r: unknown[]) => JSON.stringify(r);
    const kept = rows?.exec('SELECT singer_id, name, country, age, net_worth FROM singer')[0]?.values ?? [];
    expect(kept.length).toBeLessThanOrEqual(realSingers.length);
    for (const r of kept) expect(realSingers.map(keyOf)).toContain(keyOf(r));
    // Over all tables some rows go (7 + 5 + 3 rows, each kept with probability 2/3: all kept has probability < 0.3%).
    const count = (db: typeof real | null | undefined) => column(db as typeof real, "SELECT (SELECT count(*) FROM singer) + (SELECT count(*) FROM concert) + (SELECT count(*) FROM performs)")[0];
    expect(count(rows)).toBeLessThan(15);
    expect(count(both)).toBeLessThan(15);

    const { shift, suffix } = copySeeds(contentHash(bytes), 1);
    const mapped = values?.exec('SELECT singer_id, name, country, age, net_worth FROM singer ORDER BY singer_id')[0].values;
    const expected = [...realSingers]
      .sort((x, y) => Number(x[0]) - Number(y[0]))
      .map(([id, name, country, age, worth]) => [Number(id) + shift, `${String(name)}${suffix}`, `${String(country)}${suffix}`, Number(age) + shift, worth === null ? null : Number(worth) + shift]);
    expect(mapped).toEqual(expected);
    // One map for every table: joins keep their partners.
    const joined = 'SELECT count(*) FROM performs p JOIN singer s ON s.singer_id = p.singer_id JOIN concert c ON c.concert_id = p.concert_id';
    expect(column(values as typeof real, joined)).toEqual(column(real, joined));
    // No stored literal survives: not one name, country, title or number of the database is in the 'values' copy.
    for (const [table, col] of [['singer', 'name'], ['singer', 'country'], ['concert', 'title'], ['singer', 'age'], ['concert', 'year']]) {
      const before = new Set(column(real, `SELECT ${col} FROM ${table}`));
      for (const v of column(values as typeof real, `SELECT ${col} FROM ${table}`)) expect(before.has(v), `${table}.${col} ${String(v)}`).toBe(false);
    }
    real.close();
    for (const copy of [rows, values, both]) copy?.close();
  });

  it("'shuffle' keeps every column's values and recombines them across rows", () => {
    const shuffle = copyDbs(bytes)[3];
    const real = new SQL.Database(bytes);
    const sorted = (db: typeof real, sql: string) => column(db, sql).map(String).sort();
    for (const col of ['singer_id', 'name', 'country', 'age', 'net_worth']) {
      expect(sorted(shuffle as typeof real, `SELECT ${col} FROM singer`), col).toEqual(sorted(real, `SELECT ${col} FROM singer`));
    }
    const pairs = (db: typeof real) => sorted(db, "SELECT name || '/' || age FROM singer");
    expect(pairs(shuffle as typeof real)).not.toEqual(pairs(real));
    real.close();
    shuffle?.close();
  });

  it('never fires a trigger while building (a trigger that aborts deletes or inserts would leave the table unperturbed) and keeps them', () => {
    const copies = copyDbs(bytes);
    const real = new SQL.Database(bytes);
    const values = copies[1];
    // The singer table was rewritten (a DELETE) and concert refilled (an INSERT) although triggers forbid both.
    expect(column(values as typeof real, 'SELECT name FROM singer')).not.toContain('Ana');
    expect(column(values as typeof real, 'SELECT title FROM concert')).not.toContain('Spring');
    expect(column(values as typeof real, 'SELECT count(*) FROM concert')).toEqual([3]);
    // log_delete never ran: no row in `fired` on any copy.
    for (const copy of copies) expect(column(copy as typeof real, 'SELECT count(*) FROM fired')).toEqual([0]);
    const triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name";
    for (const copy of copies) expect(copy?.exec(triggers)).toEqual(real.exec(triggers));
    real.close();
    for (const copy of copies) copy?.close();
  });

  it('gives integer texts the number shift and other texts the suffix, so text and number stay equal across tables', () => {
    const db = new SQL.Database();
    db.run(`CREATE TABLE a (k TEXT); CREATE TABLE b (k INTEGER); INSERT INTO a VALUES ('30'), ('007'), ('x'), (''); INSERT INTO b VALUES (30), (7)`);
    const source = db.export();
    db.close();
    const values = copyDbs(source)[1];
    const { shift, suffix } = copySeeds(contentHash(source), 1);
    expect(column(values as NonNullable<typeof values>, 'SELECT k FROM a ORDER BY rowid')).toEqual([String(30 + shift), `007${suffix}`, `x${suffix}`, suffix]);
    expect(column(values as NonNullable<typeof values>, 'SELECT count(*) FROM a JOIN b ON a.k = b.k')).toEqual([1]);
    values?.close();
  });
});

const executors: Array<[string, () => SqlExecutor]> = [
  ['LocalSqlExecutor', () => new LocalSqlExecutor(SQL)],
  ['WorkerSqlExecutor', () => createNodeSqlExecutor({ limits: { timeoutMs: 10_000 } })],
];

describe.each(executors)('runOnCopies on %s', (_name, create) => {
  let executor: SqlExecutor;
  beforeAll(async () => {
    executor = create();
    await executor.load('db', bytes);
  });
  afterAll(() => executor.close());

  it('runs the statement and the gold on every copy', async () => {
    const run = await executor.runOnCopies('db', "SELECT s.name FROM singer AS s WHERE s.country = 'France'", "SELECT name FROM singer WHERE country = 'France'");
    expect(run.copies).toHaveLength(COPY_PLANS.length);
    for (const copy of run.copies) expect(copy.result?.rows).toEqual(copy.gold?.rows);
    // The gold's literal 'France' is spelled as the 'values' copy spells it, so the gold still finds its rows.
    const { suffix } = copySeeds(contentHash(bytes), 1);
    expect(run.copies[1].gold?.rows).toEqual([[`Ana${suffix}`], [`Cy${suffix}`]]);
  });

  it("rewrites only the gold's own text literals: the question's filter agrees, a typed answer does not", async () => {
    const gold = "SELECT name FROM singer WHERE country = 'France'";
    const honest = await executor.runOnCopies('db', 'SELECT name, age FROM singer WHERE country = "France"', gold);
    expect(honest.copies[1].result?.rows.map((r) => r[0])).toEqual(honest.copies[1].gold?.rows.map((r) => r[0]));
    const typed = await executor.runOnCopies('db', "SELECT name FROM singer WHERE name IN ('Ana', 'Cy')", gold);
    expect(typed.copies[1].result?.rows).toEqual([]);
    expect(typed.copies[2].result?.rows).toEqual([]);
  });

  it('gives connection-state functions the same value on the database and on every copy', async () => {
    const sql = 'SELECT total_changes(), changes(), last_insert_rowid()';
    const real = await executor.query('db', sql);
    const run = await executor.runOnCopies('db', sql, 'SELECT count(*) FROM singer');
    for (const copy of run.copies) expect(copy.result?.rows).toEqual(real.rows);
  });

  it('reports SQLite failures on a copy as null and refuses what the guard refuses', async () => {
    const run = await executor.runOnCopies('db', "SELECT json_extract(name, '$.a') FROM singer", 'SELECT 1');
    expect(run.copies.some((c) => c.result === null)).toBe(true);
    await expect(executor.runOnCopies('db', 'DELETE FROM singer', 'SELECT 1')).rejects.toThrow(/DELETE is not allowed/);
  });
});

describe('copies are built once per database content', () => {
  it('shares them across reloads of the same bytes, caches gold runs, and keeps a bounded number of sets', async () => {
    const executor = new LocalSqlExecutor(SQL);
    const stats = executor.engine.copyStats;
    for (let episode = 0; episode < 4; episode++) {
      for (const key of ['s1', 's2']) {
        await executor.load(key, bytes);
        await executor.runOnCopies(key, 'SELECT 5', 'SELECT count(*) FROM singer');
      }
    }
    expect(stats.built).toBe(1);
    expect(stats.goldRuns).toBe(COPY_PLANS.length);
    await executor.load('s1', bytes.slice());
    await executor.runOnCopies('s1', 'SELECT 5', 'SELECT count(*) FROM singer');
    expect(stats.built).toBe(2);
    for (let i = 0; i < MAX_SHARED_COPY_SETS + 4; i++) {
      await executor.load('s1', bytes.slice());
      await executor.runOnCopies('s1', 'SELECT 5', 'SELECT 5');
    }
    expect(stats.kept).toBeLessThanOrEqual(MAX_SHARED_COPY_SETS);
    await executor.close();
  });
});
