/**
 * Backward pass of the float64 reference model into the LoRA adapter (the base weights are frozen): the oracle for
 * the engine's training kernels, itself checked by finite differences (tests/model/backward.test.ts).
 *
 * It reads the forward's `LayerActivations` and walks each layer's equations (model.ts header) in reverse, one op
 * backward per line, the way the GPU backward will:
 *
 *   dx2 = dout;            d(down) = dout                       residual split
 *   dact  ← down_proj;     dgate, dup ← swiglu                  (T,I)
 *   dln2  ← gate_proj + up_proj;  dx2 += rmsnorm'(post_attention_layernorm)
 *   dx = dx2;              dattn ← o_proj                        residual split
 *   dqr, dkr, dv ← attention (probabilities recomputed);  dqn, dkn ← rope⁻¹;  dq, dk ← q_norm/k_norm (qwen3)
 *   dln1  ← q_proj + k_proj + v_proj;  dx += rmsnorm'(input_layernorm)
 *
 * Every linear layer's backward also fills its LoRA gradients dA (R,in), dB (out,R). Gradients are ADDED into the
 * caller's buffers, so micro-batches accumulate by calling again. Only sequences prefilled from position 0 in one
 * forward (no earlier cache) are supported: that is how training runs them.
 */
import type { ModelConfig } from '../config.ts';
import { PROJECTIONS, type Projection } from '../weights.ts';
import type { ForwardResult, LayerActivations, LayerWeights, ReferenceLora, ReferenceLoraLayers, ReferenceWeights } from './model.ts';
import { addBackwardRef, attentionBackwardRef, matmulBackwardRef, rmsnormBackwardRef, ropeBackwardRef, swigluBackwardRef } from './ops.ts';

/** Gradients of one LoRA pair, shaped like it. */
export interface LoraPairGrad {
  da: Float64Array /* (R, in) */;
  db: Float64Array /* (out, R) */;
}

export type LoraGrads = Array<Partial<Record<Projection, LoraPairGrad>>>;

/** Zeroed gradient buffers for every pair of the adapter. */
export function zeroLoraGrads(lora: ReferenceLoraLayers): LoraGrads {
  return lora.map((layer) => {
    const out: Partial<Record<Projection, LoraPairGrad>> = {};
    for (const p of PROJECTIONS) {
      const pair = layer[p];
      if (pair !== undefined) out[p] = { da: new Float64Array(pair.a.length), db: new Float64Array(pair.b.length) };
    }
    return out;
  });
}

/**
 * Backward of linearRef (model.ts) with a frozen W and bias: dx += dout·W + scale·(dout·B)·A; dA += scale·(Bᵀ·doutᵀ)·x;
 * dB += scale·doutᵀ·(x·Aᵀ), reading the forward's `mid` = x·Aᵀ.
 */
export function linearBackwardRef(
  dx: Float64Array | null /* (M,K) */,
  grad: LoraPairGrad | undefined,
  dout: Float64Array /* (M,N) */,
  x: Float64Array /* (M,K) */,
  mid: Float64Array | undefined /* (M,R) */,
  w: Float64Array /* (N,K) */,
  lora: ReferenceLora | undefined,
  M: number,
  N: number,
  K: number,
): void {
  matmulBackwardRef(dx, null, null, dout, x, w, M, N, K);
  if (lora === undefined) return;
  if (mid === undefined || grad === undefined) throw new Error('linearBackwardRef: a LoRA layer needs its forward mid (x·Aᵀ) and a gradient buffer');
  const R = lora.rank;
  const scaled = dout.map((g) => g * lora.scale);
  const dmid = new Float64Array(M * R);
  matmulBackwardRef(dmid, grad.db, null, scaled, mid, lora.b, M, N, R);
  matmulBackwardRef(dx, grad.da, null, dmid, x, lora.a, M, R, K);
}

