/**
 * Similarity between a query result and the gold result, in [0, 1], the potential behind the progress reward.
 *
 *   similarity = 1                          when executionMatch(gold, pred, orderMatters) (the strict verifier)
 *              = 0.5 · cellF1 + 0.4 · rowF1  otherwise, so at most 0.9 < 1
 *
 * cellF1: multiset F1 over every cell's `valueKey` (positions ignored). rowF1: multiset F1 over rows, each keyed by
 * its sorted cell keys, so column order does not matter. Multiset F1 of bags P and G is 2·|P ∩ G| / (|P| + |G|)
 * (∩ takes the smaller count of each key); 0 when both are empty. An empty prediction against a non-empty gold
 * scores 0, and so does a non-empty prediction against an empty gold. Cost O(n·m·log m) for n rows of m cells.
 *
 * Both F1 parts are symmetric in pred and gold; only the strict match (row order) depends on which side is gold.
 *
 * Size: every value is interned once to a small integer, and row keys are built from those integers, so no string
 * is built that is larger than one value's key (a JSON of a row could escape a long text six-fold past V8's string
 * limit). Results arrive within the value budgets of src/sql/limits.ts, so each key is at most a few KiB.
 */
import type { SqlValue } from '../sql/types.ts';
import type { ResultTable } from './verifier.ts';
import { executionMatch, valueKey } from './verifier.ts';

/** Weights of the two parts when the results do not match exactly; they sum to 0.9. */
export const CELL_F1_WEIGHT = 0.5;
export const ROW_F1_WEIGHT = 0.4;

export function resultSimilarity(pred: ResultTable, gold: ResultTable, orderMatters: boolean): number {
  if (executionMatch(gold, pred, orderMatters)) return 1;
  if (pred.rows.length === 0 || gold.rows.length === 0) return 0;
  const ids = new Map<string, number>();
  const predIds = pred.rows.map((row) => internRow(row, ids));
  const goldIds = gold.rows.map((row) => internRow(row, ids));
  const cellF1 = multisetF1(predIds.flat().map(String), goldIds.flat().map(String));
  const rowF1 = multisetF1(predIds.map(rowKey), goldIds.map(rowKey));
  return CELL_F1_WEIGHT * cellF1 + ROW_F1_WEIGHT * rowF1;
}

/** A row's values as ids shared by both tables: equal ids exactly when `valueKey`s are equal. */
function internRow(row: readonly SqlValue[], ids: Map<string, number>): number[] {
  return row.map((value) => {
    const key = valueKey(value);
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  });
}

/** A row's key with column order removed: its sorted value ids, comma-joined (ids are digits, so none collide). */
function rowKey(ids: number[]): string {
  return [...ids].sort((a, b) => a - b).join(',');
}

/** Multiset F1 of two bags of keys: 2·|a ∩ b| / (|a| + |b|), 0 when both are empty. */
export function multisetF1(a: readonly string[], b: readonly string[]): number {
  if (a.length + b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  let common = 0;
  for (const k of b) {
    const c = counts.get(k);
    if (c) {
      common++;
      counts.set(k, c - 1);
    }
  }
  return (2 * common) / (a.length + b.length);
}
