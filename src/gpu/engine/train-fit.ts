/**
 * What to try when a training plan does not fit the GPU: the memory plan (memory-plan.ts) re-planned with one
 * setting halved at a time — tokens per micro-batch T, the LM head's chunk rows, the LoRA rank, the context S, the
 * sequence slots B — and the one that saves the most bytes suggested, with the planned totals before and after. Pure
 * TS, so the suggestion is unit-tested in Node and the engine's out-of-memory error can name a concrete setting.
 */
import { formatBytes, planMemory, type PlanDims, type PlanOptions } from '../memory-plan.ts';

export interface TrainingFitSuggestion {
  /** The setting to lower, as the plan names it. */
  setting: 'maxTokens' | 'logitChunkRows' | 'rank' | 'context' | 'batch';
  from: number;
  to: number;
  bytesBefore: number;
  bytesAfter: number;
  /** One sentence for the error message. */
  text: string;
}

const LABEL: Record<TrainingFitSuggestion['setting'], string> = {
  maxTokens: 'tokens per micro-batch (T)',
  logitChunkRows: 'LM-head chunk rows',
  rank: 'LoRA rank',
  context: 'context length (S)',
  batch: 'sequence slots (B)',
};

/**
 * The setting to lower for a training plan that failed to allocate: when the LM head's chunk (chunk rows × V f32)
 * is above one binding, the chunk rows that fit; otherwise the halving that saves the most (below).
 */
export function suggestTrainingFit(dims: PlanDims, options: PlanOptions): TrainingFitSuggestion | null {
  const plan = planMemory(dims, options);
  const maxBinding = plan.options.maxBindingBytes;
  const chunk = plan.entries.find((e) => e.name === 'train.logitChunk');
  const rows = options.training?.logitChunkRows ?? 0;
  if (chunk && chunk.bytes > maxBinding) {
    const fit = Math.max(1, Math.floor(maxBinding / (dims.vocabSize * 4)));
    const after = planMemory(dims, { ...options, training: { logitChunkRows: fit } }).totalBytes;
    return {
      setting: 'logitChunkRows',
      from: rows,
      to: fit,
      bytesBefore: plan.totalBytes,
      bytesAfter: after,
      text: `Lower the ${LABEL.logitChunkRows} from ${rows} to ${fit}: ${rows} rows × V = ${dims.vocabSize} logits (${formatBytes(chunk.bytes)}) exceed one ${formatBytes(maxBinding)} binding.`,
    };
  }
  return suggestSmallerTraining(dims, options);
}

/** The halving of one setting that lowers the planned bytes the most, or null when nothing can be halved. */
export function suggestSmallerTraining(dims: PlanDims, options: PlanOptions): TrainingFitSuggestion | null {
  const before = planMemory(dims, options);
  const { batch: B, context: S, maxTokens: T } = before.options;
  const chunk = options.training?.logitChunkRows ?? 0;
  const rank = options.lora?.rank ?? 0;
  const candidates: Array<{ setting: TrainingFitSuggestion['setting']; from: number; to: number; options: PlanOptions }> = [];
  const half = (n: number) => Math.floor(n / 2);
  if (half(T) >= B) candidates.push({ setting: 'maxTokens', from: T, to: half(T), options: { ...options, maxTokens: half(T), logitRows: Math.min(before.options.logitRows, half(T)) } });
  if (options.training && half(chunk) >= 1) candidates.push({ setting: 'logitChunkRows', from: chunk, to: half(chunk), options: { ...options, training: { logitChunkRows: half(chunk) } } });
  if (options.lora && half(rank) >= 1) candidates.push({ setting: 'rank', from: rank, to: half(rank), options: { ...options, lora: { ...options.lora, rank: half(rank) } } });
  if (half(S) >= 1) candidates.push({ setting: 'context', from: S, to: half(S), options: { ...options, context: half(S), maxTokens: Math.min(T, Math.max(B, half(S))) } });
  if (half(B) >= 1) candidates.push({ setting: 'batch', from: B, to: half(B), options: { ...options, batch: half(B), logitRows: Math.min(before.options.logitRows, half(B)) } });
  let best: TrainingFitSuggestion | null = null;
  for (const c of candidates) {
    let after: number;
    try {
      after = planMemory(dims, c.options).totalBytes;
    } catch {
      continue;
    }
    if (after >= before.totalBytes || (best && after >= best.bytesAfter)) continue;
    best = {
      setting: c.setting,
      from: c.from,
      to: c.to,
      bytesBefore: before.totalBytes,
      bytesAfter: after,
      text: `Lower the ${LABEL[c.setting]} from ${c.from} to ${c.to}: the plan goes from ${formatBytes(before.totalBytes)} to ${formatBytes(after)}.`,
    };
  }
  return best;
}
