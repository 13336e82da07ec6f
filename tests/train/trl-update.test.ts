/**
 * The GRPO update as TRL's GRPOTrainer makes it (trl/trainer/grpo_trainer.py), recomputed here on the float64
 * reference model, independently of src/train's loss code:
 *   - temperature: TRL divides the logits by the sampling temperature before `selective_log_softmax`, for the policy,
 *     the old policy and the reference alike. At T ≠ 1 the adapter gradient of one on-policy step must equal
 *     Σ_t −A_i/N · ∇ log softmax(z_t / T)[y_t] (loss_type "dapo"), and the sampler's reported log-probs must be those
 *     scores (the sampler/trainer gap metric is reported at every T).
 *   - KL anchor: TRL anchors a re-trained PEFT adapter to a frozen copy of it ("ref" adapter). After an SFT warm-up,
 *     the first GRPO step's KL is 0 and the KL adds nothing to the gradient (same gradient as with β = 0).
 *   - Dr. GRPO: loss_type "dr_grpo" divides by completions × max_completion_length, a constant, not by N.
 * Trainer seeds are drawn per run and printed.
 */
import { describe, expect, it } from 'vitest';
import type { LoraAdapter } from '../../src/model/lora.ts';
import { modelBackward, zeroLoraGrads, type LoraGrads } from '../../src/model/reference/backward.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import type { AdamWSettings } from '../../src/train/policy-model.ts';
import type { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import type { RolledEpisode } from '../../src/train/rollout.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { StepMetrics, TrainConfig } from '../../src/train/types.ts';
import { SMALL_GRPO, useToyTask } from './toy-fixture.ts';
import { testSeed } from '../fixtures/seed.ts';

const f = useToyTask();
/** Trainer seeds start here (small, so offsets stay in range). */
const RUN_SEED = testSeed('tests/train/trl-update.test.ts') % 1_000_000;

/** An adapter that already changes the model (a loaded adapter: B ≠ 0). */
const loaded = () => f.model({ bInit: (rng) => 0.3 * (rng.next() * 2 - 1) });

const flat = (g: LoraGrads): number[] => g.flatMap((layer) => Object.keys(layer).sort().flatMap((p) => [...layer[p as keyof typeof layer]!.da, ...layer[p as keyof typeof layer]!.db]));

/** Copies the accumulated gradient at each optimizer step (before AdamW zeroes it). */
function captureGrads(model: ReferenceTrainableModel): number[][] {
  const seen: number[][] = [];
  const step = model.optimizerStep.bind(model);
  model.optimizerStep = (s: AdamWSettings) => {
    seen.push(flat(model.grads));
    return step(s);
  };
  return seen;
}

/** One GRPO step at `config` on `model`, with the adapter it started from and the gradient it applied (null: no update). */
async function oneStep(model: ReferenceTrainableModel, config: Partial<TrainConfig>): Promise<{ before: LoraAdapter; episodes: RolledEpisode[]; metrics: StepMetrics; grad: number[] | null }> {
  const grads = captureGrads(model);
  const before = await model.readAdapter();
  const { episodes, metrics } = await new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...SMALL_GRPO, steps: 1, ...config }).grpoStep(1);
  return { before, episodes, metrics, grad: grads[0] ?? null };
}

/** A fresh copy of the model holding `adapter`. */
function replay(adapter: LoraAdapter): ReferenceTrainableModel {
  const m = f.model();
  m.loadAdapter(adapter);
  return m;
}

/** Group advantages as TRL computes them: r − mean, divided by (std + 1e-4) with `scale` (std with Bessel's correction). */
function trlAdvantages(rewards: number[], G: number, scale: boolean): number[] {
  const out: number[] = [];
  for (let g = 0; g < rewards.length; g += G) {
    const group = rewards.slice(g, g + G);
    const mean = group.reduce((a, b) => a + b, 0) / G;
    const std = Math.sqrt(group.reduce((a, r) => a + (r - mean) ** 2, 0) / (G - 1));
    out.push(...group.map((r) => (scale ? (r - mean) / (std + 1e-4) : r - mean)));
  }
  return out;
}

