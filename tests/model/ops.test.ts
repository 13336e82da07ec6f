/**
 * The float64 reference ops: small hand-computed cases for each forward, then every backward against central
 * finite differences of L = Σ dout ⊙ forward(inputs) on seeded random inputs (float64, so tolerances are tight).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import {
  addRef,
  attentionBackwardRef,
  attentionRef,
  embeddingBackwardRef,
  embeddingRef,
  logSoftmaxBackwardRef,
  logSoftmaxRef,
  matmulBackwardRef,
  matmulRef,
  maxAbsDiff,
  randomArray,
  randomNormalArray,
  rmsnormBackwardRef,
  rmsnormRef,
  ropeBackwardRef,
  ropeRef,
  swigluBackwardRef,
  swigluRef,
} from '../../src/model/reference/ops.ts';

const f64 = (xs: number[]): Float64Array => Float64Array.from(xs);

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-12): void {
  expect(actual.length).toBe(expected.length);
  expect(maxAbsDiff(actual, expected)).toBeLessThan(tol);
}

/** Σ dout·f(): the scalar whose gradient a backward computes. */
function dotLoss(dout: Float64Array, out: Float64Array): number {
  let s = 0;
  for (let i = 0; i < out.length; i++) s += dout[i] * out[i];
  return s;
}

