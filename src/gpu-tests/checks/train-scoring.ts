/**
 * `GpuTrainableModel`'s scoring for GRPO (src/train/gpu-model.ts), on the toy model (f16 weights) against the float64
 * reference model (src/train/reference-model.ts) holding the same adapter:
 * - temperature: scores and adapter gradients at T = 0.6 (the final norm's γ uploaded as γ / T) match the
 *   reference's log-softmax(logits / T) and its gradient — far closer than the T = 1 values they replace (the f16
 *   weights keep the match from being exact, so the check asks for both);
 * - greedy decoding after a T ≠ 1 forward gives the tokens it gave before (γ is put back for sampling);
 * - KL reference: with a reference adapter set, a reference forward equals the live forward of that adapter loaded
 *   as live (bit for bit), and the live adapter is back afterwards (the next live forward is unchanged, bit for bit).
 */
import type { GpuContext } from '../../gpu/device.ts';
import { createRng } from '../../data/rng.ts';
import { createLoraAdapter, type LoraAdapter } from '../../model/lora.ts';
import type { ScoredSequence } from '../../train/policy-model.ts';
import { ReferenceTrainableModel } from '../../train/reference-model.ts';
import { TOY_CONTEXT_TOKENS, TOY_LORA } from '../../train/toy-run.ts';
import { compareExact, type Comparison } from '../compare.ts';
import { toyGpuModel, toySetup } from '../toy-gpu.ts';
import { property } from './train-engine.ts';

const T = 0.6;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function flatAdapterGrads(layers: ReadonlyArray<Partial<Record<string, { a: ArrayLike<number>; b: ArrayLike<number> }>>>): number[] {
  return layers.flatMap((layer) => Object.keys(layer).sort().flatMap((p) => [...Array.from(layer[p]!.a), ...Array.from(layer[p]!.b)]));
}

export async function checkTrainScoring(ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> {
  const s = await toySetup();
  const rng = createRng(seed);
  const adapterOf = (k: number): LoraAdapter => createLoraAdapter(s.config, TOY_LORA, createRng(seed + k), (r) => 0.3 * (r.next() * 2 - 1));
  const live = adapterOf(1);
  const frozen = adapterOf(2);
  const V = s.tokenizer.size;
  const batch: ScoredSequence[] = [0, 1].map(() => {
    const tokenIds = Array.from({ length: 24 }, () => Math.floor(rng.next() * V));
    return { tokenIds, lossMask: Uint8Array.from(tokenIds, (_, t) => (t >= 8 ? 1 : 0)) };
  });
  const dlogprob = Float32Array.from({ length: 32 }, () => rng.next() * 2 - 1);
  const cpu = new ReferenceTrainableModel(s.config, s.weights, s.tokenizer, { lora: TOY_LORA, seed, contextTokens: TOY_CONTEXT_TOKENS });
  cpu.loadAdapter(live);
  const gpu = await toyGpuModel(ctx, s, { rolloutSlots: 2, contextTokens: 32, microBatchTokens: 48 }); // small plan: the check is about scoring, not batching
  const out: Comparison[] = [];
  try {
    gpu.loadAdapter(live);
    const shape = `toy model, 2 × 24 tokens, 32 scored, T = ${T}`;
    const prompt = { promptTokenIds: batch[0].tokenIds.slice(0, 8), maxNewTokens: 6, temperature: 0, topP: 1, seed: 1 };
    const greedyBefore = (await gpu.generate([prompt]))[0].tokenIds;

    // Scores and gradients at T.
    const atT = await gpu.forward(batch, { temperature: T });
    await gpu.backward(dlogprob);
    const gpuGrad = flatAdapterGrads(await gpu.trainer.readLoraGrads());
    await gpu.optimizerStep({ lr: 0, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, step: 1, maxGradNorm: 0 });
    gpu.loadAdapter(live); // lr 0 leaves it, but say so
    const cpuT = cpu.score64(batch, { temperature: T });
    await cpu.backward(dlogprob);
    const cpuGrad = flatAdapterGrads(cpu.grads.map((l) => Object.fromEntries(Object.entries(l).map(([p, g]) => [p, { a: g.da, b: g.db }]))));
    await cpu.optimizerStep({ lr: 0, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, step: 1, maxGradNorm: 0 });
    const cpu1 = cpu.score64(batch);
    const scoreErr = maxDiff(atT, cpuT);
    const scoreMove = maxDiff(cpu1, cpuT);
    note(`scores: |gpu(T) − ref(T)| ≤ ${scoreErr.toExponential(2)}, |ref(1) − ref(T)| = ${scoreMove.toExponential(2)}`);
    out.push(property('scores at T match the reference at T (≤ 2e-2 and ≤ 5% of the T = 1 difference)', shape, scoreErr <= 2e-2 && scoreErr <= 0.05 * scoreMove, scoreErr));
    const scale = Math.max(...cpuGrad.map(Math.abs));
    const gradErr = maxDiff(gpuGrad, cpuGrad) / scale;
    note(`gradients: max |gpu − ref| / max |ref| = ${gradErr.toExponential(2)}`);
    out.push(property('adapter gradients at T match the reference (relative ≤ 5e-2)', shape, gradErr <= 5e-2, gradErr));

    // Sampling sees γ again.
    const greedyAfter = (await gpu.generate([prompt]))[0].tokenIds;
    out.push(property('greedy tokens after a T ≠ 1 forward are the ones before', 'toy model, 6 new tokens', greedyAfter.join() === greedyBefore.join(), 0));

    // The KL reference: swapped in and out.
    const liveScores = await gpu.forward(batch);
    gpu.setReferenceAdapter(frozen);
    const refScores = await gpu.forward(batch, { reference: true });
    const liveAgain = await gpu.forward(batch);
    gpu.loadAdapter(frozen);
    const frozenAsLive = await gpu.forward(batch);
    out.push(compareExact('reference forward == the reference adapter loaded as live', shape, refScores, frozenAsLive));
    out.push(compareExact('live forward after a reference forward == before it', shape, liveAgain, liveScores));
    out.push(property('the reference adapter changes the scores', shape, maxDiff(refScores, liveScores) > 1e-3, maxDiff(refScores, liveScores)));
    return out;
  } finally {
    gpu.destroy();
  }
}
