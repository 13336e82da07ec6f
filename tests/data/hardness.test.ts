/**
 * Spider hardness: golden cases for the port of `eval_hardness` (hand-built parsed queries, quirks included) and for
 * the reading of SQL text, then both over every Spider dev question (SPIDER_DIR, default ../shared/spider): the port
 * must give Spider's published dev levels and the text reading must agree with it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hardnessCounts, hardnessFromSpiderSql, hardnessFromSqlText, type HardnessCounts } from '../../src/data/hardness.ts';
import { parseSpiderSqlShape } from '../../src/data/spider-sql-text.ts';
import {
  WHERE_OPS,
  emptySpiderSql,
  type SpiderColUnit,
  type SpiderCondUnit,
  type SpiderSql,
  type SpiderValUnit,
  type SpiderValue,
  type WhereOp,
} from '../../src/data/spider-sql.ts';
import type { Difficulty } from '../../src/data/types.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPIDER_DIR = process.env.SPIDER_DIR ?? resolve(REPO_ROOT, '../shared/spider');

// Builders for parsed queries. Aggregates: 0 none, 1 max, 2 min, 3 count, 4 sum, 5 avg.
const col = (agg = 0, id = 1): SpiderColUnit => [agg, id, false];
const val = (agg = 0): SpiderValUnit => [0, col(agg), null];
const cond = (op: WhereOp, value: SpiderValue = 1, notOp = false): SpiderCondUnit => [notOp, WHERE_OPS.indexOf(op), val(), value, null];
const select = (...aggs: number[]): SpiderSql['select'] => [false, aggs.map((agg): [number, SpiderValUnit] => [agg, val()])];
const query = (parts: Partial<SpiderSql>): SpiderSql => ({ ...emptySpiderSql(), select: select(0), ...parts });
const tables = (n: number): SpiderSql['from'] => ({
  table_units: Array.from({ length: n }, (_, i): ['table_unit', number] => ['table_unit', i]),
  conds: Array.from({ length: n - 1 }, () => cond('=', col())).flatMap((c, i) => (i === 0 ? [c] : ['and' as const, c])),
});
const counts = (component1: number, component2: number, others: number): HardnessCounts => ({ component1, component2, others });

const parsedCases: Array<[string, SpiderSql, HardnessCounts, Difficulty]> = [
  ['count(*) of one table', query({ select: select(3) }), counts(0, 0, 0), 'easy'],
  ['two columns with a WHERE', query({ select: select(0, 0), where: [cond('=')] }), counts(1, 0, 1), 'medium'],
  ['three joined tables with a WHERE', query({ from: tables(3), where: [cond('=')] }), counts(3, 0, 0), 'hard'],
  ['INTERSECT', query({ intersect: query({}) }), counts(0, 1, 0), 'hard'],
  ['subquery in FROM is one table unit, not nested', query({ from: { table_units: [['sql', query({ union: query({}) })]], conds: [] } }), counts(0, 0, 0), 'easy'],
  ['quirk: NOT IN counts as an aggregate', query({ select: select(3), where: [cond('in', query({}), true)] }), counts(1, 1, 1), 'extra'],
  ['same without NOT', query({ select: select(3), where: [cond('in', query({}))] }), counts(1, 1, 0), 'hard'],
  ['quirk: HAVING aggregates do not count', query({ groupBy: [col()], having: [cond('>', 1)], select: select(0) }), counts(1, 0, 0), 'easy'],
  ['quirk: a HAVING connector counts as an aggregate', query({ select: select(3), groupBy: [col()], having: [cond('>'), 'and', cond('>')] }), counts(1, 0, 1), 'medium'],
  ['OR and LIKE add to component 1', query({ where: [cond('like', '%a%'), 'or', cond('=')] }), counts(3, 0, 1), 'hard'],
  ['aggregates in ORDER BY, both sides of an expression', query({ orderBy: ['desc', [[0, col(3), null], [1, col(4), col(5)]]], limit: 1 }), counts(2, 0, 1), 'medium'],
  ['every clause', query({ from: tables(2), where: [cond('=')], groupBy: [col()], orderBy: ['asc', [val()]], limit: 3 }), counts(5, 0, 0), 'extra'],
  ['two group-by columns and two aggregates', query({ select: select(0, 3, 5), groupBy: [col(), col(0, 2)] }), counts(1, 0, 3), 'hard'],
];

describe('hardnessFromSpiderSql (port of evaluation.py)', () => {
  it.each(parsedCases)('%s', (_name, sql, expected, difficulty) => {
    expect(hardnessCounts(sql)).toEqual(expected);
    expect(hardnessFromSpiderSql(sql)).toBe(difficulty);
  });
});

const textCases: Array<[string, HardnessCounts, Difficulty]> = [
  ['SELECT count(*) FROM t', counts(0, 0, 0), 'easy'],
  ['SELECT * FROM t LIMIT 5;', counts(1, 0, 0), 'easy'],
  ['SELECT DISTINCT a FROM t ORDER BY a', counts(1, 0, 0), 'easy'],
  ["SELECT a FROM t WHERE b = 'x UNION SELECT ( or where' -- JOIN u", counts(1, 0, 0), 'easy'],
  ["SELECT name FROM t WHERE a = 'x' AND b BETWEEN 1 AND 5", counts(1, 0, 1), 'medium'],
  ["SELECT a FROM t WHERE b LIKE '%x%' OR c NOT LIKE 'y%'", counts(4, 0, 1), 'extra'],
  ['SELECT T1.a FROM t AS T1 JOIN u AS T2 ON T1.x = T2.x WHERE T2.b = "y"', counts(2, 0, 0), 'medium'],
  // Spider reads a column value up to the next AND, so this OR adds nothing (see valueIsColumn).
  ['SELECT T1.a FROM t AS T1 JOIN u AS T2 ON T1.id = T2.id OR T1.id = T2.other JOIN v ON v.id = T2.id', counts(2, 0, 0), 'medium'],
  ['SELECT a FROM t WHERE b NOT IN (SELECT b FROM u)', counts(1, 1, 0), 'hard'],
  ['SELECT count(*) FROM t WHERE b NOT IN (SELECT b FROM u)', counts(1, 1, 1), 'extra'],
  ['SELECT count(*) FROM (SELECT a FROM t UNION SELECT a FROM u)', counts(0, 0, 0), 'easy'],
  ['SELECT a FROM t INTERSECT SELECT a FROM u EXCEPT SELECT a FROM v', counts(0, 1, 0), 'hard'],
  ['SELECT a , count(*) FROM t GROUP BY a ORDER BY count(*) DESC LIMIT 1', counts(3, 0, 2), 'hard'],
  ['SELECT a FROM t GROUP BY a HAVING count(*) > 1 AND sum(b) > 2', counts(1, 0, 0), 'easy'],
  ['select max(a), min(a) from t where b = 1 or b = 2', counts(2, 0, 3), 'hard'],
  ['SELECT a FROM t WHERE b > (SELECT avg(b) FROM t) AND c IN (SELECT c FROM u)', counts(1, 2, 1), 'extra'],
  ['SELECT a FROM t WHERE (b = 1 OR c = 2) AND d = 3', counts(2, 0, 1), 'medium'],
  ['SELECT a FROM t WHERE b = 1 GROUP BY a ORDER BY a LIMIT 1', counts(4, 0, 0), 'extra'],
  ['WITH x AS (SELECT a FROM t WHERE b > 1) SELECT count(*) FROM x', counts(0, 0, 0), 'easy'],
  ['SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)', counts(1, 1, 0), 'hard'],
];

describe('hardnessFromSqlText', () => {
  it.each(textCases)('%s', (sql, expected, difficulty) => {
    expect(hardnessCounts(parseSpiderSqlShape(sql))).toEqual(expected);
    expect(hardnessFromSqlText(sql)).toBe(difficulty);
  });

  it('reads the structure Spider would: conditions, connectors, NOT flags and nested queries', () => {
    const shape = parseSpiderSqlShape("SELECT a FROM t WHERE b BETWEEN 1 AND 2 OR c NOT IN (SELECT c FROM u) AND d LIKE 'x'");
    expect(shape.where.filter((u) => typeof u === 'string')).toEqual(['or', 'and']);
    const units = shape.where.filter((u): u is SpiderCondUnit => typeof u !== 'string');
    expect(units.map((u) => [u[0], WHERE_OPS[u[1]]])).toEqual([[false, 'between'], [true, 'in'], [false, 'like']]);
    expect(typeof units[1][3]).toBe('object');
  });

  it('never throws on odd input', () => {
    for (const sql of ['', ';', ')))', 'SELECT (((', 'not sql at all', "SELECT 'unterminated", 'SELECT a FROM t WHERE']) {
      expect(['easy', 'medium', 'hard', 'extra']).toContain(hardnessFromSqlText(sql));
    }
  });
});

describe('on every Spider dev question', () => {
  const dev = JSON.parse(readFileSync(resolve(SPIDER_DIR, 'dev.json'), 'utf8')) as Array<{ query: string; sql: SpiderSql }>;

  it("the port gives Spider's published dev levels (248 easy, 446 medium, 174 hard, 166 extra)", () => {
    const tally: Record<Difficulty, number> = { easy: 0, medium: 0, hard: 0, extra: 0 };
    for (const q of dev) tally[hardnessFromSpiderSql(q.sql)]++;
    expect(tally).toEqual({ easy: 248, medium: 446, hard: 174, extra: 166 });
  });

  it('the text reading agrees with the port (at least 90% required; 98% guarded)', () => {
    let sameLevel = 0;
    let sameCounts = 0;
    const disagreements: string[] = [];
    for (const q of dev) {
      const level = hardnessFromSpiderSql(q.sql);
      if (hardnessFromSqlText(q.query) === level) sameLevel++;
      else disagreements.push(`${level}: ${q.query}`);
      if (JSON.stringify(hardnessCounts(parseSpiderSqlShape(q.query))) === JSON.stringify(hardnessCounts(q.sql))) sameCounts++;
    }
    const rate = sameLevel / dev.length;
    console.log(`hardness agreement, text vs parsed, Spider dev: levels ${sameLevel}/${dev.length} = ${(100 * rate).toFixed(2)}%, all three counts ${sameCounts}/${dev.length}`);
    if (disagreements.length > 0) console.log(disagreements.slice(0, 20).join('\n'));
    expect(rate).toBeGreaterThanOrEqual(0.9);
    expect(rate).toBeGreaterThanOrEqual(0.98);
  });
});
