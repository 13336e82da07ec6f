/**
 * `GpuTrainableModel` (src/train/gpu-model.ts) on the toy task (src/train/toy-run.ts: tiny random Qwen3 with the toy
 * tokenizer's V = 31, 2 layers, C = 32, rank-4 LoRA), in the page with sql.js:
 * - train-model-api: batched `generate` (10 requests on 4 slots: three waves; greedy, temperature 1 and top-p 0.8 mixed
 *   in one batch) gives each request exactly the tokens and log-probs it gets alone; the sampled log-probs at
 *   temperature 1 equal `forward`'s scores of the same tokens (the logprobGap); `readAdapter` returns what
 *   `loadAdapter` uploaded and a second model with it scores identically; `readOptimizerState` / `loadOptimizerState`
 *   after one step make a second model's next step identical to the first's (resume); bad adapters are refused.
 * - train-learning-{grpo,sft}[-lr0]: the toy learning runs of tests/train/learning.test.ts on the GPU, with the same
 *   settings and thresholds: GRPO (30 steps, 4 prompts × G = 8, ≤ 2 turns of ≤ 3 tokens, lr 0.02) raises the mean
 *   reward of 64 fresh episodes by ≥ 0.3 and at least two questions with different answers reach ≥ 75 % success;
 *   SFT (30 steps, lr 0.01) lowers the held-back NLL by ≥ 25 %; with lr = 0 neither measure moves at all.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { createLoraAdapter, LoraConfigError, type LoraAdapter } from '../../model/lora.ts';
import type { GpuTrainableModel } from '../../train/gpu-model.ts';
import type { AdamWSettings, GenerateRequest, ScoredSequence } from '../../train/policy-model.ts';
import { describeToyRun, learnedAnswers, runToy, TOY_LORA, type ToySetup } from '../../train/toy-run.ts';
import type { TrainAlgo } from '../../train/types.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';
import { toyGpuModel, toySetup } from '../toy-gpu.ts';
import { property } from './train-engine.ts';

/** Sampled vs trainer log-probs: the same f32 logits, a different log-softmax kernel. */
const LOGPROB_GAP_TOL = { abs: 2e-5, rel: 1e-5 };

/** A rank-4 adapter with non-zero B (so it changes the model), as f32 values. */
function nonZeroAdapter(s: ToySetup, seed: number): LoraAdapter {
  const adapter = createLoraAdapter(s.config, TOY_LORA, createRng(seed), (r) => (r.next() * 2 - 1) * 0.5);
  for (const layer of adapter.layers) for (const pair of Object.values(layer)) for (const t of [pair.a, pair.b]) t.data = Float32Array.from(t.data);
  return adapter;
}

/** The adapter's tensors end to end (A then B of every pair, layer by layer). */
function flatten(adapter: LoraAdapter): Float32Array {
  return Float32Array.from(adapter.layers.flatMap((layer) => TOY_LORA.targetModules.flatMap((t) => [...layer[t]!.a.data, ...layer[t]!.b.data])));
}

/** Ten requests over the train questions' prompts: greedy, temperature 1 and top-p 0.8 mixed. */
function requests(s: ToySetup): GenerateRequest[] {
  const prompts = s.dataset.questions.map((q) => s.tokenizer.encodeChat([{ role: 'user', content: q.question }]));
  return Array.from({ length: 10 }, (_, i) => ({
    promptTokenIds: prompts[i % prompts.length],
    maxNewTokens: 6 + (i % 3),
    temperature: i % 4 === 0 ? 0 : 1,
    topP: i % 4 === 3 ? 0.8 : 1,
    seed: 1000 + 17 * i,
  }));
}

async function withModel<T>(ctx: GpuContext, s: ToySetup, slots: number, fn: (m: GpuTrainableModel) => Promise<T>): Promise<T> {
  const model = await toyGpuModel(ctx, s, { rolloutSlots: slots });
  try {
    return await fn(model);
  } finally {
    model.destroy();
  }
}

