/**
 * The demo dataset (src/data/demo): deterministic from its seed, big and varied enough (≥3 databases, ≥60 questions,
 * all four difficulties, train and eval), every gold query read-only, non-empty and unambiguous when ordered, sound
 * database files (keys declared, foreign keys holding, NULLs present), and a bundle that reads back equal.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/data/bundle.ts';
import { readBundleFolder, writeBundleFolder } from '../../src/data/bundle-node.ts';
import { buildDemoDataset, DEMO_CURATED, DEMO_DATABASES, DEMO_LICENSE } from '../../src/data/demo/build.ts';
import { orderAmbiguity, withTieBreakers } from '../../src/data/demo/order-check.ts';
import { sqlenvSplits } from '../../src/data/split.ts';
import { DIFFICULTIES, type Dataset } from '../../src/data/types.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { checkReadOnlySql } from '../../src/sql/guard.ts';
import { hasOrderBy } from '../../src/sql/order-by.ts';

let sqlJs: SqlJsStatic;
let dataset: Dataset;
let executor: LocalSqlExecutor;

beforeAll(async () => {
  sqlJs = await initSqlJs();
  dataset = await buildDemoDataset({ sqlJs });
  executor = new LocalSqlExecutor(sqlJs);
  for (const db of dataset.databases) await executor.load(db.id, await dataset.loadDatabase(db.id));
});

async function allBytes(ds: Dataset): Promise<Map<string, Uint8Array>> {
  return new Map(await Promise.all(ds.databases.map(async (db) => [db.id, await ds.loadDatabase(db.id)] as const)));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

describe('demo dataset: determinism', () => {
  it('builds identical questions and byte-identical database files from the same seed', async () => {
    const again = await buildDemoDataset({ sqlJs });
    expect(again.questions).toEqual(dataset.questions);
    expect(again.databases).toEqual(dataset.databases);
    const [first, second] = [await allBytes(dataset), await allBytes(again)];
    for (const [id, bytes] of first) expect(sameBytes(bytes, second.get(id) ?? new Uint8Array()), id).toBe(true);
  });

  it('builds the same from a fresh sql.js module (no state carried between builds)', async () => {
    const fresh = await buildDemoDataset();
    const [first, second] = [await allBytes(dataset), await allBytes(fresh)];
    for (const [id, bytes] of first) expect(sameBytes(bytes, second.get(id) ?? new Uint8Array()), id).toBe(true);
  });

  it('uses its seed: another seed gives other rows for the same questions', async () => {
    const other = await buildDemoDataset({ sqlJs, seed: 1 });
    expect(other.questions.map((q) => [q.id, q.question, q.gold])).toEqual(dataset.questions.map((q) => [q.id, q.question, q.gold]));
    const [first, second] = [await allBytes(dataset), await allBytes(other)];
    for (const [id, bytes] of first) expect(sameBytes(bytes, second.get(id) ?? new Uint8Array()), id).toBe(false);
  });
});

describe('demo dataset: shape', () => {
  it('has at least 3 databases and 60 questions, with well-formed entries and ids', () => {
    expect(dataset.name).toBe('demo');
    expect(dataset.license).toBe(DEMO_LICENSE);
    expect(dataset.description.length).toBeGreaterThan(20);
    expect(dataset.databases.length).toBeGreaterThanOrEqual(3);
    expect(dataset.questions.length).toBeGreaterThanOrEqual(60);
    for (const db of dataset.databases) {
      expect(db.file).toBe(`db/${db.id}.sqlite`);
      expect(db.tables.length).toBeGreaterThanOrEqual(4);
      expect(dataset.questions.filter((q) => q.dbId === db.id).length, db.id).toBeGreaterThanOrEqual(20);
    }
    const ids = dataset.questions.map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const q of dataset.questions) {
      expect(q.id).toMatch(new RegExp(`^demo-${q.dbId}-\\d{3}$`));
      expect(dataset.databases.some((db) => db.id === q.dbId)).toBe(true);
      expect(q.question).toMatch(/^[A-Z].*[?.]$/);
    }
  });

  it('asks each question once per database, with distinct gold SQL', () => {
    for (const spec of DEMO_DATABASES) {
      expect(new Set(spec.questions.map((q) => q.question)).size, spec.id).toBe(spec.questions.length);
      expect(new Set(spec.questions.map((q) => q.gold.toLowerCase())).size, spec.id).toBe(spec.questions.length);
    }
  });

  it('covers all four Spider difficulties, in every database', () => {
    for (const d of DIFFICULTIES) expect(dataset.questions.some((q) => q.difficulty === d), d).toBe(true);
    for (const db of dataset.databases) {
      const present = new Set(dataset.questions.filter((q) => q.dbId === db.id).map((q) => q.difficulty));
      expect([...present].sort(), db.id).toEqual([...DIFFICULTIES].sort());
    }
  });

  it('splits into non-empty train and eval by sqlenvSplits (every demo database curated), with no heldout questions', () => {
    expect(dataset.questions.filter((q) => q.split === 'train').length).toBeGreaterThan(0);
    expect(dataset.questions.filter((q) => q.split === 'eval').length).toBeGreaterThan(0);
    expect(DEMO_CURATED).toEqual(DEMO_DATABASES.map((spec) => spec.id));
    const splits = sqlenvSplits(dataset.questions.map((q) => ({ dbId: q.dbId, question: q.question, gold: q.gold, goldRows: q.goldResult.rows })), DEMO_CURATED);
    expect(dataset.questions.map((q) => q.split)).toEqual(splits);
    expect(splits).not.toContain('heldout');
  });

  it('loadDatabase hands out copies and names an unknown database', async () => {
    const a = await dataset.loadDatabase('library');
    a[0] = 0;
    expect((await dataset.loadDatabase('library'))[0]).not.toBe(0);
    await expect(dataset.loadDatabase('nope')).rejects.toBeInstanceOf(DatasetError);
  });
});

describe('demo dataset: gold SQL', () => {
  it('passes the read-only guard, every one', () => {
    for (const q of dataset.questions) expect(checkReadOnlySql(q.gold).ok, q.id).toBe(true);
  });

  it('returns at least one row, and the stored gold result is what the SQL returns', async () => {
    for (const q of dataset.questions) {
      expect(q.goldResult.rows.length, q.id).toBeGreaterThan(0);
      const fresh = await executor.query(q.dbId, q.gold);
      expect({ columns: fresh.columns, rows: fresh.rows }, q.id).toEqual(q.goldResult);
    }
  });

  it('sets orderMatters exactly when the gold SQL has ORDER BY', () => {
    for (const q of dataset.questions) expect(q.orderMatters, q.id).toBe(hasOrderBy(q.gold));
    expect(dataset.questions.filter((q) => q.orderMatters).length).toBeGreaterThanOrEqual(10);
  });

  it('has unambiguous ordered results: ORDER BY … LIMIT never cuts through ties, and tied rows never swap', async () => {
    const limited = dataset.questions.filter((q) => /\blimit\b/i.test(q.gold));
    expect(limited.length).toBeGreaterThanOrEqual(8);
    for (const q of limited) expect(q.orderMatters, `${q.id}: LIMIT without ORDER BY`).toBe(true);
    for (const q of dataset.questions.filter((x) => x.orderMatters)) {
      expect(await orderAmbiguity(executor, q.dbId, q.gold, q.goldResult.columns.length), q.id).toBeNull();
      // Breaking ties by every output column, either way round, leaves the stored answer as it is.
      for (const direction of ['ASC', 'DESC'] as const) {
        const broken = withTieBreakers(q.gold, q.goldResult.columns.length, direction);
        expect(broken, q.id).not.toBeNull();
        expect((await executor.query(q.dbId, broken ?? '')).rows, `${q.id} ${direction}`).toEqual(q.goldResult.rows);
      }
    }
  });
});

describe('demo dataset: order check', () => {
  it.each([
    ['SELECT a FROM t ORDER BY b DESC LIMIT 1', 'SELECT a FROM t ORDER BY b DESC, 1 ASC LIMIT 1'],
    ['SELECT a, b FROM t ORDER BY b', 'SELECT a, b FROM t ORDER BY b, 1 ASC, 2 ASC'],
    ['SELECT a FROM t ORDER BY count(*) DESC LIMIT 3;', 'SELECT a FROM t ORDER BY count(*) DESC, 1 ASC LIMIT 3;'],
    ['SELECT a FROM t', null],
  ])('withTieBreakers(%s)', (sql, expected) => {
    const columns = (sql.match(/SELECT (.*) FROM/)?.[1] ?? '').split(',').length;
    expect(withTieBreakers(sql, columns, 'ASC')).toBe(expected);
  });

  it.each([
    ['a LIMIT 1 cut through a tie', 'SELECT title FROM books ORDER BY genre LIMIT 1', /tie/],
    ['tied rows in a full ordering', 'SELECT title, genre FROM books ORDER BY genre', /tie/],
    ['LIMIT without ORDER BY', 'SELECT title FROM books LIMIT 1', /LIMIT without ORDER BY/],
    ['ORDER BY in a subquery', 'SELECT name FROM authors WHERE author_id = (SELECT author_id FROM books ORDER BY pages DESC LIMIT 1)', /subquery/],
  ])('catches %s', async (_, sql, reason) => {
    expect(await orderAmbiguity(executor, 'library', sql, 1)).toMatch(reason);
  });

  it('accepts ties whose rows look the same', async () => {
    expect(await orderAmbiguity(executor, 'library', 'SELECT genre FROM books ORDER BY genre LIMIT 3', 1)).toBeNull();
  });
});

describe('demo dataset: database files', () => {
  it('declare primary keys and foreign keys, keep every foreign key, fill every table and contain NULLs', async () => {
    for (const entry of dataset.databases) {
      // Straight through sql.js: the executor's guard (rightly) refuses PRAGMA.
      const db = new sqlJs.Database(await dataset.loadDatabase(entry.id));
      try {
        const scalar = (sql: string): number => Number(db.exec(sql)[0]?.values[0]?.[0] ?? 0);
        expect(db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")[0].values.map((r) => r[0])).toEqual(entry.tables);
        expect(db.exec('PRAGMA foreign_key_check'), entry.id).toEqual([]);
        let foreignKeys = 0;
        let nulls = 0;
        for (const table of entry.tables) {
          expect(scalar(`SELECT count(*) FROM pragma_table_info('${table}') WHERE pk > 0`), `${entry.id}.${table} primary key`).toBeGreaterThan(0);
          expect(scalar(`SELECT count(*) FROM ${table}`), `${entry.id}.${table} rows`).toBeGreaterThanOrEqual(5);
          foreignKeys += scalar(`SELECT count(*) FROM pragma_foreign_key_list('${table}')`);
          const columns = db.exec(`SELECT name FROM pragma_table_info('${table}')`)[0].values.map((r) => String(r[0]));
          for (const c of columns) nulls += scalar(`SELECT count(*) FROM ${table} WHERE ${c} IS NULL`);
        }
        expect(foreignKeys, `${entry.id} foreign keys`).toBeGreaterThanOrEqual(3);
        expect(nulls, `${entry.id} NULLs`).toBeGreaterThan(0);
      } finally {
        db.close();
      }
    }
  });
});

describe('demo dataset: bundle', () => {
  it('writes a bundle that reads back equal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sqlenv-demo-'));
    try {
      await writeBundleFolder(dir, dataset);
      const back = await readBundleFolder(dir);
      expect(back.name).toBe(dataset.name);
      expect(back.description).toBe(dataset.description);
      expect(back.license).toBe(dataset.license);
      expect(back.databases).toEqual(dataset.databases);
      expect(back.questions).toEqual(dataset.questions);
      for (const db of dataset.databases) expect(sameBytes(await back.loadDatabase(db.id), await dataset.loadDatabase(db.id)), db.id).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
