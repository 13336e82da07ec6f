/**
 * The parsed-SQL structure that Spider's `process_sql.py` writes into the `sql` field of dev.json and
 * train_spider.json, typed as it appears in the JSON (Python tuples become arrays). Operators are stored as indices
 * into the tuples below, exactly as in Spider's `evaluation.py`, so ported code can compare indices the same way.
 *
 *   col_unit:  [agg_id, col_id, isDistinct]
 *   val_unit:  [unit_op, col_unit1, col_unit2 | null]
 *   cond_unit: [not_op, op_id, val_unit, val1, val2]
 *   condition: [cond_unit1, 'and' | 'or', cond_unit2, ...]
 */

export const WHERE_OPS = ['not', 'between', '=', '>', '<', '>=', '<=', '!=', 'in', 'like', 'is', 'exists'] as const;
export const UNIT_OPS = ['none', '-', '+', '*', '/'] as const;
export const AGG_OPS = ['none', 'max', 'min', 'count', 'sum', 'avg'] as const;

export type WhereOp = (typeof WHERE_OPS)[number];
export type AggOp = (typeof AGG_OPS)[number];

/** dev.json stores an index into the database's `column_names` (0 is `*`); process_sql.py itself writes `__t.c__`. */
export type SpiderColId = number | string;

export type SpiderColUnit = [aggId: number, colId: SpiderColId, isDistinct: boolean];
export type SpiderValUnit = [unitOp: number, colUnit1: SpiderColUnit, colUnit2: SpiderColUnit | null];
/** A condition's right-hand side: a literal, a column (join conditions), a nested query, or nothing. */
export type SpiderValue = number | string | SpiderColUnit | SpiderSql | null;
export type SpiderCondUnit = [notOp: boolean, opId: number, valUnit: SpiderValUnit, val1: SpiderValue, val2: SpiderValue];
export type SpiderConnector = 'and' | 'or';
export type SpiderCondition = Array<SpiderCondUnit | SpiderConnector>;
export type SpiderTableUnit = ['table_unit', number | string] | ['sql', SpiderSql];

export interface SpiderSql {
  select: [isDistinct: boolean, items: Array<[aggId: number, valUnit: SpiderValUnit]>];
  from: { table_units: SpiderTableUnit[]; conds: SpiderCondition };
  where: SpiderCondition;
  groupBy: SpiderColUnit[];
  having: SpiderCondition;
  /** `[]` without ORDER BY, else the direction and the ordering expressions. */
  orderBy: [] | [direction: 'asc' | 'desc', valUnits: SpiderValUnit[]];
  limit: number | null;
  intersect: SpiderSql | null;
  union: SpiderSql | null;
  except: SpiderSql | null;
}

/** Python's `type(x) is dict` on a parsed value: only a nested query is a JSON object. */
export function isSpiderSql(value: unknown): value is SpiderSql {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** A query with no clauses but SELECT and one table, the starting point of builders and tests. */
export function emptySpiderSql(): SpiderSql {
  return {
    select: [false, []],
    from: { table_units: [['table_unit', 0]], conds: [] },
    where: [],
    groupBy: [],
    having: [],
    orderBy: [],
    limit: null,
    intersect: null,
    union: null,
    except: null,
  };
}