/** Tokens with loss mask 1 (position 0 is never scored). */
const lossTokens = (episodes: RolledEpisode[]) => episodes.reduce((a, e) => a + e.lossMask.reduce((s, m, t) => s + (t > 0 && m ? 1 : 0), 0), 0);

/**
 * The adapter gradient of TRL's on-policy loss L = Σ_t −min(ρA, clip(ρ)A) / normaliser with ρ = 1 (the old log-probs
 * are the detached new ones), log-probs = log softmax(z / T): dL/dz_t = −A/normaliser · (onehot(y_t) − softmax(z_t / T)) / T.
 * Also returns the largest |score − sampled log-prob| over the generated tokens.
 */
function trlGradient(adapter: LoraAdapter, episodes: RolledEpisode[], advantages: number[], T: number, normaliser: number): { grad: number[]; gap: number } {
  const weights = toReferenceWeights(f.config, f.weights);
  const lora = toReferenceLora(adapter);
  const grads = zeroLoraGrads(lora);
  const V = f.config.vocabSize;
  let gap = 0;
  episodes.forEach((e, i) => {
    const r = modelForward(f.config, weights, lora, emptyCache(f.config), e.tokenIds);
    const dlogits = new Float64Array(r.logits.length);
    let j = 0;
    for (let t = 1; t < e.tokenIds.length; t++) {
      if (!e.lossMask[t]) continue;
      const scaled = Array.from(r.logits.subarray((t - 1) * V, t * V), (z) => z / T);
      const max = Math.max(...scaled);
      const sum = scaled.reduce((a, z) => a + Math.exp(z - max), 0);
      gap = Math.max(gap, Math.abs(scaled[e.tokenIds[t]] - max - Math.log(sum) - e.sampledLogProbs[j++]));
      const dl = -advantages[i] / normaliser;
      for (let v = 0; v < V; v++) dlogits[(t - 1) * V + v] = (dl * ((v === e.tokenIds[t] ? 1 : 0) - Math.exp(scaled[v] - max) / sum)) / T;
    }
    modelBackward(f.config, weights, lora, grads, r, dlogits);
  });
  return { grad: flat(grads), gap };
}

function relativeError(got: number[], want: number[]): number {
  expect(got.length).toBe(want.length);
  const scale = Math.max(...want.map(Math.abs));
  return Math.max(...got.map((g, i) => Math.abs(g - want[i]))) / scale;
}

