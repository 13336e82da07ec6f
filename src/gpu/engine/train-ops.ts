/**
 * The backward ops a training pass records, as a contract between the kernels (kernels/*-backward.ts, optim.ts) and
 * the trainer (engine/qwen-trainer.ts). Every gradient buffer is f32; "accumulate" means `+=` into what is there
 * (micro-batches and the residual stream's branches add up), otherwise `=`. Shapes use the letters of src/gpu/README.
 *
 * Training sequences are packed token after token, each from position 0 in its own cache slot, so the keys a query
 * sees are exactly the earlier tokens of its own sequence: `seqEnds[t]` (one past the last token index of t's
 * sequence) lets a key find its queries without a score matrix.
 */
import type { KvCacheFormat } from '../kv-format.ts';
import type { PackedWeight } from '../packed-weight.ts';
import type { BufferArg, Recorder } from '../recorder.ts';

/** dx (M, K) (+)= dy (M, N) · W (N, K), W frozen (any stored format, read per chunk like the forward). */
export interface MatmulDxArgs {
  dx: BufferArg;
  dy: BufferArg;
  w: PackedWeight;
  M: number;
  accumulate: boolean;
}

/**
 * The LoRA branch of y = x·Wᵀ + scale·(x·Aᵀ)·Bᵀ, given dy and the forward's u = x·Aᵀ (M, R):
 *   dB (N, R) += scale · dyᵀ·u;   du (M, R) = scale · dy·B;   dA (R, K) += duᵀ·x;   dx (M, K) += du·A.
 * dA and dB always accumulate (zeroed by the trainer once per optimiser step); dx always accumulates (the frozen
 * path's matmul_dx writes it first).
 */
export interface LoraBackwardArgs {
  x: BufferArg;
  dy: BufferArg;
  u: BufferArg;
  a: BufferArg;
  b: BufferArg;
  da: BufferArg;
  db: BufferArg;
  /** (M, R) scratch */
  du: BufferArg;
  dx: BufferArg;
  M: number;
  N: number;
  K: number;
  rank: number;
  scale: number;
}

export interface MatmulBackwardOps {
  dx(rec: Recorder, args: MatmulDxArgs): void;
  lora(rec: Recorder, args: LoraBackwardArgs): void;
}

/** y = x / rms(x) · weight over rows of C (also the per-head q/k norms, rows T·H with C = D); dx (+)= d/dx. */
export interface RmsnormBackwardArgs {
  dx: BufferArg;
  dy: BufferArg;
  /** the forward's input (M, C) */
  x: BufferArg;
  weight: BufferArg;
  M: number;
  C: number;
  eps: number;
  accumulate: boolean;
}

/** act = silu(gate) · up: dgate = dact · up · silu'(gate), dup = dact · silu(gate) (written, n elements). */
export interface SwigluBackwardArgs {
  dgate: BufferArg;
  dup: BufferArg;
  dact: BufferArg;
  gate: BufferArg;
  up: BufferArg;
  n: number;
}

/**
 * Chosen-token log-probabilities of a chunk of rows, backward in place: logits (M, V) become
 * dlogits = dlogprob[m] · (onehot(targets[m]) − softmax(logits[m])). `lse` (M) is the forward's log-sum-exp.
 */
export interface TokenLogprobBackwardArgs {
  logits: BufferArg;
  lse: BufferArg;
  targets: BufferArg;
  dlogprob: BufferArg;
  M: number;
  V: number;
}

/**
 * Causal GQA attention backward with probabilities recomputed from q, the cache's keys and the forward's `lse`
 * (no stored scores): Δ = rowsum(dout ∘ out); dS = P ∘ (dout·vᵀ − Δ);
 *   dq (T, H, D) = scale · dS·k;   dk (T, KVH, D) = scale · dSᵀ·q;   dv (T, KVH, D) = Pᵀ·dout
 * (dk, dv summed over the H / KVH query heads sharing a key head, written, not accumulated). Keys and values are read
 * from the cache at each token's (slot, position); every sequence starts at position 0 (see the header).
 */
export interface AttentionBackwardArgs {
  dq: BufferArg;
  dk: BufferArg;
  dv: BufferArg;
  dout: BufferArg;
  /** the forward's q (after RoPE) and output, (T, H, D) */
  q: BufferArg;
  out: BufferArg;
  /** (T, H) */
  lse: BufferArg;
  /** (B, S, KVH, D) */
  kCache: BufferArg;
  vCache: BufferArg;
  /** (T) u32 each */
  slots: BufferArg;
  positions: BufferArg;
  seqEnds: BufferArg;
  T: number;
  H: number;
  KVH: number;
  D: number;
  S: number;
  B: number;
  /** Storage of kCache and vCache (kv-format.ts); default 'f16'. Pass the memory plan's `kvCache`. */
  format?: KvCacheFormat;
}

/** One adapter tensor with its gradient and AdamW moments (all f32, n elements). */
export interface AdamTensor {
  param: BufferArg;
  grad: BufferArg;
  m: BufferArg;
  v: BufferArg;
  n: number;
}

export interface AdamWSettings {
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

/**
 * grad_norm: sum of squares of every tensor's gradient into `norm` (a small f32 buffer the op owns the layout of:
 * norm[0] = ‖g‖² once `finishNorm` ran), on the GPU, no CPU round trip; adamw reads the clip factor
 * min(1, maxGradNorm / ‖g‖) from it, updates param/m/v in place and zeroes the gradient.
 */
export interface OptimizerOps {
  /** Bytes of the `norm` buffer the caller allocates for `tensorCount` tensors. */
  normBufferBytes(tensorCount: number): number;
  gradNorm(rec: Recorder, args: { tensors: readonly AdamTensor[]; norm: BufferArg }): void;
  adamw(rec: Recorder, args: { tensors: readonly AdamTensor[]; norm: BufferArg; settings: AdamWSettings }): void;
}
