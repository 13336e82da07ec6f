/**
 * The Spider import's time budget, and the executor its gold queries run on.
 *
 * Two limits (ImportBudget): one per gold query, enforced by the SQL executor (a worker past it is terminated and
 * replaced; the question is skipped as 'timeout'), and one for the whole import, checked before each database is
 * opened and before each gold query (once spent, every question not yet run is skipped as 'over-budget', so an
 * import ends at most one query's limit after its budget). The report counts both.
 *
 * `computeGoldResult` (gold.ts) turns every failure into text, but the importer must tell a runaway query or a
 * crashed engine (a WASM trap) from an SQL error, so the executor is wrapped: every call's SqlError kind is kept for
 * the importer to take, and every query gets the per-query time limit.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { SqlError, type SqlErrorKind } from '../sql/types.ts';

export interface ImportBudget {
  /** The whole import, in ms: once spent, questions not yet run are skipped as 'over-budget'. */
  totalMs: number;
  /** One gold query, in ms: a query past it is stopped and its question skipped as 'timeout'. */
  queryMs: number;
}

/**
 * Gold queries are trusted but some are slow on big databases, so one gets 20 s (the import script and the page
 * used this limit before); the whole import gets 15 minutes, which a full Spider import (dev and train) stays far
 * below on an ordinary machine.
 */
export const DEFAULT_IMPORT_BUDGET: ImportBudget = { totalMs: 15 * 60_000, queryMs: 20_000 };

export interface GoldExecutor {
  /** The executor to run gold queries on: `executor`, with the per-query limit on every query. */
  executor: SqlExecutor;
  /** The SqlError kind of the last failed call since the last take (null if none failed), and forgets it. */
  takeFailure(): SqlErrorKind | null;
}

/**
 * Wraps `executor` (a Proxy, so methods added to SqlExecutor later pass through unchanged; each runs on the real
 * executor, never on the proxy).
 */
export function goldExecutor(executor: SqlExecutor, queryMs: number): GoldExecutor {
  let failure: SqlErrorKind | null = null;
  const recording =
    (method: (...args: unknown[]) => unknown) =>
    async (...args: unknown[]): Promise<unknown> => {
      try {
        return await method.apply(executor, args);
      } catch (e) {
        if (e instanceof SqlError) failure = e.kind;
        throw e;
      }
    };
  const wrapped = new Proxy(executor, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'query') {
        return recording((dbKey, sql, limits) => target.query(dbKey as string, sql as string, { ...(limits as object | undefined), timeoutMs: queryMs }));
      }
      return recording(value as (...args: unknown[]) => unknown);
    },
  });
  return {
    executor: wrapped,
    takeFailure: () => {
      const taken = failure;
      failure = null;
      return taken;
    },
  };
}
