/**
 * Micro-batches: a step's sequences split into groups that one forward/backward can hold, with gradients
 * accumulated across them (the losses are normalised by the whole batch's token count, so the sum of the
 * micro-batches' gradients is the batch's gradient).
 *
 * Limits: at most `maxTokens` tokens, `maxSequences` sequences and `maxSequenceTokens` per sequence in one
 * micro-batch — the live engine's training plan (B, S, T) — and the run's own `microBatchTokens` cap when set.
 * Packing is greedy in order (deterministic: the same batch gives the same micro-batches). A sequence that does not
 * fit even alone stops the step with a `MicroBatchError` saying by how much, and the largest episode that would fit.
 *
 * `tokenBudgetForMemory` picks T for the device: the largest T whose memory plan (planMemory with the training
 * buffers, B slots of S positions) fits the bytes the device offers.
 */
import { formatBytes, planMemory, type PlanDims, type PlanOptions } from '../gpu/memory-plan.ts';
import type { MicroBatchLimits } from './policy-model.ts';

export class MicroBatchError extends Error {
  override name = 'MicroBatchError';
  constructor(
    message: string,
    /** A maxEpisodeTokens that would fit, or null when nothing would. */
    readonly suggestedMaxEpisodeTokens: number | null,
  ) {
    super(message);
  }
}

/** The limits that apply: the device's, capped by `microBatchTokens` (0 = no cap). */
export function effectiveLimits(device: MicroBatchLimits | undefined, microBatchTokens: number): MicroBatchLimits {
  const cap = microBatchTokens > 0 ? microBatchTokens : Infinity;
  return {
    maxTokens: Math.min(device?.maxTokens ?? Infinity, cap),
    maxSequences: device?.maxSequences ?? Infinity,
    maxSequenceTokens: Math.min(device?.maxSequenceTokens ?? Infinity, cap),
  };
}

/** Groups `items` (in order) into micro-batches within `limits`; throws MicroBatchError for an item too long alone. */
export function packMicroBatches<T extends { tokenIds: readonly number[] }>(items: readonly T[], limits: MicroBatchLimits): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let tokens = 0;
  const single = Math.min(limits.maxTokens, limits.maxSequenceTokens);
  for (const item of items) {
    const n = item.tokenIds.length;
    if (n > single) {
      const fit = Number.isFinite(single) ? single : null;
      throw new MicroBatchError(
        `An episode of ${n} tokens does not fit one micro-batch on this device (at most ${single} tokens per sequence). ` +
          `Lower maxEpisodeTokens to ${fit} or less (or maxTurns / maxNewTokensPerTurn), or free GPU memory.`,
        fit,
      );
    }
    if (current.length > 0 && (tokens + n > limits.maxTokens || current.length + 1 > limits.maxSequences)) {
      batches.push(current);
      current = [];
      tokens = 0;
    }
    current.push(item);
    tokens += n;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export interface TokenBudgetOptions {
  /** Bytes the device offers for the whole plan (weights included). */
  availableBytes: number;
  /** B: sequence slots. */
  batch: number;
  /** S: positions per slot (the longest episode). */
  context: number;
  lora: NonNullable<PlanOptions['lora']>;
  weights?: PlanOptions['weights'];
  logitChunkRows: number;
  maxBindingBytes?: number;
  /** The KV cache's storage (default the plan's, f16). */
  kvCache?: PlanOptions['kvCache'];
}

export interface TokenBudget {
  /** Largest T (tokens per micro-batch) that fits, between B and B·S; null when not even T = B fits. */
  maxTokens: number | null;
  /** Planned bytes at that T (or at T = B when nothing fits). */
  bytes: number;
  limits: MicroBatchLimits | null;
  /** What to lower when nothing fits. */
  message: string;
}

/** The largest tokens-per-micro-batch whose training plan fits `availableBytes` (bisection over T). */
export function tokenBudgetForMemory(dims: PlanDims, o: TokenBudgetOptions): TokenBudget {
  const bytesAt = (T: number) =>
    planMemory(dims, {
      batch: o.batch,
      context: o.context,
      maxTokens: T,
      logitRows: Math.min(o.batch, T),
      lora: o.lora,
      weights: o.weights,
      kvCache: o.kvCache,
      training: { logitChunkRows: o.logitChunkRows },
      maxBindingBytes: o.maxBindingBytes,
    }).totalBytes;
  let lo = o.batch;
  let hi = o.batch * o.context;
  const atMin = bytesAt(lo);
  if (atMin > o.availableBytes) {
    return {
      maxTokens: null,
      bytes: atMin,
      limits: null,
      message: `Training needs ${formatBytes(atMin)} even with ${o.batch} tokens per micro-batch, but the device offers ${formatBytes(o.availableBytes)}: lower the episode length (S = ${o.context}), the sequence slots (B = ${o.batch}) or the LoRA rank, or use q4 weights.`,
    };
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytesAt(mid) <= o.availableBytes) lo = mid;
    else hi = mid - 1;
  }
  return {
    maxTokens: lo,
    bytes: bytesAt(lo),
    limits: { maxTokens: lo, maxSequences: o.batch, maxSequenceTokens: Math.min(o.context, lo) },
    message: `${lo} tokens per micro-batch fit in ${formatBytes(o.availableBytes)} (${formatBytes(bytesAt(lo))} planned).`,
  };
}
