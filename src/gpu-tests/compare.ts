/**
 * Comparison of GPU output with the float64 reference, as every kernel check reports it: the largest absolute
 * difference, the largest relative difference (over reference values with |ref| >= 1% of the largest |ref|, where
 * a relative error means something), and pass/fail against a stated tolerance |gpu − ref| <= abs + rel·|ref| for every element.
 * NaN anywhere fails.
 */

export interface Tolerance {
  abs: number;
  rel: number;
}

export interface Comparison {
  label: string;
  shape: string;
  count: number;
  maxAbs: number;
  maxRel: number;
  /** Index of the element with the largest excess over the tolerance. */
  worst: number;
  tol: Tolerance;
  pass: boolean;
}

export function compare(label: string, shape: string, gpu: ArrayLike<number>, ref: ArrayLike<number>, tol: Tolerance): Comparison {
  let refMax = 0;
  for (let i = 0; i < ref.length; i++) refMax = Math.max(refMax, Math.abs(ref[i]));
  const relFloor = Math.max(1e-30, 0.01 * refMax);
  let maxAbs = 0;
  let maxRel = 0;
  let worst = -1;
  let worstExcess = -Infinity;
  let pass = gpu.length === ref.length;
  for (let i = 0; i < ref.length; i++) {
    const g = gpu[i];
    const r = ref[i];
    const d = Math.abs(g - r);
    if (Number.isNaN(d)) {
      pass = false;
      worst = i;
      worstExcess = Infinity;
      maxAbs = NaN;
      continue;
    }
    if (d > maxAbs) maxAbs = d;
    if (Math.abs(r) >= relFloor) maxRel = Math.max(maxRel, d / Math.abs(r));
    const excess = d - (tol.abs + tol.rel * Math.abs(r));
    if (excess > worstExcess) {
      worstExcess = excess;
      worst = i;
    }
    if (excess > 0) pass = false;
  }
  return { label, shape, count: ref.length, maxAbs, maxRel, worst, tol, pass };
}

/** Exact (bitwise for finite f32) equality, reported as a comparison with zero tolerance. */
export function compareExact(label: string, shape: string, a: Float32Array, b: Float32Array): Comparison {
  const c = compare(label, shape, a, b, { abs: 0, rel: 0 });
  let identical = a.length === b.length;
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; identical && i < ua.length; i++) if (ua[i] !== ub[i] && !(a[i] === 0 && b[i] === 0)) identical = false;
  return { ...c, pass: c.pass && identical };
}
