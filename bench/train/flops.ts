/**
 * FLOPs of one training update as the engine executes it (src/gpu/engine/qwen-trainer.ts: forward, then a backward
 * that recomputes every layer), counted from the model's dimensions and the micro-batch's sequences. A multiply-add
 * is 2 FLOPs; element-wise ops, norms and softmaxes are left out (they are O(T·C), not O(T·C²)).
 *
 * Per token, per layer, with P = C·H·D + 2·C·KVH·D + H·D·C + 3·C·I (the layer's projection weights):
 *   base matmuls   forward 2P, recompute 2P, d(input) 2P                                  →  6P
 *   LoRA (each target of shape out × in, rank R): forward 2R(in+out), recompute 2R(in+out),
 *                  backward 4R(in+out) (dB, du, dA, dx)                                   →  8R·Σ(in+out)
 *   attention at position p (0-based): forward 4·H·D·(p+1) (q·kᵀ and p·v), recompute the same, backward 2× that
 *                                                                                         →  16·H·D·(p+1)
 * Per scored token, the LM head (C × V): forward 2CV, backward recompute 2CV + d(x) 2CV      →  6CV
 * A forward without a backward (the KL reference, adapter off) counts 2P per token and layer, 4·H·D·(p+1) for
 * attention and 2CV per scored token.
 */
import type { PlanDims } from '../../src/gpu/memory-plan.ts';
import { PROJECTIONS, projectionShape, type Projection } from '../../src/model/weights.ts';

export interface FlopBatch {
  /** Tokens of each sequence. */
  lengths: readonly number[];
  /** Scored tokens of the whole batch. */
  scored: number;
}

export interface LoraDims {
  rank: number;
  targets: readonly Projection[];
}

function perToken(dims: PlanDims, lora: LoraDims | null): { base: number; lora: number } {
  const base = PROJECTIONS.reduce((n, p) => n + projectionShape(dims, p)[0] * projectionShape(dims, p)[1], 0);
  const inOut = (lora?.targets ?? []).reduce((n, p) => n + projectionShape(dims, p)[0] + projectionShape(dims, p)[1], 0);
  return { base, lora: (lora?.rank ?? 0) * inOut };
}

/** Σ over the batch's tokens of (p + 1): the keys each query attends to. */
function attendedKeys(lengths: readonly number[]): number {
  return lengths.reduce((n, len) => n + (len * (len + 1)) / 2, 0);
}

/** FLOPs of the trainer's forward and its backward (with the recompute) on `batch`. */
export function updateFlops(dims: PlanDims, lora: LoraDims | null, batch: FlopBatch): number {
  const T = batch.lengths.reduce((a, b) => a + b, 0);
  const { base, lora: r } = perToken(dims, lora);
  const L = dims.numLayers;
  const layers = T * L * (6 * base + 8 * r) + 16 * L * dims.numHeads * dims.headDim * attendedKeys(batch.lengths);
  return layers + 6 * dims.hiddenSize * dims.vocabSize * batch.scored;
}

/** FLOPs of a forward with no backward (adapter off: no LoRA). */
export function forwardOnlyFlops(dims: PlanDims, batch: FlopBatch): number {
  const T = batch.lengths.reduce((a, b) => a + b, 0);
  const L = dims.numLayers;
  return T * L * 2 * perToken(dims, null).base + 4 * L * dims.numHeads * dims.headDim * attendedKeys(batch.lengths) + 2 * dims.hiddenSize * dims.vocabSize * batch.scored;
}