const ADAM: AdamWSettings = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, step: 1, maxGradNorm: 1 };

/** One update: forward, d(loss)/d(logprob) = −1 per token (mean NLL × n), backward, AdamW step `step`. */
async function update(m: GpuTrainableModel, batch: readonly ScoredSequence[], step: number): Promise<void> {
  const lp = await m.forward(batch);
  await m.backward(new Float32Array(lp.length).fill(-1 / lp.length));
  await m.optimizerStep({ ...ADAM, step });
}

export async function checkTrainModelApi(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const s = await toySetup();
  const adapter = nonZeroAdapter(s, seed);
  const reqs = requests(s);
  const results: Comparison[] = [];
  await withModel(ctx, s, 4, async (a) => {
    a.loadAdapter(adapter);
    results.push(compareExact('readAdapter == the adapter loaded', 'toy rank 4, 2 layers', flatten(await a.readAdapter()), flatten(adapter)));

    const batched = await a.generate(reqs);
    const single: typeof batched = [];
    for (const r of reqs) single.push(...(await a.generate([r])));
    const tokens = (g: typeof batched) => Float32Array.from(g.flatMap((x) => [...x.tokenIds, -1]));
    const logProbs = (g: typeof batched) => Float32Array.from(g.flatMap((x) => x.logProbs));
    results.push(compareExact('batched generate tokens == one request at a time', '10 requests, 4 slots (3 waves)', tokens(batched), tokens(single)));
    results.push(compareExact('batched generate log-probs == one request at a time', '10 requests, 4 slots (3 waves)', logProbs(batched), logProbs(single)));
    note(`generated lengths ${batched.map((g) => g.tokenIds.length).join(' ')}`);

    // The logprobGap: at temperature 1 without top-p the sampler's log-probs are the policy's scores.
    const plain = batched
      .map((g, i) => ({ g, r: reqs[i] }))
      .filter(({ r }) => r.temperature === 1 && r.topP === 1)
      .slice(0, 4); // one micro-batch of the 4 slots
    const seqs: ScoredSequence[] = plain.map(({ g, r }) => ({
      tokenIds: [...r.promptTokenIds, ...g.tokenIds],
      lossMask: [...r.promptTokenIds.map(() => 0), ...g.tokenIds.map(() => 1)],
    }));
    const scored = await a.forward(seqs);
    results.push(compare('sampled log-probs (T = 1) vs forward scores', `${seqs.length} replies`, plain.flatMap(({ g }) => g.logProbs), scored, LOGPROB_GAP_TOL));

    // Adapter round trip: a second model with the first's adapter scores the same tokens identically.
    const saved = await a.readAdapter();
    await withModel(ctx, s, 4, async (b) => {
      b.loadAdapter(saved);
      results.push(compareExact('loaded adapter: identical scores', `${seqs.length} replies`, await b.forward(seqs), scored));
    });

    // Optimizer state round trip: after step 1 on `a`, model `b` with a's adapter and moments takes the same step 2.
    await update(a, seqs, 1);
    const [afterOne, state] = [await a.readAdapter(), await a.readOptimizerState()];
    await withModel(ctx, s, 4, async (b) => {
      b.loadAdapter(afterOne);
      b.loadOptimizerState(state);
      await update(a, seqs, 2);
      await update(b, seqs, 2);
      const [fromA, fromB] = [flatten(await a.readAdapter()), flatten(await b.readAdapter())];
      results.push(compareExact('resumed step 2 == uninterrupted step 2 (adapter)', 'toy rank 4', fromB, fromA));
      const one = flatten(afterOne);
      results.push(property('step 2 moved the adapter', 'toy rank 4', fromA.some((x, i) => x !== one[i]), 0));
      const moments = (st: typeof state) => flatten({ config: st.config, layers: st.layers.map((l) => Object.fromEntries(Object.entries(l).map(([t, p]) => [t, { a: p.a.m, b: p.b.v }]))) });
      results.push(compareExact('resumed moments == uninterrupted moments', 'toy rank 4 (m of A, v of B)', moments(await b.readOptimizerState()), moments(await a.readOptimizerState())));
    });

    // Bad input: an adapter of another rank, a missing pair.
    const refused = (fn: () => void, field: string): boolean => {
      try {
        fn();
        return false;
      } catch (e) {
        note(`refused: ${(e as Error).message}`);
        return e instanceof LoraConfigError && e.field === field;
      }
    };
    const rank8 = createLoraAdapter(s.config, { ...TOY_LORA, rank: 8 }, createRng(1));
    results.push(property('an adapter of rank 8 is refused (LoraConfigError rank)', 'planned rank 4', refused(() => a.loadAdapter(rank8), 'rank'), 0));
    const holed: LoraAdapter = { config: adapter.config, layers: adapter.layers.map((l, i) => (i === 1 ? { ...l, up_proj: undefined } : l)) };
    results.push(property('an adapter missing a pair is refused (LoraConfigError up_proj)', 'layer 1 up_proj', refused(() => a.loadAdapter(holed), 'up_proj'), 0));
  });
  return results;
}

