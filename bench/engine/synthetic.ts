/**
 * Synthetic weights and activations shaped like a trained Qwen's, for measuring weight formats without a checkpoint
 * (bench/engine/formats.ts). Uniform noise is the kindest case for a max-scaled grid's error in one sense (no tails)
 * and the wrong one in every other, so the draws here copy what trained transformers are known to have:
 *
 *  - weights: Student-t with ν = 5 (excess kurtosis 6: a Gaussian body with heavy tails, so a group's max is often a
 *    few × its RMS), times a per-row scale (log-normal, σ = 0.3) and a per-input-channel scale (log-normal, σ = 0.2),
 *    then a rare outlier weight (1 in 5,000 at ×8); element std ≈ `std` of the kind (Qwen3-0.6B's are 0.02–0.05);
 *  - RMSNorm outputs (inputs of q/k/v, gate/up and the LM head): a Gaussian hidden state with 4 "massive activation"
 *    channels at 30× (as found in every large LM), RMS-normalised and multiplied by a norm weight near 1 (log-normal
 *    σ = 0.3), so a few channels carry most of x's energy;
 *  - the attention output (o_proj's input): Gaussian; the SwiGLU product (down_proj's input): silu(g)·u of Gaussians
 *    (heavy-tailed, as it is in real models).
 * Norm weights of the synthetic model are drawn the same way (near 1, log-normal), q/k norms too. Every draw is seeded.
 */
import { createRng, type Rng } from '../../src/data/rng.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { EMBED_TOKENS, PROJECTIONS, projectionPrefix, projectionShape } from '../../src/model/weights.ts';

export type WeightDraw = 'heavy' | 'gaussian' | 'uniform';
export type ActivationKind = 'rmsnorm' | 'attention' | 'swiglu';

/** Qwen3-0.6B-like element std per matrix kind (the scale does not change relative errors; the distribution does). */
export const KIND_STD: Record<string, number> = {
  q_proj: 0.03,
  k_proj: 0.04,
  v_proj: 0.02,
  o_proj: 0.02,
  gate_proj: 0.03,
  up_proj: 0.025,
  down_proj: 0.02,
  embed_tokens: 0.04,
};

export function normal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

function logNormal(rng: Rng, sigma: number): number {
  return Math.exp(sigma * normal(rng) - (sigma * sigma) / 2);
}

/** Student-t with 5 degrees of freedom, scaled to unit variance (variance of t5 is 5/3). */
function studentT5(rng: Rng): number {
  let chi = 0;
  for (let i = 0; i < 5; i++) chi += normal(rng) ** 2;
  return normal(rng) / Math.sqrt(chi / 5) / Math.sqrt(5 / 3);
}

/** A (rows, cols) matrix, row-major, f32 values. */
export function drawWeights(rng: Rng, rows: number, cols: number, std: number, draw: WeightDraw = 'heavy'): Float32Array {
  const out = new Float32Array(rows * cols);
  if (draw === 'uniform') {
    for (let i = 0; i < out.length; i++) out[i] = (rng.next() * 2 - 1) * std * Math.sqrt(3);
    return out;
  }
  if (draw === 'gaussian') {
    for (let i = 0; i < out.length; i++) out[i] = normal(rng) * std;
    return out;
  }
  const colScale = Float64Array.from({ length: cols }, () => logNormal(rng, 0.2));
  for (let n = 0; n < rows; n++) {
    const rowScale = std * logNormal(rng, 0.3);
    for (let k = 0; k < cols; k++) {
      const outlier = rng.next() < 2e-4 ? 8 : 1;
      out[n * cols + k] = studentT5(rng) * rowScale * colScale[k] * outlier;
    }
  }
  return out;
}

/** Channels carrying massive activations (fixed per width, as they are per model). */
function massiveChannels(width: number): number[] {
  return [7, 113, 389, 701].map((c) => c % width);
}

/** M activation rows of `width` of the given kind (see the header). */
export function drawActivations(rng: Rng, M: number, width: number, kind: ActivationKind): Float64Array {
  const x = new Float64Array(M * width);
  const gamma = Float64Array.from({ length: width }, () => logNormal(rng, 0.3));
  const massive = massiveChannels(width);
  for (let m = 0; m < M; m++) {
    const row = x.subarray(m * width, (m + 1) * width);
    switch (kind) {
      case 'rmsnorm': {
        for (let c = 0; c < width; c++) row[c] = normal(rng);
        for (const c of massive) row[c] = 30 * (rng.next() < 0.5 ? -1 : 1) * (1 + 0.1 * normal(rng));
        let ss = 0;
        for (let c = 0; c < width; c++) ss += row[c] * row[c];
        const inv = 1 / Math.sqrt(ss / width + 1e-6);
        for (let c = 0; c < width; c++) row[c] *= inv * gamma[c];
        break;
      }
      case 'attention':
        for (let c = 0; c < width; c++) row[c] = normal(rng);
        break;
      case 'swiglu':
        for (let c = 0; c < width; c++) {
          const g = 1.5 * normal(rng);
          row[c] = (g / (1 + Math.exp(-g))) * normal(rng);
        }
        break;
      default:
        throw new Error(`unknown activation kind ${kind satisfies never}`);
    }
  }
  return x;
}

/** Every tensor of a Qwen model of `config`, drawn as above (f32 data, HF names). */
export function syntheticModel(config: ModelConfig, seed: number): Map<string, { shape: number[]; data: Float32Array }> {
  const rng = createRng(seed);
  const C = config.hiddenSize;
  const D = config.headDim;
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  const norm = (n: number) => Float32Array.from({ length: n }, () => logNormal(rng, 0.3));
  tensors.set(EMBED_TOKENS, { shape: [config.vocabSize, C], data: drawWeights(rng, config.vocabSize, C, KIND_STD.embed_tokens) });
  for (let l = 0; l < config.numLayers; l++) {
    tensors.set(`model.layers.${l}.input_layernorm.weight`, { shape: [C], data: norm(C) });
    tensors.set(`model.layers.${l}.post_attention_layernorm.weight`, { shape: [C], data: norm(C) });
    if (config.qkNorm) {
      tensors.set(`model.layers.${l}.self_attn.q_norm.weight`, { shape: [D], data: norm(D) });
      tensors.set(`model.layers.${l}.self_attn.k_norm.weight`, { shape: [D], data: norm(D) });
    }
    for (const p of PROJECTIONS) {
      const [rows, cols] = projectionShape(config, p);
      tensors.set(`${projectionPrefix(l, p)}.weight`, { shape: [rows, cols], data: drawWeights(rng, rows, cols, KIND_STD[p]) });
      if (config.qkvBias && (p === 'q_proj' || p === 'k_proj' || p === 'v_proj')) {
        tensors.set(`${projectionPrefix(l, p)}.bias`, { shape: [rows], data: Float32Array.from({ length: rows }, () => 0.1 * normal(rng)) });
      }
    }
  }
  tensors.set('model.norm.weight', { shape: [C], data: norm(C) });
  if (!config.tieWordEmbeddings) tensors.set('lm_head.weight', { shape: [config.vocabSize, C], data: drawWeights(rng, config.vocabSize, C, KIND_STD.embed_tokens) });
  return tensors;
}