/** One decoder layer's backward: returns dx (T,C), the gradient of the layer's input; adds into `grads`. */
export function layerBackward(
  config: ModelConfig,
  w: LayerWeights,
  lora: Partial<Record<Projection, ReferenceLora>>,
  grads: Partial<Record<Projection, LoraPairGrad>>,
  a: LayerActivations,
  dout: Float64Array /* (T,C) */,
): Float64Array {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KVH, headDim: D, rmsNormEps: eps } = config;
  const T = a.T;
  if (a.positions[0] !== 0) throw new RangeError('layerBackward: only sequences run from position 0 in one forward are supported');

  // MLP block, in reverse.
  const dx2 = new Float64Array(T * C);
  const ddown = new Float64Array(T * C);
  addBackwardRef(dx2, ddown, dout, T * C);
  const dact = new Float64Array(T * I);
  linearBackwardRef(dact, grads.down_proj, ddown, a.act, a.loraMid.down_proj, w.downProj, lora.down_proj, T, C, I);
  const dgate = new Float64Array(T * I);
  const dup = new Float64Array(T * I);
  swigluBackwardRef(dgate, dup, dact, a.gate, a.up, T, I);
  const dln2 = new Float64Array(T * C);
  linearBackwardRef(dln2, grads.gate_proj, dgate, a.ln2, a.loraMid.gate_proj, w.gateProj, lora.gate_proj, T, I, C);
  linearBackwardRef(dln2, grads.up_proj, dup, a.ln2, a.loraMid.up_proj, w.upProj, lora.up_proj, T, I, C);
  rmsnormBackwardRef(dx2, null, dln2, a.x2, w.postAttentionLayernorm, T, C, eps);

  // Attention block, in reverse.
  const dx = new Float64Array(T * C);
  const dproj = new Float64Array(T * C);
  addBackwardRef(dx, dproj, dx2, T * C);
  const dattn = new Float64Array(T * H * D);
  linearBackwardRef(dattn, grads.o_proj, dproj, a.attn, a.loraMid.o_proj, w.oProj, lora.o_proj, T, C, H * D);
  const dqr = new Float64Array(T * H * D);
  const dkr = new Float64Array(T * KVH * D);
  const dv = new Float64Array(T * KVH * D);
  attentionBackwardRef(dqr, dkr, dv, dattn, a.qr, a.kr, a.v, a.positions, T, T, H, KVH, D);
  ropeBackwardRef(dqr, a.positions, T, H, D, config.ropeTheta); // now d(qn)
  ropeBackwardRef(dkr, a.positions, T, KVH, D, config.ropeTheta); // now d(kn)
  let dq = dqr;
  let dk = dkr;
  if (w.qNorm !== null && w.kNorm !== null) {
    dq = new Float64Array(T * H * D);
    dk = new Float64Array(T * KVH * D);
    rmsnormBackwardRef(dq, null, dqr, a.q, w.qNorm, T * H, D, eps);
    rmsnormBackwardRef(dk, null, dkr, a.k, w.kNorm, T * KVH, D, eps);
  }
  const dln1 = new Float64Array(T * C);
  linearBackwardRef(dln1, grads.q_proj, dq, a.ln1, a.loraMid.q_proj, w.qProj, lora.q_proj, T, H * D, C);
  linearBackwardRef(dln1, grads.k_proj, dk, a.ln1, a.loraMid.k_proj, w.kProj, lora.k_proj, T, KVH * D, C);
  linearBackwardRef(dln1, grads.v_proj, dv, a.ln1, a.loraMid.v_proj, w.vProj, lora.v_proj, T, KVH * D, C);
  rmsnormBackwardRef(dx, null, dln1, a.x, w.inputLayernorm, T, C, eps);
  return dx;
}

/**
 * Whole-model backward from dlogits (T,V) of a forward run with all rows' logits (modelForward, lastOnly false).
 * Adds the LoRA gradients into `grads` and returns the gradient of the embedded input (T,C).
 */
export function modelBackward(
  config: ModelConfig,
  weights: ReferenceWeights,
  lora: ReferenceLoraLayers,
  grads: LoraGrads,
  forward: ForwardResult,
  dlogits: Float64Array /* (T,V) */,
): Float64Array {
  const { hiddenSize: C, vocabSize: V } = config;
  const T = forward.embedded.length / C;
  if (dlogits.length !== T * V || forward.logits.length !== T * V) {
    throw new RangeError(`modelBackward: expected (T,V) = (${T},${V}) logits and gradients; run modelForward with every row's logits`);
  }
  const dnormed = new Float64Array(T * C);
  matmulBackwardRef(dnormed, null, null, dlogits, forward.finalNormed, weights.lmHead, T, V, C);
  let dh: Float64Array = new Float64Array(T * C);
  const last = forward.layers.length > 0 ? forward.layers[forward.layers.length - 1].out : forward.embedded;
  rmsnormBackwardRef(dh, null, dnormed, last, weights.finalNorm, T, C, config.rmsNormEps);
  for (let l = config.numLayers - 1; l >= 0; l--) {
    dh = layerBackward(config, weights.layers[l], lora[l] ?? {}, grads[l] ?? {}, forward.layers[l], dh);
  }
  return dh;
}