/** Central finite differences of `loss` with respect to every entry of `x` (perturbed in place, restored). */
function numericGrad(x: Float64Array, loss: () => number, h = 1e-5): Float64Array {
  const g = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const keep = x[i];
    x[i] = keep + h;
    const up = loss();
    x[i] = keep - h;
    const down = loss();
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

describe('forward ops, hand-computed', () => {
  it('matmul uses the HF Linear layout (N,K) and adds the bias', () => {
    const out = new Float64Array(6);
    matmulRef(out, f64([1, 2, 3, 4]), f64([1, 0, 0, 1, 1, 1]), f64([0.5, 0, -1]), 2, 3, 2);
    expect(Array.from(out)).toEqual([1.5, 2, 2, 3.5, 4, 6]);
    matmulRef(out, f64([1, 2, 3, 4]), f64([1, 0, 0, 1, 1, 1]), null, 2, 3, 2);
    expect(Array.from(out)).toEqual([1, 2, 3, 3, 4, 7]);
  });

  it('rmsnorm divides by the root mean square and scales by the weight', () => {
    const out = new Float64Array(4);
    rmsnormRef(out, f64([3, 4, 1, 1]), f64([1, 2]), 2, 2, 0);
    expectClose(out, [3 / Math.sqrt(12.5), 8 / Math.sqrt(12.5), 1, 2]);
    rmsnormRef(out, f64([0, 0, 1, 1]), f64([1, 1]), 2, 2, 1e-6);
    expect(Array.from(out.subarray(0, 2))).toEqual([0, 0]); // eps keeps a zero row finite
  });

  it('rope rotates pairs (i, i + D/2) by position · theta^(−2i/D), rotate_half style', () => {
    const x = f64([1, 0, 0, 0, /* t=1 */ 0, 1, 0, 0, /* t=2 */ 1, 2, 3, 4]);
    ropeRef(x, [2, 2, 0], 3, 1, 4, 10000);
    expectClose(x.subarray(0, 4), [Math.cos(2), 0, Math.sin(2), 0]);
    expectClose(x.subarray(4, 8), [0, Math.cos(0.02), 0, Math.sin(0.02)]);
    expectClose(x.subarray(8, 12), [1, 2, 3, 4]); // position 0 is the identity
    const y = f64([0.3, -0.7, 1.1, 0.2, 0.9, -0.4]); // (T=1, H=3, D=2) with positions beyond 0: a rotation keeps norms
    const before = Array.from(y);
    ropeRef(y, [5], 1, 3, 2, 1e6);
    for (let h = 0; h < 3; h++) {
      expect(Math.hypot(y[2 * h], y[2 * h + 1])).toBeCloseTo(Math.hypot(before[2 * h], before[2 * h + 1]), 12);
      expect(y[2 * h]).toBeCloseTo(before[2 * h] * Math.cos(5) - before[2 * h + 1] * Math.sin(5), 12);
    }
  });

  it('attention is causal on absolute positions, scales by 1/sqrt(D) and maps query heads to kv heads (GQA)', () => {
    // D=4, one head: q = 1s, k0 = 0s, k1 = 1s → scores 0 and 4/2 = 2.
    const q = f64([1, 1, 1, 1, 1, 1, 1, 1]); // (T=2, H=1, D=4)
    const k = f64([0, 0, 0, 0, 1, 1, 1, 1]); // (S=2, KVH=1, D=4)
    const v = f64([1, 0, 0, 0, 0, 1, 0, 0]);
    const out = new Float64Array(8);
    attentionRef(out, q, k, v, [0, 1], 2, 2, 1, 1, 4);
    const p1 = Math.exp(2) / (1 + Math.exp(2));
    expectClose(out, [1, 0, 0, 0, 1 - p1, p1, 0, 0]);
    // A single decode query at position 1 against a 2-entry cache equals the prefill's second row.
    const one = new Float64Array(4);
    attentionRef(one, q.subarray(4), k, v, [1], 1, 2, 1, 1, 4);
    expectClose(one, out.subarray(4));

    // GQA: H=4 query heads over KVH=2 kv heads; q = 0 makes each output the mean of its kv head's visible values.
    const D = 2;
    const q4 = new Float64Array(2 * 4 * D);
    const k4 = new Float64Array(2 * 2 * D);
    const v4 = f64([/* s0 kv0 */ 1, 2, /* s0 kv1 */ 10, 20, /* s1 kv0 */ 3, 4, /* s1 kv1 */ 30, 40]);
    const o4 = new Float64Array(2 * 4 * D);
    attentionRef(o4, q4, k4, v4, [0, 1], 2, 2, 4, 2, D);
    expectClose(o4, [1, 2, 1, 2, 10, 20, 10, 20, /* t1 */ 2, 3, 2, 3, 20, 30, 20, 30]);
  });

  it('swiglu is silu(gate)·up', () => {
    const out = new Float64Array(3);
    swigluRef(out, f64([0, 1, -2]), f64([5, 2, 1]), 1, 3);
    expectClose(out, [0, 2 / (1 + Math.exp(-1)), -2 / (1 + Math.exp(2))]);
  });

  it('embedding copies rows and rejects ids outside the table', () => {
    const out = new Float64Array(4);
    embeddingRef(out, f64([0, 1, 10, 11, 20, 21]), [2, 0], 2, 2);
    expect(Array.from(out)).toEqual([20, 21, 0, 1]);
    expect(() => embeddingRef(out, f64([0, 1]), [1], 1, 2)).toThrow(/token id 1/);
  });

  it('log-softmax normalises each row and survives large logits', () => {
    const out = new Float64Array(5);
    logSoftmaxRef(out, f64([0, 0, 1000, 1000 + Math.log(2), 1000 + Math.log(2)]), 1, 5);
    // Row sums: e^0 + e^0 are negligible beside e^1000·(1 + 2 + 2) = 5·e^1000.
    expect(out[2]).toBeCloseTo(-Math.log(5), 12);
    expect(out[3]).toBeCloseTo(Math.log(2) - Math.log(5), 12);
    const two = new Float64Array(4);
    logSoftmaxRef(two, f64([0, 0, 1, 2]), 2, 2);
    expectClose(two, [-Math.log(2), -Math.log(2), -Math.log(1 + Math.E), 1 - Math.log(1 + Math.E)]);
  });

  it('add and maxAbsDiff', () => {
    const out = new Float64Array(2);
    addRef(out, f64([1, 2]), f64([3, -4]), 2);
    expect(Array.from(out)).toEqual([4, -2]);
    expect(maxAbsDiff([1, 2], [1, 2.5])).toBe(0.5);
    expect(maxAbsDiff([1], [1, 2])).toBe(Infinity);
    expect(maxAbsDiff([NaN, 0], [0, 0])).toBeNaN();
  });

  it('seeded random arrays repeat with the seed and respect the scale', () => {
    const a = randomArray(createRng(7), 100, 0.5);
    expect(Array.from(a)).toEqual(Array.from(randomArray(createRng(7), 100, 0.5)));
    expect(Math.max(...a.map(Math.abs))).toBeLessThanOrEqual(0.5);
    const n = randomNormalArray(createRng(7), 10_000, 2);
    const mean = n.reduce((s, x) => s + x, 0) / n.length;
    const std = Math.sqrt(n.reduce((s, x) => s + (x - mean) ** 2, 0) / n.length);
    expect(Math.abs(mean)).toBeLessThan(0.1);
    expect(Math.abs(std - 2)).toBeLessThan(0.1);
  });
});

describe('backward ops against finite differences', () => {
  const TOL = 1e-7;

  it('matmul', () => {
    const rng = createRng(1);
    const [M, N, K] = [3, 4, 5];
    const x = randomArray(rng, M * K, 1);
    const w = randomArray(rng, N * K, 1);
    const b = randomArray(rng, N, 1);
    const dout = randomArray(rng, M * N, 1);
    const out = new Float64Array(M * N);
    const loss = (): number => (matmulRef(out, x, w, b, M, N, K), dotLoss(dout, out));
    const [dx, dw, db] = [new Float64Array(M * K), new Float64Array(N * K), new Float64Array(N)];
    matmulBackwardRef(dx, dw, db, dout, x, w, M, N, K);
    expectClose(dx, numericGrad(x, loss), TOL);
    expectClose(dw, numericGrad(w, loss), TOL);
    expectClose(db, numericGrad(b, loss), TOL);
  });

  it('rmsnorm', () => {
    const rng = createRng(2);
    const [M, C, eps] = [3, 6, 1e-6];
    const x = randomArray(rng, M * C, 1);
    const w = randomArray(rng, C, 1);
    const dout = randomArray(rng, M * C, 1);
    const out = new Float64Array(M * C);
    const loss = (): number => (rmsnormRef(out, x, w, M, C, eps), dotLoss(dout, out));
    const [dx, dw] = [new Float64Array(M * C), new Float64Array(C)];
    rmsnormBackwardRef(dx, dw, dout, x, w, M, C, eps);
    expectClose(dx, numericGrad(x, loss), TOL);
    expectClose(dw, numericGrad(w, loss), TOL);
  });

  it('rope', () => {
    const rng = createRng(3);
    const [T, H, D] = [3, 2, 8];
    const positions = [4, 9, 17];
    const x = randomArray(rng, T * H * D, 1);
    const dout = randomArray(rng, T * H * D, 1);
    const loss = (): number => {
      const y = x.slice();
      ropeRef(y, positions, T, H, D, 10000);
      return dotLoss(dout, y);
    };
    const dx = dout.slice();
    ropeBackwardRef(dx, positions, T, H, D, 10000);
    expectClose(dx, numericGrad(x, loss), TOL);
  });

  it('attention (GQA, causal, queries at an offset into the cache)', () => {
    const rng = createRng(4);
    const [T, S, H, KVH, D] = [3, 5, 4, 2, 4];
    const positions = [2, 3, 4]; // the last three positions of a 5-entry cache
    const q = randomArray(rng, T * H * D, 1);
    const k = randomArray(rng, S * KVH * D, 1);
    const v = randomArray(rng, S * KVH * D, 1);
    const dout = randomArray(rng, T * H * D, 1);
    const out = new Float64Array(T * H * D);
    const loss = (): number => (attentionRef(out, q, k, v, positions, T, S, H, KVH, D), dotLoss(dout, out));
    const [dq, dk, dv] = [new Float64Array(q.length), new Float64Array(k.length), new Float64Array(v.length)];
    attentionBackwardRef(dq, dk, dv, dout, q, k, v, positions, T, S, H, KVH, D);
    expectClose(dq, numericGrad(q, loss), TOL);
    expectClose(dk, numericGrad(k, loss), TOL);
    expectClose(dv, numericGrad(v, loss), TOL);
  });

  it('swiglu', () => {
    const rng = createRng(5);
    const [M, I] = [2, 7];
    const gate = randomArray(rng, M * I, 3);
    const up = randomArray(rng, M * I, 1);
    const dout = randomArray(rng, M * I, 1);
    const out = new Float64Array(M * I);
    const loss = (): number => (swigluRef(out, gate, up, M, I), dotLoss(dout, out));
    const [dg, du] = [new Float64Array(M * I), new Float64Array(M * I)];
    swigluBackwardRef(dg, du, dout, gate, up, M, I);
    expectClose(dg, numericGrad(gate, loss), TOL);
    expectClose(du, numericGrad(up, loss), TOL);
  });

  it('embedding (repeated ids accumulate)', () => {
    const rng = createRng(6);
    const [V, C] = [4, 3];
    const ids = [1, 3, 1];
    const table = randomArray(rng, V * C, 1);
    const dout = randomArray(rng, ids.length * C, 1);
    const out = new Float64Array(ids.length * C);
    const loss = (): number => (embeddingRef(out, table, ids, ids.length, C), dotLoss(dout, out));
    const dtable = new Float64Array(V * C);
    embeddingBackwardRef(dtable, dout, ids, ids.length, C);
    expectClose(dtable, numericGrad(table, loss), TOL);
  });

  it('log-softmax', () => {
    const rng = createRng(7);
    const [M, V] = [2, 6];
    const logits = randomArray(rng, M * V, 3);
    const dout = randomArray(rng, M * V, 1);
    const out = new Float64Array(M * V);
    const loss = (): number => (logSoftmaxRef(out, logits, M, V), dotLoss(dout, out));
    logSoftmaxRef(out, logits, M, V);
    const logProbs = out.slice();
    const dl = new Float64Array(M * V);
    logSoftmaxBackwardRef(dl, dout, logProbs, M, V);
    expectClose(dl, numericGrad(logits, loss), TOL);
  });
});
