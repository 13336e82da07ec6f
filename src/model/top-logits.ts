/**
 * The top-k entries of one row of logits, as `npm run model:logits` prints them: ids by logit, highest first (ties by
 * lower id), shared by its CPU path (Node), its WebGPU page and `sqlenv logits`, so all order the same way.
 */
export interface TopLogits {
  ids: number[];
  logits: number[];
}

export function topLogits(row: ArrayLike<number> /* (V) */, k = 20): TopLogits {
  const order = Array.from({ length: row.length }, (_, i) => i);
  order.sort((a, b) => row[b] - row[a] || a - b);
  const ids = order.slice(0, k);
  return { ids, logits: ids.map((i) => row[i]) };
}
