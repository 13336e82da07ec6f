/**
 * What training needs of a model: the interface `src/train` is written against. Two implementations: the WebGPU
 * trainer on the live engine (src/gpu/engine/qwen-trainer.ts, in the browser) and the float64 CPU reference
 * (reference-model.ts, in Node tests). The same adapter serves sampling and learning, so the policy that samples is
 * the policy that learns.
 *
 * Scoring convention: a sequence's token t (t ≥ 1) is scored when `lossMask[t] = 1`; its score is
 * log p(tokenIds[t] | tokenIds[0..t−1]) under softmax(logits / temperature), temperature 1 unless `ForwardOptions`
 * says otherwise (no top-p; GRPO scores at the rollouts' temperature, as TRL divides logits by it). `forward` returns the scores of
 * every scored token of the batch, sequence by sequence, positions ascending (the "scored order"); `backward` takes
 * d(loss)/d(score) in the same order and ADDS the adapter's gradients (gradient accumulation over micro-batches);
 * `optimizerStep` clips, steps AdamW and zeroes the gradients.
 *
 * Call order within a micro-batch: the reference forward (the KL reference policy: `reference: true`) first when
 * needed, then the policy forward, then `backward` — `backward` always refers to the latest forward of the live
 * adapter (adapter on, not the reference), at that forward's temperature.
 */
import type { AdamWSettings } from '../gpu/engine/train-ops.ts';
import type { LoraAdapter, LoraConfig, LoraTarget } from '../model/lora.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { Tensor } from '../model/weights.ts';
import type { Generation } from '../policies/llm/llm-policy.ts';

export type { AdamWSettings } from '../gpu/engine/train-ops.ts';

/** One sequence to generate from: the whole context so far (no KV reuse is promised across calls). */
export interface GenerateRequest {
  promptTokenIds: readonly number[];
  /** Most new tokens; generation also stops after `<|im_end|>` / `<|endoftext|>` (kept as the last token). */
  maxNewTokens: number;
  /** 0 = greedy. */
  temperature: number;
  /** 1 = off. */
  topP: number;
  /** Seed of this request's draws (uint32); the same request and seed give the same tokens. */
  seed: number;
}

/**
 * How a caller watches and interrupts `generate`: `signal` is checked before every decode step (one token of every
 * live sequence), so an abort stops generation within one step and `generate` rejects with the signal's reason;
 * `onTokens(n)` hears after every decode step how many new tokens it produced (progress, tokens per second).
 */
export interface GenerateOptions {
  signal?: AbortSignal;
  onTokens?(newTokens: number): void;
}

/** A generated reply with the log-probability of every new token under the sampling distribution used. */
export type SampledGeneration = Generation & { logProbs: number[] };

/** A sequence to score (see the header for the convention). */
export interface ScoredSequence {
  tokenIds: readonly number[];
  /** Same length as tokenIds; 1 marks a scored token (never position 0). */
  lossMask: ArrayLike<number>;
}

export interface ForwardOptions {
  /** false: the base model (LoRA off); default true. */
  adapter?: boolean;
  /**
   * Score under the KL reference policy instead of the live adapter: the frozen adapter of `setReferenceAdapter`, or
   * the base model (adapter off) when none was set. Nothing is kept for `backward`.
   */
  reference?: boolean;
  /** Scores are log-softmax(logits / temperature); default 1. Must be > 0. */
  temperature?: number;
}

/**
 * What one micro-batch may hold on this device: the live engine's training plan (B sequence slots, S positions per
 * slot, T tokens per forward), chosen from the device's memory (microbatch.ts `tokenBudgetForMemory`).
 */
export interface MicroBatchLimits {
  maxTokens: number;
  maxSequences: number;
  maxSequenceTokens: number;
}

export interface TrainableModel {
  readonly tokenizer: Tokenizer;
  /** Most tokens one sequence may have (prompt + replies). */
  readonly contextTokens: number;
  /**
   * Generates several sequences (batched where the engine can), in request order. Each reply's `tokenIds` keep its
   * end token (`<|im_end|>` / `<|endoftext|>`) when it produced one; `text` is the reply decoded without it;
   * `logProbs` has one entry per token, under the distribution sampled from (0 for greedy). See `GenerateOptions`
   * for progress and cancellation (checked per decode step).
   */
  generate(requests: readonly GenerateRequest[], options?: GenerateOptions): Promise<SampledGeneration[]>;
  /** Scores of every scored token, in scored order. */
  forward(batch: readonly ScoredSequence[], options?: ForwardOptions): Promise<Float32Array>;
  /** Adds the adapter's gradient of Σ dlogprob·score for the latest adapter-on forward. */
  backward(dlogprob: Float32Array): Promise<void>;
  /** Clips the accumulated gradient to `maxGradNorm`, steps AdamW, zeroes the gradient; returns the norm before clipping. */
  optimizerStep(settings: AdamWSettings): Promise<{ gradNorm: number }>;
  /** Shape limits of one micro-batch on this device; absent = no limit beyond the config's `microBatchTokens`. */
  readonly microBatchLimits?: MicroBatchLimits;
  /** GPU bytes in use now; null where unknown. */
  gpuBytes?(): number | null;
  /**
   * The KL reference policy (`forward(…, { reference: true })`): a frozen copy of `adapter` (shape-checked like
   * `loadAdapter`), or null for the base model (the default). The trainer sets the adapter a GRPO run starts from, as
   * TRL anchors a re-trained PEFT adapter to a frozen copy of itself. A model without it scores the base model.
   */
  setReferenceAdapter?(adapter: LoraAdapter | null): void;
  /** The live adapter (a copy); lets the trainer freeze the adapter a run starts from. */
  readAdapter?(): Promise<LoraAdapter>;
}

/** AdamW's moments of one adapter tensor, each with that tensor's shape. */
export interface AdamMoments {
  m: Tensor;
  v: Tensor;
}

/**
 * The optimiser's state: per layer, per target, the moments of A (R, in) and B (out, R) — laid out as
 * `LoraAdapter.layers`. Plain data (typed arrays), so it survives structured clone / IndexedDB.
 */
export interface OptimizerState {
  config: LoraConfig;
  layers: Array<Partial<Record<LoraTarget, { a: AdamMoments; b: AdamMoments }>>>;
}

/** A trainable model whose adapter and optimiser state can be saved and restored (checkpoints, resume). */
export interface CheckpointableModel extends TrainableModel {
  readAdapter(): Promise<LoraAdapter>;
  /** Shapes must match the model's plan (LoraConfigError / RangeError otherwise). */
  loadAdapter(adapter: LoraAdapter): void;
  readOptimizerState(): Promise<OptimizerState>;
  loadOptimizerState(state: OptimizerState): void;
}

/** Number of scored tokens of a batch. */
export function scoredCount(batch: readonly ScoredSequence[]): number {
  let n = 0;
  for (const s of batch) for (let t = 1; t < s.tokenIds.length; t++) if (s.lossMask[t]) n++;
  return n;
}

/**
 * The scored positions in the GPU trainer's convention (engine/qwen-trainer.ts `TrainSequence.scored`): position t
 * scores ids[t + 1], so a masked-in token t becomes t − 1. Same order as the scored order here.
 */
export function scoredPositions(seq: ScoredSequence): number[] {
  const out: number[] = [];
  for (let t = 1; t < seq.tokenIds.length; t++) if (seq.lossMask[t]) out.push(t - 1);
  return out;
}