/** The toy learning run `algo` at its own lr (or 0) on a fresh GPU model, held to the CPU test's thresholds. */
function learningCheck(algo: TrainAlgo, zeroLr: boolean) {
  return async (ctx: GpuContext, _seed: number, note: (text: string) => void): Promise<Comparison[]> => {
    const s = await toySetup();
    const start = performance.now();
    const run = await withModel(ctx, s, 32, (m) => runToy(m, s, algo, zeroLr ? { lr: 0 } : {}));
    const m = run.result.metrics;
    note(`${zeroLr ? 'lr=0' : 'lr=default'}: ${describeToyRun(run)}`);
    note(`${m.length} steps in ${((performance.now() - start) / 1000).toFixed(1)} s; rollout ${sum(m, 'rollout').toFixed(1)} s, update ${sum(m, 'update').toFixed(1)} s; ${m.reduce((n, x) => n + x.tokens, 0)} tokens`);
    const gaps = m.map((x) => x.logprobGap).filter((x): x is number => x !== undefined);
    if (gaps.length > 0) note(`logprobGap per step: max ${Math.max(...gaps).toExponential(2)}`);
    const shape = `${algo} ${m.length} steps`;
    if (run.fresh) {
      const { before, after } = run.fresh;
      if (zeroLr) return [property('lr 0: fresh mean reward unchanged', shape, after.reward === before.reward, after.reward - before.reward)];
      return [
        property('fresh mean reward rises by ≥ 0.3', shape, after.reward - before.reward >= 0.3, after.reward - before.reward),
        property('≥ 2 questions with different answers at ≥ 75 % success', shape, learnedAnswers(after, s.dataset) >= 2, learnedAnswers(after, s.dataset)),
      ];
    }
    const { before, after } = run.heldBack!;
    if (zeroLr) return [property('lr 0: held-back NLL unchanged', shape, after === before, after - before)];
    return [property('held-back NLL falls by ≥ 25 %', shape, after < 0.75 * before, after / before)];
  };
}

function sum(metrics: ReadonlyArray<{ seconds: { rollout: number; update: number } }>, key: 'rollout' | 'update'): number {
  return metrics.reduce((n, x) => n + x.seconds[key], 0);
}

/** The checks of this file by harness name (src/gpu-tests/harness.ts spreads them into its map). */
export const TRAIN_LEARNING_CHECKS: Record<string, (ctx: GpuContext, seed: number, note: (text: string) => void) => Promise<Comparison[]>> = {
  'train-model-api': checkTrainModelApi,
  'train-learning-grpo': learningCheck('grpo', false),
  'train-learning-grpo-lr0': learningCheck('grpo', true),
  'train-learning-sft': learningCheck('sft', false),
  'train-learning-sft-lr0': learningCheck('sft', true),
};
