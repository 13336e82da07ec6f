/**
 * Spider's difficulty levels (easy / medium / hard / extra), ported line for line from `eval_hardness` in Spider's
 * `evaluation.py` together with its helpers `count_component1`, `count_component2` (via `get_nestedSQL`),
 * `count_others` and `count_agg`. The port keeps the original's quirks on purpose, so our levels equal the ones
 * published with Spider:
 * - `count_agg(where[::2])` and `count_agg(having)` test `unit[0]` of condition units, which is the NOT flag, not an
 *   aggregate; `having` is passed whole, so its 'and'/'or' connectors count too (a string's first letter != 0).
 * - Nested queries are counted only in ON / WHERE / HAVING values and as INTERSECT / UNION / EXCEPT, and only one
 *   level deep; a subquery in FROM is just one more table unit.
 *
 * `hardnessFromSqlText` applies the same port to a query shape read from SQL text (`spider-sql-text.ts`), for
 * datasets that have no parsed `sql` field.
 */
import { parseSpiderSqlShape } from './spider-sql-text.ts';
import { AGG_OPS, WHERE_OPS, isSpiderSql, type SpiderCondition, type SpiderSql } from './spider-sql.ts';
import type { Difficulty } from './types.ts';

/** The three counts `eval_hardness` looks at. */
export interface HardnessCounts {
  /** WHERE, GROUP BY, ORDER BY, LIMIT, joins, ORs and LIKEs. */
  component1: number;
  /** Nested queries in conditions plus INTERSECT / UNION / EXCEPT. */
  component2: number;
  /** Aggregates > 1, select columns > 1, where conditions > 1, group-by columns > 1 (each adds one). */
  others: number;
}

/** Python's `x != 0` on `unit[0]`: False == 0 and True == 1; a connector string's first letter is never 0. */
function firstIsNotZero(unit: readonly unknown[] | string): boolean {
  const first: unknown = unit[0];
  if (typeof first === 'boolean') return first;
  if (typeof first === 'number') return first !== AGG_OPS.indexOf('none');
  return true;
}

/** `count_agg(units)`: how many units have `unit[0] != AGG_OPS.index('none')`. */
function countAgg(units: ReadonlyArray<readonly unknown[] | string>): number {
  return units.filter(firstIsNotZero).length;
}

/** Python's `conds[::2]` (condition units) and `conds[1::2]` (connectors). */
function evens<T>(items: readonly T[]): T[] {
  return items.filter((_, i) => i % 2 === 0);
}
function odds<T>(items: readonly T[]): T[] {
  return items.filter((_, i) => i % 2 === 1);
}

function condUnits(sql: SpiderSql): SpiderCondition {
  return [...evens(sql.from.conds), ...evens(sql.where), ...evens(sql.having)];
}

/** `get_nestedSQL`: queries in condition values, then intersect, except, union. */
export function nestedSql(sql: SpiderSql): SpiderSql[] {
  const nested: SpiderSql[] = [];
  for (const unit of condUnits(sql)) {
    if (typeof unit === 'string') continue;
    if (isSpiderSql(unit[3])) nested.push(unit[3]);
    if (isSpiderSql(unit[4])) nested.push(unit[4]);
  }
  for (const op of [sql.intersect, sql.except, sql.union]) if (op !== null) nested.push(op);
  return nested;
}

export function countComponent1(sql: SpiderSql): number {
  let count = 0;
  if (sql.where.length > 0) count += 1;
  if (sql.groupBy.length > 0) count += 1;
  if (sql.orderBy.length > 0) count += 1;
  if (sql.limit !== null) count += 1;
  if (sql.from.table_units.length > 0) count += sql.from.table_units.length - 1; // JOIN
  const connectors = [...odds(sql.from.conds), ...odds(sql.where), ...odds(sql.having)];
  count += connectors.filter((token) => token === 'or').length;
  const like = WHERE_OPS.indexOf('like');
  count += condUnits(sql).filter((unit) => typeof unit !== 'string' && unit[1] === like).length;
  return count;
}

export function countComponent2(sql: SpiderSql): number {
  return nestedSql(sql).length;
}

export function countOthers(sql: SpiderSql): number {
  let count = 0;
  let aggCount = countAgg(sql.select[1]);
  aggCount += countAgg(evens(sql.where));
  aggCount += countAgg(sql.groupBy);
  if (sql.orderBy.length === 2) {
    const valUnits = sql.orderBy[1];
    aggCount += countAgg([...valUnits.map((unit) => unit[1]), ...valUnits.flatMap((unit) => (unit[2] ? [unit[2]] : []))]);
  }
  aggCount += countAgg(sql.having);
  if (aggCount > 1) count += 1;
  if (sql.select[1].length > 1) count += 1; // select columns
  if (sql.where.length > 1) count += 1; // where conditions (the list holds connectors too)
  if (sql.groupBy.length > 1) count += 1; // group-by columns
  return count;
}

export function hardnessCounts(sql: SpiderSql): HardnessCounts {
  return { component1: countComponent1(sql), component2: countComponent2(sql), others: countOthers(sql) };
}

/** `eval_hardness`'s decision, on the three counts. */
export function difficultyFromCounts({ component1: c1, component2: c2, others }: HardnessCounts): Difficulty {
  if (c1 <= 1 && others === 0 && c2 === 0) return 'easy';
  if ((others <= 2 && c1 <= 1 && c2 === 0) || (c1 <= 2 && others < 2 && c2 === 0)) return 'medium';
  if ((others > 2 && c1 <= 2 && c2 === 0) || (c1 > 2 && c1 <= 3 && others <= 2 && c2 === 0) || (c1 <= 1 && others === 0 && c2 <= 1)) return 'hard';
  return 'extra';
}

/** Spider's hardness of a query in its parsed form (the `sql` field of dev.json / train_spider.json). */
export function hardnessFromSpiderSql(sql: SpiderSql): Difficulty {
  return difficultyFromCounts(hardnessCounts(sql));
}

/** Spider's hardness computed from SQL text, for questions without a parsed `sql` field. */
export function hardnessFromSqlText(sql: string): Difficulty {
  return hardnessFromSpiderSql(parseSpiderSqlShape(sql));
}
