/**
 * How many sequences the page's decoding engine holds at once (B, its KV-cache slots): Watch, Evaluate and the Train
 * view's evaluations decode that many episodes together. Each slot costs a KV cache of S positions, so B is the most
 * slots, up to `maxSlots`, whose whole memory plan stays within a budget — 8 for the tiny test models, fewer for
 * Qwen3-0.6B at S = 2,048 (a slot is 235 MB there with an f16 cache). Never fewer than 1: a model whose single-slot plan
 * is over the budget is still offered one slot (the load's own checks decide whether it fits the device at all).
 */
import { planMemory, type PlanDims, type PlanOptions } from '../memory-plan.ts';

/** Most decode slots the page plans. */
export const MAX_DECODE_SLOTS = 8;
/** GPU bytes the decoding engine may plan for its extra slots: 2 GiB, within what browsers give a tab on laptops. */
export const DECODE_MEMORY_BUDGET_BYTES = 2 * 1024 ** 3;

export interface DecodeSlotOptions {
  maxSlots?: number;
  budgetBytes?: number;
}

/** B for `options` (every plan option but the batch): the most slots whose plan fits the budget, at least 1. */
export function chooseDecodeSlots(dims: PlanDims, options: Omit<PlanOptions, 'batch' | 'logitRows'>, o: DecodeSlotOptions = {}): number {
  const maxSlots = o.maxSlots ?? MAX_DECODE_SLOTS;
  const budget = o.budgetBytes ?? DECODE_MEMORY_BUDGET_BYTES;
  if (!Number.isInteger(maxSlots) || maxSlots < 1) throw new RangeError(`chooseDecodeSlots: maxSlots must be a positive integer, got ${maxSlots}`);
  let best = 1;
  for (let B = 2; B <= maxSlots; B++) {
    if (planMemory(dims, { ...options, batch: B, logitRows: B }).totalBytes > budget) break;
    best = B;
  }
  return best;
}
