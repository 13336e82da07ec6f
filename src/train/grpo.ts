/**
 * GRPO's arithmetic, pure functions on numbers (no model):
 *
 * Advantages, per group of G episodes of one prompt with weighted rewards r_1..r_G:
 *   A_i = r_i − mean(r)                          (mean-centred: std scaling off, Dr. GRPO's advantage)
 *   A_i = (r_i − mean(r)) / (std(r) + 1e-4)      (std scaling on; std with Bessel's correction, as TRL's GRPO)
 *   a group whose rewards are all equal (|r_i − mean| ≤ 1e-9) gets A = 0: it carries no signal.
 *   Every token of episode i's reply carries A_i.
 *
 * Loss, token-level, for token t with new log-prob ℓ_t, the log-prob ℓ_old,t of the policy that sampled it, and
 * (β > 0) the reference policy's ℓ_ref,t — every log-prob under softmax(logits / temperature), the rollouts'
 * temperature, as TRL scores them; the reference is the policy the run started from, frozen (trainer.ts):
 *   r_t  = exp(ℓ_t − ℓ_old,t)
 *   pg_t = −min(r_t·A, clip(r_t, 1 − ε_low, 1 + ε_high)·A)
 *   kl_t = exp(ℓ_ref,t − ℓ_t) − (ℓ_ref,t − ℓ_t) − 1          (k3: unbiased, ≥ 0)
 *   L    = Σ_t (pg_t + β·kl_t) / N
 *   dL/dℓ_t = (−A·r_t·[not clipped] + β·(1 − exp(ℓ_ref,t − ℓ_t))) / N
 * with N the batch's loss tokens (DAPO, TRL's loss_type "dapo") or a constant, episodes × the most model tokens of
 * one episode (Dr. GRPO, TRL's "dr_grpo": completions × max_completion_length) — `lossNormaliser`.
 * where "clipped" means the clipped branch is the minimum and strictly flat there: A > 0 and r > 1 + ε_high, or
 * A < 0 and r < 1 − ε_low (the gradient PyTorch's min/clamp gives). Micro-batches pass the whole batch's N, so their
 * gradients add up to the batch's.
 */

export const STD_EPS = 1e-4;

export interface GroupAdvantages {
  advantages: number[];
  /** All rewards equal: advantages are 0. */
  zeroVariance: boolean;
}

export function groupAdvantages(rewards: readonly number[], stdScaling: boolean): GroupAdvantages {
  const n = rewards.length;
  if (n === 0) return { advantages: [], zeroVariance: true };
  const mean = rewards.reduce((a, b) => a + b, 0) / n;
  if (rewards.every((r) => Math.abs(r - mean) <= 1e-9)) return { advantages: rewards.map(() => 0), zeroVariance: true };
  const std = n > 1 ? Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1)) : 0;
  return { advantages: rewards.map((r) => (stdScaling ? (r - mean) / (std + STD_EPS) : r - mean)), zeroVariance: false };
}

/** N of the loss (see the header): the batch's loss tokens (DAPO) or Dr. GRPO's constant. */
export function lossNormaliser(lossType: 'dapo' | 'dr_grpo', lossTokens: number, episodes: number, maxTokensPerEpisode: number): number {
  switch (lossType) {
    case 'dapo':
      return lossTokens;
    case 'dr_grpo':
      return episodes * maxTokensPerEpisode;
    default:
      throw new RangeError(`unknown loss type ${lossType satisfies never}`);
  }
}

export interface PgSettings {
  clipEpsLow: number;
  clipEpsHigh: number;
  klBeta: number;
}

/** Per-token inputs of the loss: all arrays have one entry per loss token. */
export interface PgTokens {
  logProbs: ArrayLike<number>;
  oldLogProbs: ArrayLike<number>;
  advantages: ArrayLike<number>;
  /** Required when klBeta > 0. */
  refLogProbs?: ArrayLike<number>;
}

export interface PgLoss {
  /** This chunk's share of L (sums over micro-batches to the batch loss). */
  loss: number;
  /** dL/dℓ per token. */
  grad: Float32Array;
  /** Of which the KL term (β·Σkl/N) and the sum of kl_t (for the mean KL metric). */
  klLoss: number;
  klSum: number;
  /** Tokens whose gradient the clip zeroed. */
  clipped: number;
}

/** The clipped PG (+ k3 KL) loss of some tokens, normalised by `totalTokens`, the batch's N (see the header). */
export function pgLoss(tokens: PgTokens, settings: PgSettings, totalTokens: number): PgLoss {
  const n = tokens.logProbs.length;
  if (tokens.oldLogProbs.length !== n || tokens.advantages.length !== n) throw new RangeError('pgLoss: per-token arrays differ in length');
  const beta = settings.klBeta;
  if (beta > 0 && (tokens.refLogProbs === undefined || tokens.refLogProbs.length !== n)) throw new RangeError('pgLoss: klBeta > 0 needs a reference log-prob per token');
  if (totalTokens <= 0) throw new RangeError('pgLoss: the batch has no loss tokens');
  const grad = new Float32Array(n);
  let loss = 0;
  let klSum = 0;
  let clipped = 0;
  for (let t = 0; t < n; t++) {
    const lp = tokens.logProbs[t];
    const A = tokens.advantages[t];
    const r = Math.exp(lp - tokens.oldLogProbs[t]);
    const rc = Math.min(Math.max(r, 1 - settings.clipEpsLow), 1 + settings.clipEpsHigh);
    loss += -Math.min(r * A, rc * A);
    const isClipped = (A > 0 && r > 1 + settings.clipEpsHigh) || (A < 0 && r < 1 - settings.clipEpsLow);
    if (isClipped) clipped++;
    let g = isClipped ? 0 : -A * r;
    if (beta > 0) {
      const d = tokens.refLogProbs![t] - lp;
      const kl = Math.exp(d) - d - 1;
      klSum += kl;
      loss += beta * kl;
      g += beta * (1 - Math.exp(d));
    }
    grad[t] = g / totalTokens;
  }
  return { loss: loss / totalTokens, grad, klLoss: (beta * klSum) / totalTokens, klSum, clipped };
}
