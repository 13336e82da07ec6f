/**
 * Statistics for the sampler's tests: the chi-square distribution's upper tail (the regularised upper incomplete
 * gamma function Q(df/2, x/2), by series or continued fraction as in Numerical Recipes §6.2) and its critical value
 * for a chosen false-failure rate, and Pearson's goodness-of-fit statistic with bins of small expectation merged.
 * Pure TS, float64: tested in Node against table values.
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; ~1e-15 relative). */
export function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Q(a, x) = Γ(a, x) / Γ(a), the regularised upper incomplete gamma function. */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return 1 - sum * Math.exp(lead);
  }
  // Lentz's continued fraction for Γ(a, x).
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lead) * h;
}

/** P(X >= x) for X ~ chi-square with `df` degrees of freedom. */
export function chiSquareSurvival(x: number, df: number): number {
  return gammaQ(df / 2, x / 2);
}

/** The x with P(X >= x) = alpha (bisection; alpha is the test's false-failure rate). */
export function chiSquareCritical(df: number, alpha: number): number {
  let lo = 0;
  let hi = df + 10;
  while (chiSquareSurvival(hi, df) > alpha) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (chiSquareSurvival(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface ChiSquareResult {
  statistic: number;
  df: number;
  /** Critical value at the false-failure rate `alpha`. */
  critical: number;
  alpha: number;
  pValue: number;
  pass: boolean;
  bins: number;
}

/**
 * Pearson's test that `counts` (n draws) come from `probs`. Bins are taken in order of decreasing expectation and
 * merged (the smallest into one tail bin) until every bin expects at least `minExpected` draws. Bins of probability
 * 0 are excluded here; the caller asserts they drew nothing.
 */
export function chiSquareTest(counts: ArrayLike<number>, probs: ArrayLike<number>, alpha: number, minExpected = 5): ChiSquareResult {
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i];
  const order = Array.from({ length: probs.length }, (_, i) => i).filter((i) => probs[i] > 0).sort((a, b) => probs[b] - probs[a]);
  const bins: Array<{ observed: number; expected: number }> = [];
  let tail = { observed: 0, expected: 0 };
  for (const i of order) {
    const e = n * probs[i];
    if (e >= minExpected) bins.push({ observed: counts[i], expected: e });
    else {
      tail.observed += counts[i];
      tail.expected += e;
    }
  }
  if (tail.expected > 0) {
    if (tail.expected >= minExpected || bins.length === 0) bins.push(tail);
    else {
      const last = bins.pop()!;
      tail = { observed: tail.observed + last.observed, expected: tail.expected + last.expected };
      bins.push(tail);
    }
  }
  const statistic = bins.reduce((s, b) => s + (b.observed - b.expected) ** 2 / b.expected, 0);
  const df = bins.length - 1;
  const critical = chiSquareCritical(df, alpha);
  return { statistic, df, critical, alpha, pValue: chiSquareSurvival(statistic, df), pass: df > 0 && statistic < critical, bins: bins.length };
}
