/**
 * Gold results: running a question's gold SQL once, at import time, so the environment and the verifier compare
 * against stored rows instead of re-running the gold SQL every episode.
 *
 * The gold goes through the same engine path as the agent's queries, so its values are clipped by the same budgets
 * (src/sql/limits.ts): a value over them is stored as its marker, exactly as a predicted query would return it, and
 * the two still compare equal when the values are. A gold the engine had to truncate (over `rows` rows or
 * `resultChars` characters) is not kept: the agent's result could never be compared with it in full.
 *
 * Ties (`goldTies`): a gold SQL with an outer ORDER BY may legally return other results than the stored one — rows
 * tied on every ORDER BY key may come in either order, and at a LIMIT cut-off any of the tied rows may be the ones
 * kept. They are found once, here: the gold re-run without its LIMIT with its ORDER BY keys as extra columns
 * (src/sql/order-by.ts, `tieRewrite`), cut into groups of equal keys. When the SQL cannot be rewritten, the re-run
 * fails or is truncated, or the stored result is not one of the legal results found (a sign the rewrite changed the
 * query's meaning), there are no ties and only the stored result is accepted, as before.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';
import type { SqlValue } from '../sql/types.ts';
import { tieRewrite } from '../sql/order-by.ts';
import type { GoldResult, GoldTies, JsonSqlValue } from './types.ts';

/** Gold results larger than this are not kept: such a question cannot be answered within an episode anyway. */
export const MAX_GOLD_ROWS = VALUE_LIMITS.rows;

export type GoldOutcome = { ok: true; result: GoldResult; ties?: GoldTies } | { ok: false; reason: string; tooLarge: boolean };

export async function computeGoldResult(executor: SqlExecutor, dbKey: string, goldSql: string): Promise<GoldOutcome> {
  try {
    const result = await executor.query(dbKey, goldSql, { maxRows: MAX_GOLD_ROWS });
    if (result.truncatedBy === 'rows') return { ok: false, reason: `more than ${MAX_GOLD_ROWS} rows`, tooLarge: true };
    if (result.truncated) return { ok: false, reason: `more than ${VALUE_LIMITS.resultChars} characters of values`, tooLarge: true };
    const gold: GoldResult = { columns: result.columns, rows: result.rows };
    const ties = await goldTies(executor, dbKey, goldSql, gold);
    return ties ? { ok: true, result: gold, ties } : { ok: true, result: gold };
  } catch (e) {
    return { ok: false, reason: (e as Error).message, tooLarge: false };
  }
}

/** The gold's tie groups (see the header), or undefined when it has none or they cannot be found faithfully. */
export async function goldTies(executor: SqlExecutor, dbKey: string, goldSql: string, gold: GoldResult): Promise<GoldTies | undefined> {
  const rewrite = tieRewrite(goldSql);
  if (!rewrite || gold.rows.length === 0) return undefined;
  let all: SqlValue[][];
  try {
    const result = await executor.query(dbKey, rewrite.sql, { maxRows: MAX_GOLD_ROWS });
    if (result.truncated) return undefined;
    all = result.rows;
  } catch {
    return undefined;
  }
  const m = gold.columns.length;
  const n = gold.rows.length;
  const from = rewrite.offset;
  if (all.length === 0 || all[0].length !== m + rewrite.keys || from + n > all.length) return undefined;
  if (rewrite.limit === null ? n !== all.length : n !== Math.min(rewrite.limit, all.length - from)) return undefined;
  const keyOf = (row: SqlValue[]): string => JSON.stringify(row.slice(m).map(cellKey));
  const segments: Array<{ take: number; pool: SqlValue[][] }> = [];
  for (let start = 0; start < all.length; ) {
    let end = start + 1;
    while (end < all.length && keyOf(all[end]) === keyOf(all[start])) end++;
    const take = Math.min(end, from + n) - Math.max(start, from);
    if (take > 0) segments.push({ take, pool: all.slice(start, end).map((row) => row.slice(0, m)) });
    start = end;
  }
  if (segments.every((s) => s.pool.length === 1)) return undefined;
  // The stored result must be one of the legal results found, cut into the same segments.
  if (!isLegalCut(segments, gold.rows)) return undefined;
  return { segments: segments.map((s) => ({ take: s.take, pool: s.pool.map((row) => row.map(encodeValue)) })) };
}

/**
 * Whether `rows`, cut into consecutive pieces of each segment's `take`, takes every piece from its segment's pool
 * (rows counted with their multiplicity) and has no row left over: that is, `rows` is one of the results the ties
 * allow. Used when the ties are found, and when a bundle's manifest is read (src/data/manifest-check.ts).
 */
export function isLegalCut(segments: ReadonlyArray<{ take: number; pool: readonly SqlValue[][] }>, rows: readonly SqlValue[][]): boolean {
  const rowKey = (row: readonly SqlValue[]): string => JSON.stringify(row.map(cellKey));
  let at = 0;
  for (const s of segments) {
    const pool = new Map<string, number>();
    for (const row of s.pool) pool.set(rowKey(row), (pool.get(rowKey(row)) ?? 0) + 1);
    if (at + s.take > rows.length) return false;
    for (const row of rows.slice(at, at + s.take)) {
      const left = pool.get(rowKey(row)) ?? 0;
      if (left === 0) return false;
      pool.set(rowKey(row), left - 1);
    }
    at += s.take;
  }
  return at === rows.length;
}

/** Equal exactly when SQLite's ORDER BY (BINARY collation) and the strict verifier see equal values: 1 and 1.0 are one. */
function cellKey(v: SqlValue): string {
  return v === null ? 'null' : typeof v === 'number' ? `n:${String(v)}` : typeof v === 'string' ? `s:${v}` : `b:${toHex(v)}`;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function encodeValue(value: SqlValue): JsonSqlValue {
  return value instanceof Uint8Array ? { $blob: toHex(value) } : value;
}

export function decodeValue(value: JsonSqlValue): SqlValue {
  return value !== null && typeof value === 'object' ? fromHex(value.$blob) : value;
}
