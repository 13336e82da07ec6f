/**
 * The token choice of the transformers.js backend, made here rather than by the library: transformers.js samples with
 * `Math.random`, which no seed reaches, so every turn would differ. This picks the token from the step's logits (V)
 * with the turn's seeded generator — temperature 0 is greedy (argmax), otherwise softmax at the temperature cut to
 * the smallest set of tokens whose mass reaches top-p — and reports its log-probability under the distribution used
 * (greedy: the plain softmax). tjs-generate.ts then leaves only that token possible, so the library's own greedy
 * step takes it.
 */
import type { Rng } from '../../data/rng.ts';

export interface Pick {
  token: number;
  logProb: number;
}

/** log Σ exp(x_i / t) over `ids` (stable). */
function logSumExp(logits: ArrayLike<number>, ids: readonly number[], t: number): number {
  let max = -Infinity;
  for (const i of ids) max = Math.max(max, logits[i] / t);
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (const i of ids) sum += Math.exp(logits[i] / t - max);
  return max + Math.log(sum);
}

/** One token from `logits` (V): greedy at temperature 0, else seeded top-p sampling at the temperature. */
export function pickToken(logits: ArrayLike<number>, temperature: number, topP: number, rng: Rng): Pick {
  const V = logits.length;
  if (V === 0) throw new RangeError('pickToken: empty logits.');
  if (temperature === 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (logits[i] > logits[best]) best = i;
    let sum = 0;
    for (let i = 0; i < V; i++) sum += Math.exp(logits[i] - logits[best]);
    return { token: best, logProb: -Math.log(sum) };
  }
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const lse = logSumExp(logits, order, temperature);
  // The nucleus: the most likely tokens until their mass reaches top-p (at least one).
  const kept: number[] = [];
  let mass = 0;
  for (const i of order) {
    kept.push(i);
    mass += Math.exp(logits[i] / temperature - lse);
    if (mass >= topP) break;
  }
  const keptLse = logSumExp(logits, kept, temperature);
  let u = rng.next();
  for (const i of kept) {
    const p = Math.exp(logits[i] / temperature - keptLse);
    if (u < p) return { token: i, logProb: logits[i] / temperature - keptLse };
    u -= p;
  }
  const last = kept[kept.length - 1]; // rounding left u just above the kept mass
  return { token: last, logProb: logits[last] / temperature - keptLse };
}
