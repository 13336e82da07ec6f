/**
 * Gold ties (src/data/gold.ts, `goldTies`): the results a gold SQL with ORDER BY may legally return, found once when
 * the bundle is made. Hand-made tables with known ties, the fallbacks, and on Spider dev (when present) the 42 golds
 * tied at a LIMIT cut-off (issue 21's count) with one alternative the environment now accepts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeGoldResult, goldTies } from '../../src/data/gold.ts';
import { importSpider } from '../../src/data/spider.ts';
import type { Question } from '../../src/data/types.ts';
import { answerMatches } from '../../src/env/answer.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';

let executor: LocalSqlExecutor;

beforeAll(async () => {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`CREATE TABLE s (name TEXT, votes INT, country TEXT);
    INSERT INTO s VALUES ('a', 9, 'X'), ('b', 5, 'Y'), ('c', 5, 'Z'), ('d', 1, 'X'), ('e', 5, 'Y');`);
  executor = new LocalSqlExecutor(SQL);
  await executor.load('db', db.export());
  db.close();
});
afterAll(() => executor.close());

async function ties(sql: string): Promise<unknown> {
  const outcome = await computeGoldResult(executor, 'db', sql);
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.ties;
}

describe('goldTies', () => {
  it('finds the rows tied at a LIMIT cut-off', async () => {
    expect(await ties('SELECT name FROM s ORDER BY votes DESC LIMIT 2')).toEqual({
      segments: [{ take: 1, pool: [['a']] }, { take: 1, pool: [['b'], ['c'], ['e']] }],
    });
  });

  it('finds tied rows inside the result (either order) and at an OFFSET', async () => {
    expect(await ties('SELECT name, votes FROM s ORDER BY votes')).toEqual({
      segments: [{ take: 1, pool: [['d', 1]] }, { take: 3, pool: [['b', 5], ['c', 5], ['e', 5]] }, { take: 1, pool: [['a', 9]] }],
    });
    expect(await ties('SELECT name FROM s ORDER BY votes LIMIT 2 OFFSET 2')).toEqual({ segments: [{ take: 2, pool: [['b'], ['c'], ['e']] }] });
  });

  it('has none when the keys break every tie, or no ORDER BY is outside a subquery', async () => {
    expect(await ties('SELECT name FROM s ORDER BY votes DESC, name LIMIT 2')).toBeUndefined();
    expect(await ties('SELECT name FROM s ORDER BY name')).toBeUndefined();
    expect(await ties('SELECT name FROM s WHERE votes = (SELECT votes FROM s ORDER BY votes LIMIT 1)')).toBeUndefined();
  });

  it('falls back to the stored result (no ties) when the SQL cannot be rewritten or the re-run fails', async () => {
    expect(await ties('SELECT DISTINCT country FROM s ORDER BY votes LIMIT 1')).toBeUndefined();
    expect(await ties('SELECT name, votes FROM s ORDER BY 2 LIMIT 1')).toBeUndefined();
    // The rewrite's key refers to an alias SQLite does not resolve in the result columns: the re-run fails.
    const gold = { columns: ['name'], rows: [['a']] };
    expect(await goldTies(executor, 'db', 'SELECT name, votes AS v FROM s ORDER BY nosuch LIMIT 1', gold)).toBeUndefined();
  });

  it('refuses ties the stored result is not one of (a rewrite that changed the meaning)', async () => {
    const sql = 'SELECT name FROM s ORDER BY votes DESC LIMIT 2';
    expect(await goldTies(executor, 'db', sql, { columns: ['name'], rows: [['a'], ['c']] })).toBeDefined();
    expect(await goldTies(executor, 'db', sql, { columns: ['name'], rows: [['a'], ['d']] })).toBeUndefined();
    expect(await goldTies(executor, 'db', sql, { columns: ['name'], rows: [['b'], ['a']] })).toBeUndefined();
  });
});

const spider = spiderDir();
describe.runIf(existsSync(join(spider, 'dev.json')))('ties on Spider dev', () => {
  let questions: Question[];
  let worker: WorkerSqlExecutor;
  beforeAll(async () => {
    worker = createNodeSqlExecutor();
    questions = (await importSpider(spider, worker)).dataset.questions;
  }, 240_000);
  afterAll(() => worker?.close());

  it('counts the golds tied at a LIMIT cut-off (42) and accepts one of their alternatives', () => {
    const withTies = questions.filter((q) => q.goldTies);
    const atCutoff = withTies.filter((q) => q.goldTies!.segments.some((s) => s.pool.length > s.take));
    expect(atCutoff.length).toBe(42);
    expect(withTies.every((q) => q.orderMatters)).toBe(true);
    // dev-0026: "Which year has most number of concerts?", SELECT YEAR FROM concert GROUP BY YEAR ORDER BY count(*)
    // DESC LIMIT 1: 2014 and 2015 both have two concerts.
    const q = questions.find((x) => x.id === 'dev-0026')!;
    expect(q.goldTies!.segments.map((s) => s.take)).toEqual([1]);
    expect(q.goldTies!.segments[0].pool.map((r) => JSON.stringify(r[0])).sort()).toEqual(['"2014"', '"2015"']);
    const stored = String(q.goldResult.rows[0][0]);
    const other = stored === '2014' ? '2015' : '2014';
    expect(answerMatches(other, q.goldResult, q.orderMatters, q.goldTies).match).toBe(true);
    expect(answerMatches(other, q.goldResult, q.orderMatters).match).toBe(false);
    expect(answerMatches('2013', q.goldResult, q.orderMatters, q.goldTies).match).toBe(false);
  });
});
