/**
 * Gold results: running a question's gold SQL once, at import time, so the environment and the verifier compare
 * against stored rows instead of re-running the gold SQL every episode.
 *
 * The gold goes through the same engine path as the agent's queries, so its values are clipped by the same budgets
 * (src/sql/limits.ts): a value over them is stored as its marker, exactly as a predicted query would return it, and
 * the two still compare equal when the values are. A gold the engine had to truncate (over `rows` rows or
 * `resultChars` characters) is not kept: the agent's result could never be compared with it in full.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { VALUE_LIMITS } from '../sql/limits.ts';
import type { SqlValue } from '../sql/types.ts';
import type { GoldResult, JsonSqlValue } from './types.ts';

/** Gold results larger than this are not kept: such a question cannot be answered within an episode anyway. */
export const MAX_GOLD_ROWS = VALUE_LIMITS.rows;

export type GoldOutcome = { ok: true; result: GoldResult } | { ok: false; reason: string; tooLarge: boolean };

export async function computeGoldResult(executor: SqlExecutor, dbKey: string, goldSql: string): Promise<GoldOutcome> {
  try {
    const result = await executor.query(dbKey, goldSql, { maxRows: MAX_GOLD_ROWS });
    if (result.truncatedBy === 'rows') return { ok: false, reason: `more than ${MAX_GOLD_ROWS} rows`, tooLarge: true };
    if (result.truncated) return { ok: false, reason: `more than ${VALUE_LIMITS.resultChars} characters of values`, tooLarge: true };
    return { ok: true, result: { columns: result.columns, rows: result.rows } };
  } catch (e) {
    return { ok: false, reason: (e as Error).message, tooLarge: false };
  }
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
