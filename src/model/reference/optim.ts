/**
 * Float64 CPU reference of the optimiser step the GPU's optim.wgsl fuses: global gradient-norm clipping followed by
 * AdamW, as PyTorch defines them. It is the oracle of the GPU `adamw` check and is unit-tested on hand-computed
 * values (tests/model/optim.test.ts).
 *
 * torch.nn.utils.clip_grad_norm_(params, max_norm) (norm_type 2):
 *   total_norm = ‖(‖g_1‖, …, ‖g_k‖)‖₂ = sqrt(Σ_tensors Σ_i g²)
 *   clip_coef  = max_norm / (total_norm + 1e-6);   g ← g · min(clip_coef, 1)
 * torch.optim.AdamW (amsgrad=False, maximize=False), for step t = 1, 2, … (docs' algorithm box and
 * torch/optim/adamw.py `_single_tensor_adamw`):
 *   θ ← θ · (1 − lr·λ)                                       (decoupled weight decay, before the moment update)
 *   m ← β1·m + (1 − β1)·g                                    (`exp_avg.lerp_(grad, 1 − β1)`)
 *   v ← β2·v + (1 − β2)·g²                                   (`exp_avg_sq.mul_(β2).addcmul_(grad, grad, 1 − β2)`)
 *   θ ← θ − (lr / (1 − β1^t)) · m / (sqrt(v) / sqrt(1 − β2^t) + ε)     (ε added after the bias correction)
 * The GPU op also zeroes each gradient after its update (ready for the next accumulation); this reference does the
 * same so the two are called the same way.
 */

/** One tensor's f64 state, updated in place (grad is zeroed by the step). */
export interface AdamTensorRef {
  param: Float64Array;
  grad: Float64Array;
  m: Float64Array;
  v: Float64Array;
}

/** Structurally the GPU's `AdamWSettings` (engine/train-ops.ts). */
export interface AdamWRefSettings {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** 1-based step for the bias correction */
  step: number;
  /** clip the global gradient norm to this (0 = no clipping) */
  maxGradNorm: number;
}

/** Σ over every tensor of Σ g² (the squared global L2 norm; what the GPU leaves in norm[0]). */
export function gradNormSquaredRef(grads: readonly Float64Array[]): number {
  let s = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) s += g[i] * g[i];
  return s;
}

/** min(1, maxGradNorm / (norm + 1e-6)), or 1 when maxGradNorm is 0 (no clipping). */
export function clipFactorRef(norm: number, maxGradNorm: number): number {
  if (maxGradNorm <= 0) return 1;
  return Math.min(1, maxGradNorm / (norm + 1e-6));
}

/** One clipped AdamW step over all tensors, in place; returns the squared norm and clip factor it used. */
export function adamwStepRef(tensors: readonly AdamTensorRef[], s: AdamWRefSettings): { normSquared: number; clip: number } {
  if (!Number.isInteger(s.step) || s.step < 1) throw new RangeError(`adamwStepRef: step ${s.step} must be an integer ≥ 1`);
  const normSquared = gradNormSquaredRef(tensors.map((t) => t.grad));
  const clip = clipFactorRef(Math.sqrt(normSquared), s.maxGradNorm);
  const bc1 = 1 - s.beta1 ** s.step;
  const bc2 = 1 - s.beta2 ** s.step;
  const stepSize = s.lr / bc1;
  const sqrtBc2 = Math.sqrt(bc2);
  for (const t of tensors) {
    const n = t.param.length;
    if (t.grad.length !== n || t.m.length !== n || t.v.length !== n) throw new RangeError('adamwStepRef: param, grad, m and v must have one length');
    for (let i = 0; i < n; i++) {
      const g = t.grad[i] * clip;
      t.param[i] *= 1 - s.lr * s.weightDecay;
      t.m[i] = s.beta1 * t.m[i] + (1 - s.beta1) * g;
      t.v[i] = s.beta2 * t.v[i] + (1 - s.beta2) * g * g;
      t.param[i] -= (stepSize * t.m[i]) / (Math.sqrt(t.v[i]) / sqrtBc2 + s.eps);
      t.grad[i] = 0;
    }
  }
  return { normSquared, clip };
}
