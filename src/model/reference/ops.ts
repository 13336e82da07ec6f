/**
 * Float64 CPU reference of every op of the Qwen2/Qwen3 forward pass, each op's forward and backward side by side.
 * Slow on purpose: this is the oracle the WGSL kernels and the whole-model reference are checked against.
 *
 * Conventions (STYLE.md, `src/model`):
 * - Every buffer is a row-major Float64Array; its shape is written beside it with the dimension letters
 *   M rows (any flattening of batch × tokens), T query tokens, S key/value tokens (cache length), H query heads,
 *   KVH key/value heads, D head size, C hidden size, I MLP intermediate size, V vocabulary, N/K a matmul's output
 *   and input features.
 * - Arguments: outputs first, then inputs, then weights, then sizes. A backward takes the same order: gradients
 *   of the inputs/weights first (`dx`, `dw`, … — any may be null when not wanted, e.g. a frozen base weight), then
 *   the gradient of the output, then the forward's own inputs and weights, then the same sizes.
 * - Forward writes (overwrites) its output; backward ADDS into its gradients (so several consumers accumulate and
 *   a caller zeroes once). In-place ops (RoPE) say so.
 * - Nothing is cached between forward and backward: a backward recomputes what it needs from the forward's inputs
 *   (attention recomputes its probabilities), which is the plan for the GPU engine too.
 */
import type { Rng } from '../../data/rng.ts';

/** A gradient buffer that may be skipped (frozen weight, input that needs no gradient). */
export type Grad = Float64Array | null;

// ---------------------------------------------------------------------------------------------------------------
// matmul: out (M,N) = x (M,K) · wᵀ + bias, with w in Hugging Face Linear layout (N,K) ("out features, in features").

export function matmulRef(
  out: Float64Array /* (M,N) */,
  x: Float64Array /* (M,K) */,
  w: Float64Array /* (N,K) */,
  bias: Float64Array | null /* (N) */,
  M: number,
  N: number,
  K: number,
): void {
  for (let m = 0; m < M; m++) {
    const xo = m * K;
    for (let n = 0; n < N; n++) {
      const wo = n * K;
      let acc = bias === null ? 0 : bias[n];
      for (let k = 0; k < K; k++) acc += x[xo + k] * w[wo + k];
      out[m * N + n] = acc;
    }
  }
}

