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

/** Logits that are NaN or infinite: never printed as `null`, always an error naming the model. */
export class NonFiniteLogitsError extends Error {
  override name = 'NonFiniteLogitsError';
  constructor(model: string, id: number, value: number) {
    super(`${model}: the logit of token ${id} is ${value}; the weights overflow or are damaged. Check the checkpoint (and the adapter, if one is on).`);
  }
}

/** `topLogits`, after checking that every logit of the row is finite (NonFiniteLogitsError naming `model` if not). */
export function finiteTopLogits(row: ArrayLike<number> /* (V) */, k: number, model: string): TopLogits {
  for (let i = 0; i < row.length; i++) {
    if (!Number.isFinite(row[i])) throw new NonFiniteLogitsError(model, i, row[i]);
  }
  return topLogits(row, k);
}
