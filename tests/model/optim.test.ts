/**
 * The float64 AdamW + clipping reference (src/model/reference/optim.ts): one and two steps against values worked by
 * hand, clipping against a 3-4-5 gradient, decoupled weight decay alone, and that it minimises a quadratic (and does
 * nothing at lr = 0, so the minimisation test can fail).
 */
import { describe, expect, it } from 'vitest';
import { adamwStepRef, clipFactorRef, gradNormSquaredRef, type AdamTensorRef, type AdamWRefSettings } from '../../src/model/reference/optim.ts';

const f64 = (xs: number[]): Float64Array => Float64Array.from(xs);

function tensor(param: number[], grad: number[]): AdamTensorRef {
  return { param: f64(param), grad: f64(grad), m: new Float64Array(param.length), v: new Float64Array(param.length) };
}

const BASE: AdamWRefSettings = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, step: 1, maxGradNorm: 0 };

function expectAll(actual: Float64Array, expected: number[], tol = 1e-15): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => expect(Math.abs(a - expected[i])).toBeLessThan(tol));
}

describe('adamwStepRef', () => {
  it('matches one step worked by hand', () => {
    // Step 1: m = 0.1·g, v = 0.001·g², so m̂ = g and sqrt(v̂) = |g|: the step is lr·g / (|g| + eps) after the decay
    // θ·(1 − 0.1·0.01) = 0.999·θ.
    const t = tensor([1, 0], [0.5, -2]);
    const { normSquared, clip } = adamwStepRef([t], BASE);
    expect(normSquared).toBe(4.25);
    expect(clip).toBe(1);
    expectAll(t.m, [0.05, -0.2]);
    expectAll(t.v, [0.00025, 0.004]);
    expectAll(t.param, [0.999 - 0.05 / (0.5 + 1e-8), 0.2 / (2 + 1e-8)]);
    expectAll(t.grad, [0, 0]);
    expect(t.param[0]).toBeCloseTo(0.899, 6);
    expect(t.param[1]).toBeCloseTo(0.1, 6);
  });

  it('matches a second step with the same gradient (bias correction keeps m̂ = g, v̂ = g²)', () => {
    const t = tensor([1, 0], [0.5, -2]);
    adamwStepRef([t], BASE);
    t.grad.set([0.5, -2]);
    adamwStepRef([t], { ...BASE, step: 2 });
    // m = 0.9·0.1·g + 0.1·g = 0.19·g, 1 − 0.9² = 0.19; v = (0.999·0.001 + 0.001)·g² = 0.001999·g², 1 − 0.999² = 0.001999.
    expectAll(t.m, [0.095, -0.38], 1e-15);
    expectAll(t.v, [0.001999 * 0.25, 0.001999 * 4], 1e-15);
    const u0 = 0.05 / (0.5 + 1e-8);
    const u1 = 0.2 / (2 + 1e-8);
    expectAll(t.param, [(0.999 - u0) * 0.999 - u0, u1 * 0.999 + u1], 1e-14);
  });

  it('clips the global norm over all tensors as clip_grad_norm_ does', () => {
    const a = tensor([0], [3]);
    const b = tensor([0, 0], [0, 4]);
    const { normSquared, clip } = adamwStepRef([a, b], { ...BASE, weightDecay: 0, maxGradNorm: 1 });
    expect(normSquared).toBe(25);
    expect(clip).toBe(1 / (5 + 1e-6));
    expectAll(a.m, [0.1 * 3 * clip]);
    expectAll(b.m, [0, 0.1 * 4 * clip]);
    expectAll(b.v, [0, 0.001 * (4 * clip) ** 2]);
    // The step is lr·ĝ/(|ĝ| + eps) with ĝ the clipped gradient: still ≈ −lr per non-zero element.
    expectAll(a.param, [-0.1 * (3 * clip) / (3 * clip + 1e-8)]);
    expectAll(b.param, [0, -0.1 * (4 * clip) / (4 * clip + 1e-8)]);
    expect(clipFactorRef(5, 10)).toBe(1);
    expect(clipFactorRef(5, 0)).toBe(1);
    expect(gradNormSquaredRef([f64([1, 2]), f64([2])])).toBe(9);
  });

  it('applies decoupled weight decay alone when the gradient is zero', () => {
    const t = tensor([2, -4], [0, 0]);
    adamwStepRef([t], { ...BASE, weightDecay: 0.5 });
    expectAll(t.param, [2 * 0.95, -4 * 0.95]);
    expectAll(t.m, [0, 0]);
  });

  it('rejects a step below 1', () => {
    expect(() => adamwStepRef([tensor([1], [1])], { ...BASE, step: 0 })).toThrow(RangeError);
  });

  // f(θ) = ½ Σ a_i (θ_i − c_i)², gradient a_i (θ_i − c_i); badly conditioned on purpose (a spans 1000×).
  const a = [0.01, 1, 10];
  const c = [3, -1, 0.5];
  const loss = (p: Float64Array): number => p.reduce((s, x, i) => s + 0.5 * a[i] * (x - c[i]) ** 2, 0);

  function minimise(settings: Omit<AdamWRefSettings, 'step'>, steps: number): { start: number; end: number } {
    const t = tensor([0, 0, 0], [0, 0, 0]);
    const start = loss(t.param);
    for (let step = 1; step <= steps; step++) {
      t.param.forEach((x, i) => (t.grad[i] = a[i] * (x - c[i])));
      adamwStepRef([t], { ...settings, step });
    }
    return { start, end: loss(t.param) };
  }

  it('minimises a quadratic (with and without clipping) and does nothing at lr = 0', () => {
    const settings = { lr: 0.05, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 0 };
    const plain = minimise(settings, 1000);
    const clipped = minimise({ ...settings, maxGradNorm: 0.5 }, 1000);
    const frozen = minimise({ ...settings, lr: 0 }, 1000);
    expect(plain.end).toBeLessThan(1e-8 * plain.start);
    expect(clipped.end).toBeLessThan(1e-8 * clipped.start);
    expect(frozen.end).toBe(frozen.start);
  });
});