describe('the GRPO update, against a TRL-style computation on the float64 reference', () => {
  it.each([0.6, 1.4])('scores at the sampling temperature T = %s: the gradient is TRL\'s, and the sampler gap is reported', async (T) => {
    // Seeds until a step has a group with different rewards (else there is no update to compare).
    for (let k = 0; k < 10; k++) {
      const seed = RUN_SEED + k;
      const { before, episodes, metrics, grad } = await oneStep(loaded(), { temperature: T, seed });
      if (grad === null) continue;
      const advantages = trlAdvantages(
        episodes.map((e) => e.reward),
        SMALL_GRPO.groupSize!,
        true,
      );
      const trl = trlGradient(before, episodes, advantages, T, lossTokens(episodes));
      expect(trl.gap, `seed ${seed}`).toBeLessThan(1e-9); // the sampler's log-probs are TRL's scores at T
      expect(relativeError(grad, trl.grad), `seed ${seed}`).toBeLessThan(1e-5); // f32 d(loss)/d(score) in the trainer
      expect(metrics.logprobGap, `seed ${seed}`).toBeLessThan(1e-5);
      return;
    }
    throw new Error(`no update in 10 steps from seed ${RUN_SEED}`);
  });

  it('Dr. GRPO (lossType "dr_grpo") divides by episodes × maxTurns × maxNewTokensPerTurn, a constant', async () => {
    for (let k = 0; k < 10; k++) {
      const seed = RUN_SEED + 100 + k;
      const maxNewTokensPerTurn = 6;
      const { before, episodes, metrics, grad } = await oneStep(loaded(), { seed, stdScaling: false, lossType: 'dr_grpo', temperature: 1, maxNewTokensPerTurn });
      const constant = episodes.length * SMALL_GRPO.maxTurns! * maxNewTokensPerTurn;
      // Needs an update, and replies that ended before their limit (else N equals the constant).
      if (grad === null || lossTokens(episodes) === constant) continue;
      const advantages = trlAdvantages(
        episodes.map((e) => e.reward),
        SMALL_GRPO.groupSize!,
        false,
      );
      expect(relativeError(grad, trlGradient(before, episodes, advantages, 1, constant).grad), `seed ${seed}`).toBeLessThan(1e-5);
      expect(metrics.generatedTokens).toBe(lossTokens(episodes));
      return;
    }
    throw new Error(`no update in 10 steps from seed ${RUN_SEED + 100}`);
  });

  it('anchors the KL to the adapter the run started from: after an SFT warm-up, KL 0 and no KL gradient at the first step', async () => {
    const warm = async () => {
      const m = f.model();
      await new Trainer({ model: m, dataset: f.dataset, executor: f.executor }, { ...SMALL_GRPO, algo: 'sft', steps: 2, sftExamplesPerStep: 3, lr: 0.05, seed: RUN_SEED }).run();
      return m;
    };
    const withKl = await warm();
    const without = await warm();
    // The warm-up moved the policy away from the base model (so a base-model anchor would give KL > 0).
    const { episodes } = await new Trainer({ model: replay(await withKl.readAdapter()), dataset: f.dataset, executor: f.executor }, { ...SMALL_GRPO, steps: 1, seed: RUN_SEED }).grpoStep(1);
    const policy = withKl.score64(episodes);
    const base = withKl.score64(episodes, { adapter: false });
    expect(Math.max(...policy.map((p, i) => Math.abs(p - base[i])))).toBeGreaterThan(1e-3);

    const gradsKl = captureGrads(withKl);
    const gradsPlain = captureGrads(without);
    const trainer = new Trainer({ model: withKl, dataset: f.dataset, executor: f.executor }, { ...SMALL_GRPO, steps: 1, seed: RUN_SEED, klBeta: 0.5 });
    const a = await trainer.run();
    const b = await new Trainer({ model: without, dataset: f.dataset, executor: f.executor }, { ...SMALL_GRPO, steps: 1, seed: RUN_SEED, klBeta: 0 }).run();
    expect(a.metrics[0].kl).toBe(0);
    const kl = gradsKl[0];
    const plain = gradsPlain[0] ?? kl.map(() => 0); // β = 0 makes no update when every group's rewards are equal
    expect(Math.max(...kl.map((g, i) => Math.abs(g - plain[i])))).toBeLessThanOrEqual(1e-12 * Math.max(1e-300, ...plain.map(Math.abs)));
    expect(a.metrics[0].loss).toBeCloseTo(b.metrics[0].loss, 6);
    // The frozen reference is the warm adapter, exposed for checkpoints.
    expect(trainer.referenceAdapter).not.toBeNull();

    // Anchored to the base model instead (referenceAdapter: null), the same step has KL > 0.
    const againWarm = await warm();
    const anchoredToBase = await new Trainer({ model: againWarm, dataset: f.dataset, executor: f.executor, referenceAdapter: null }, { ...SMALL_GRPO, steps: 1, seed: RUN_SEED, klBeta: 0.5 }).run();
    expect(anchoredToBase.metrics[0].kl).toBeGreaterThan(0);
  });
});