/** dx += dout·w, dw += doutᵀ·x, dbias += Σ_m dout. */
export function matmulBackwardRef(
  dx: Grad /* (M,K) */,
  dw: Grad /* (N,K) */,
  dbias: Grad /* (N) */,
  dout: Float64Array /* (M,N) */,
  x: Float64Array /* (M,K) */,
  w: Float64Array /* (N,K) */,
  M: number,
  N: number,
  K: number,
): void {
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      const g = dout[m * N + n];
      if (g === 0) continue;
      if (dbias !== null) dbias[n] += g;
      const wo = n * K;
      const xo = m * K;
      if (dx !== null) for (let k = 0; k < K; k++) dx[xo + k] += g * w[wo + k];
      if (dw !== null) for (let k = 0; k < K; k++) dw[wo + k] += g * x[xo + k];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// RMSNorm (Qwen): out = x / sqrt(mean(x²) + eps) · weight, per row of C.

export function rmsnormRef(
  out: Float64Array /* (M,C) */,
  x: Float64Array /* (M,C) */,
  weight: Float64Array /* (C) */,
  M: number,
  C: number,
  eps: number,
): void {
  for (let m = 0; m < M; m++) {
    const o = m * C;
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[o + c] * x[o + c];
    const r = 1 / Math.sqrt(ss / C + eps);
    for (let c = 0; c < C; c++) out[o + c] = x[o + c] * r * weight[c];
  }
}

/** With r = (mean(x²)+eps)^(-1/2): dweight_c += Σ_m dout·x·r; dx_c += r·w_c·dout_c − r³/C · x_c · Σ_j dout_j·w_j·x_j. */
export function rmsnormBackwardRef(
  dx: Grad /* (M,C) */,
  dweight: Grad /* (C) */,
  dout: Float64Array /* (M,C) */,
  x: Float64Array /* (M,C) */,
  weight: Float64Array /* (C) */,
  M: number,
  C: number,
  eps: number,
): void {
  for (let m = 0; m < M; m++) {
    const o = m * C;
    let ss = 0;
    let dot = 0;
    for (let c = 0; c < C; c++) {
      ss += x[o + c] * x[o + c];
      dot += dout[o + c] * weight[c] * x[o + c];
    }
    const r = 1 / Math.sqrt(ss / C + eps);
    for (let c = 0; c < C; c++) {
      if (dweight !== null) dweight[c] += dout[o + c] * x[o + c] * r;
      if (dx !== null) dx[o + c] += r * weight[c] * dout[o + c] - ((r * r * r) / C) * x[o + c] * dot;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// RoPE, rotate_half ("NeoX") style as Hugging Face Qwen2/Qwen3 apply it: for i < D/2, with
// inv_freq_i = theta^(−2i/D) and a = position·inv_freq_i,
//   x'[i]       = x[i]·cos a − x[i+D/2]·sin a
//   x'[i+D/2]   = x[i+D/2]·cos a + x[i]·sin a
// (HF computes inv_freq and the angles in float32; this reference uses float64 throughout.)

function ropeRotate(
  x: Float64Array /* (T,H,D) in place */,
  positions: ArrayLike<number> /* (T) */,
  T: number,
  H: number,
  D: number,
  theta: number,
  sign: 1 | -1,
): void {
  if (D % 2 !== 0) throw new RangeError(`ropeRef: head size D=${D} must be even`);
  const half = D / 2;
  for (let i = 0; i < half; i++) {
    const invFreq = Math.pow(theta, (-2 * i) / D);
    for (let t = 0; t < T; t++) {
      const a = positions[t] * invFreq;
      const cos = Math.cos(a);
      const sin = sign * Math.sin(a);
      for (let h = 0; h < H; h++) {
        const o = (t * H + h) * D;
        const x1 = x[o + i];
        const x2 = x[o + i + half];
        x[o + i] = x1 * cos - x2 * sin;
        x[o + i + half] = x2 * cos + x1 * sin;
      }
    }
  }
}

/** Rotates x in place by each token's absolute position. */
export function ropeRef(
  x: Float64Array /* (T,H,D) in place */,
  positions: ArrayLike<number> /* (T) */,
  T: number,
  H: number,
  D: number,
  theta: number,
): void {
  ropeRotate(x, positions, T, H, D, theta, 1);
}

/** RoPE is a rotation, so its backward is the inverse rotation of the gradient, also in place: dx = Rᵀ·dout. */
export function ropeBackwardRef(
  dx: Float64Array /* (T,H,D) in place: holds dout on entry, dx on exit */,
  positions: ArrayLike<number> /* (T) */,
  T: number,
  H: number,
  D: number,
  theta: number,
): void {
  ropeRotate(dx, positions, T, H, D, theta, -1);
}

// ---------------------------------------------------------------------------------------------------------------
// Causal grouped-query attention. Query t at absolute position p = queryPositions[t] sees keys s = 0..min(p, S−1)
// (key index = absolute position: the cache holds positions 0..S−1). Query head h reads kv head
// floor(h / (H/KVH)). Scores scaled by 1/sqrt(D); softmax in float64 with the row max subtracted.

function attentionProbs(
  p: Float64Array /* (S) scratch: probabilities on exit */,
  q: Float64Array,
  k: Float64Array,
  qo: number,
  kvh: number,
  last: number,
  KVH: number,
  D: number,
): void {
  const scale = 1 / Math.sqrt(D);
  let max = -Infinity;
  for (let s = 0; s <= last; s++) {
    const ko = (s * KVH + kvh) * D;
    let dot = 0;
    for (let d = 0; d < D; d++) dot += q[qo + d] * k[ko + d];
    p[s] = dot * scale;
    if (p[s] > max) max = p[s];
  }
  let sum = 0;
  for (let s = 0; s <= last; s++) {
    p[s] = Math.exp(p[s] - max);
    sum += p[s];
  }
  for (let s = 0; s <= last; s++) p[s] /= sum;
}

function checkAttentionSizes(name: string, H: number, KVH: number): number {
  if (KVH <= 0 || H % KVH !== 0) throw new RangeError(`${name}: H=${H} query heads must be a multiple of KVH=${KVH}`);
  return H / KVH;
}

export function attentionRef(
  out: Float64Array /* (T,H,D) */,
  q: Float64Array /* (T,H,D) */,
  k: Float64Array /* (S,KVH,D) */,
  v: Float64Array /* (S,KVH,D) */,
  queryPositions: ArrayLike<number> /* (T) absolute */,
  T: number,
  S: number,
  H: number,
  KVH: number,
  D: number,
): void {
  const group = checkAttentionSizes('attentionRef', H, KVH);
  const p = new Float64Array(S);
  for (let t = 0; t < T; t++) {
    const last = Math.min(queryPositions[t], S - 1);
    for (let h = 0; h < H; h++) {
      const kvh = Math.floor(h / group);
      const qo = (t * H + h) * D;
      attentionProbs(p, q, k, qo, kvh, last, KVH, D);
      for (let d = 0; d < D; d++) out[qo + d] = 0;
      for (let s = 0; s <= last; s++) {
        const vo = (s * KVH + kvh) * D;
        for (let d = 0; d < D; d++) out[qo + d] += p[s] * v[vo + d];
      }
    }
  }
}

/**
 * Recomputes the probabilities P (no stored score matrix), then with dP_s = dout·v_s:
 * dv_s += P_s·dout; dS_s = P_s·(dP_s − Σ_j P_j·dP_j); dq += scale·Σ_s dS_s·k_s; dk_s += scale·dS_s·q.
 */
export function attentionBackwardRef(
  dq: Grad /* (T,H,D) */,
  dk: Grad /* (S,KVH,D) */,
  dv: Grad /* (S,KVH,D) */,
  dout: Float64Array /* (T,H,D) */,
  q: Float64Array /* (T,H,D) */,
  k: Float64Array /* (S,KVH,D) */,
  v: Float64Array /* (S,KVH,D) */,
  queryPositions: ArrayLike<number> /* (T) absolute */,
  T: number,
  S: number,
  H: number,
  KVH: number,
  D: number,
): void {
  const group = checkAttentionSizes('attentionBackwardRef', H, KVH);
  const scale = 1 / Math.sqrt(D);
  const p = new Float64Array(S);
  const dp = new Float64Array(S);
  for (let t = 0; t < T; t++) {
    const last = Math.min(queryPositions[t], S - 1);
    for (let h = 0; h < H; h++) {
      const kvh = Math.floor(h / group);
      const qo = (t * H + h) * D;
      attentionProbs(p, q, k, qo, kvh, last, KVH, D);
      let pdp = 0;
      for (let s = 0; s <= last; s++) {
        const vo = (s * KVH + kvh) * D;
        let dot = 0;
        for (let d = 0; d < D; d++) dot += dout[qo + d] * v[vo + d];
        dp[s] = dot;
        pdp += p[s] * dot;
        if (dv !== null) for (let d = 0; d < D; d++) dv[vo + d] += p[s] * dout[qo + d];
      }
      for (let s = 0; s <= last; s++) {
        const ds = p[s] * (dp[s] - pdp) * scale;
        const ko = (s * KVH + kvh) * D;
        if (dq !== null) for (let d = 0; d < D; d++) dq[qo + d] += ds * k[ko + d];
        if (dk !== null) for (let d = 0; d < D; d++) dk[ko + d] += ds * q[qo + d];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SwiGLU: out = silu(gate)·up, silu(g) = g·σ(g).

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export function swigluRef(
  out: Float64Array /* (M,I) */,
  gate: Float64Array /* (M,I) */,
  up: Float64Array /* (M,I) */,
  M: number,
  I: number,
): void {
  for (let i = 0; i < M * I; i++) out[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

/** dgate += dout·up·σ(g)(1 + g(1 − σ(g))); dup += dout·silu(g). */
export function swigluBackwardRef(
  dgate: Grad /* (M,I) */,
  dup: Grad /* (M,I) */,
  dout: Float64Array /* (M,I) */,
  gate: Float64Array /* (M,I) */,
  up: Float64Array /* (M,I) */,
  M: number,
  I: number,
): void {
  for (let i = 0; i < M * I; i++) {
    const g = gate[i];
    const sg = sigmoid(g);
    if (dgate !== null) dgate[i] += dout[i] * up[i] * sg * (1 + g * (1 - sg));
    if (dup !== null) dup[i] += dout[i] * g * sg;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Embedding lookup: out[t] = table[ids[t]].

export function embeddingRef(
  out: Float64Array /* (T,C) */,
  table: ArrayLike<number> /* (V,C) */,
  ids: ArrayLike<number> /* (T) */,
  T: number,
  C: number,
): void {
  for (let t = 0; t < T; t++) {
    const src = ids[t] * C;
    if (!Number.isInteger(ids[t]) || ids[t] < 0 || src + C > table.length) {
      throw new RangeError(`embeddingRef: token id ${ids[t]} at position ${t} is outside the table`);
    }
    for (let c = 0; c < C; c++) out[t * C + c] = table[src + c];
  }
}

/** dtable[ids[t]] += dout[t] (a scatter-add: repeated ids accumulate). */
export function embeddingBackwardRef(
  dtable: Float64Array /* (V,C) */,
  dout: Float64Array /* (T,C) */,
  ids: ArrayLike<number> /* (T) */,
  T: number,
  C: number,
): void {
  for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) dtable[ids[t] * C + c] += dout[t * C + c];
}

// ---------------------------------------------------------------------------------------------------------------
// log-softmax over the vocabulary, per row.

export function logSoftmaxRef(out: Float64Array /* (M,V) */, logits: Float64Array /* (M,V) */, M: number, V: number): void {
  for (let m = 0; m < M; m++) {
    const o = m * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (logits[o + v] > max) max = logits[o + v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    const lse = max + Math.log(sum);
    for (let v = 0; v < V; v++) out[o + v] = logits[o + v] - lse;
  }
}

/** With y = logSoftmax(x): dlogits += dout − exp(y)·Σ_v dout. Takes the forward's output y, not its input. */
export function logSoftmaxBackwardRef(
  dlogits: Float64Array /* (M,V) */,
  dout: Float64Array /* (M,V) */,
  logProbs: Float64Array /* (M,V) forward output */,
  M: number,
  V: number,
): void {
  for (let m = 0; m < M; m++) {
    const o = m * V;
    let sum = 0;
    for (let v = 0; v < V; v++) sum += dout[o + v];
    for (let v = 0; v < V; v++) dlogits[o + v] += dout[o + v] - Math.exp(logProbs[o + v]) * sum;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Elementwise add (residual connections). Its backward is the identity into both inputs: da += dout, db += dout.

export function addRef(out: Float64Array /* (n) */, a: Float64Array /* (n) */, b: Float64Array /* (n) */, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}

export function addBackwardRef(da: Grad /* (n) */, db: Grad /* (n) */, dout: Float64Array /* (n) */, n: number): void {
  for (let i = 0; i < n; i++) {
    if (da !== null) da[i] += dout[i];
    if (db !== null) db[i] += dout[i];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Test helpers: seeded arrays and comparisons.

/** n values uniform in [−scale, scale), from a seeded generator. */
export function randomArray(rng: Rng, n: number, scale: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng.next() * 2 - 1) * scale;
  return out;
}

/** n values roughly normal (Box–Muller) with standard deviation `std`, from a seeded generator. */
export function randomNormalArray(rng: Rng, n: number, std: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = Math.max(rng.next(), 1e-300);
    const u2 = rng.next();
    const r = Math.sqrt(-2 * Math.log(u1)) * std;
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

/** Largest |a_i − b_i| (Infinity when lengths differ): the figure GPU tests report. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return NaN;
    if (d > max) max = d;
  }
  return max;
}

// ---------------------------------------------------------------------------------------------------------------
// Chosen tokens' log-probabilities (the policy-gradient and SFT losses read these): out[m] = log softmax(logits[m])
// [targets[m]]. The GPU computes it in chunks of positions; the reference does the whole (M,V) at once.

export function tokenLogProbsRef(
  out: Float64Array /* (M) */,
  logits: Float64Array /* (M,V) */,
  targets: ArrayLike<number> /* (M) */,
  M: number,
  V: number,
): void {
  for (let m = 0; m < M; m++) {
    const o = m * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (logits[o + v] > max) max = logits[o + v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    out[m] = logits[o + targets[m]] - max - Math.log(sum);
  }
}

/** dlogits[m] += dout[m]·(onehot(targets[m]) − softmax(logits[m])). */
export function tokenLogProbsBackwardRef(
  dlogits: Float64Array /* (M,V) */,
  dout: Float64Array /* (M) */,
  logits: Float64Array /* (M,V) */,
  targets: ArrayLike<number> /* (M) */,
  M: number,
  V: number,
): void {
  for (let m = 0; m < M; m++) {
    const g = dout[m];
    if (g === 0) continue;
    const o = m * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (logits[o + v] > max) max = logits[o + v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(logits[o + v] - max);
    for (let v = 0; v < V; v++) dlogits[o + v] -= (g * Math.exp(logits[o + v] - max)) / sum;
    dlogits[o + targets[m]] += g;
  }
}
