/**
 * The sampler's CPU reference in float64: the distribution sample.wgsl draws from, by its definition (sort, cut,
 * renormalise), not by the kernel's threshold search. z = logit / temperature; top-k keeps the k largest z and every
 * token tied with the k-th; top-p keeps, of those, the shortest run in decreasing z whose mass reaches top_p of
 * their total, again with ties at the cut kept; q is softmax(z) over the kept tokens. Greedy (temperature 0) is a
 * point mass at the first largest logit.
 */
import type { SamplingParams } from '../gpu/kernels/sample.ts';

export interface RefDistribution {
  /** (V) probabilities; 0 outside the kept set. */
  q: Float64Array;
  kept: number;
}

export function referenceDistribution(logits: ArrayLike<number>, params: SamplingParams): RefDistribution {
  const V = logits.length;
  const q = new Float64Array(V);
  if (params.temperature === 0) {
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v] > logits[best]) best = v;
    q[best] = 1;
    return { q, kept: 1 };
  }
  const z = Float64Array.from({ length: V }, (_, v) => logits[v] / params.temperature);
  const order = Array.from({ length: V }, (_, v) => v).sort((a, b) => z[b] - z[a] || a - b);
  const zmax = z[order[0]];
  const topK = params.topK ?? 0;
  let cut = topK > 0 && topK < V ? z[order[topK - 1]] : -Infinity;
  const topP = params.topP ?? 1;
  if (topP < 1) {
    let total = 0;
    for (const v of order) if (z[v] >= cut) total += Math.exp(z[v] - zmax);
    let acc = 0;
    for (const v of order) {
      if (z[v] < cut) break;
      acc += Math.exp(z[v] - zmax);
      if (acc >= topP * total) {
        cut = z[v];
        break;
      }
    }
  }
  let total = 0;
  let kept = 0;
  for (let v = 0; v < V; v++) {
    if (z[v] >= cut) {
      q[v] = Math.exp(z[v] - zmax);
      total += q[v];
      kept++;
    }
  }
  for (let v = 0; v < V; v++) q[v] /= total;
  return { q, kept };
}

/** The interval [lo, hi) of the vocabulary-order CDF that maps a uniform u to `token`. */
export function cdfInterval(q: Float64Array, token: number): [number, number] {
  let lo = 0;
  for (let v = 0; v < token; v++) lo += q[v];
  return [lo, lo + q[token]];
}
