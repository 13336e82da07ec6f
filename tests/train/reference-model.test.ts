/**
 * The CPU `TrainableModel` (src/train/reference-model.ts) on a tiny random Qwen3 (V = 48): scores equal the
 * reference model's log-softmax, the adapter switch, the backward against central finite differences of the scores
 * through adapter entries (relative error < 1e-5), gradient accumulation, seeded generation whose reported
 * log-probs are the scores of the sampled tokens, and the sampler's top-p cut.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { DEFAULT_LORA_CONFIG } from '../../src/model/lora.ts';
import { referenceLogits } from '../../src/model/reference/model.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { ReferenceTrainableModel, sampleToken } from '../../src/train/reference-model.ts';
import { createPhraseTokenizer } from '../../src/train/toy-task.ts';

const tokenizer = createPhraseTokenizer(Array.from({ length: 40 }, (_, i) => `w${i} `));
const config = tinyModelConfig({ vocabSize: 48, numLayers: 2, hiddenSize: 16, numHeads: 2, numKvHeads: 1, headDim: 8, intermediateSize: 32 });
const weights = randomModelWeights(config, createRng(3));
const lora = { ...DEFAULT_LORA_CONFIG, rank: 2, alpha: 4 };
const make = () => new ReferenceTrainableModel(config, weights, tokenizer, { lora, seed: 5, bInit: (rng) => 0.2 * (rng.next() * 2 - 1) });

const seqA = { tokenIds: [3, 9, 14, 2, 30, 31, 7], lossMask: Uint8Array.from([0, 0, 1, 1, 0, 1, 1]) };
const seqB = { tokenIds: [5, 6, 40, 41], lossMask: Uint8Array.from([0, 1, 0, 1]) };

function logSoftmax(row: Float64Array, V: number, r: number, target: number): number {
  let m = -Infinity;
  for (let v = 0; v < V; v++) m = Math.max(m, row[r * V + v]);
  let s = 0;
  for (let v = 0; v < V; v++) s += Math.exp(row[r * V + v] - m);
  return row[r * V + target] - m - Math.log(s);
}

describe('ReferenceTrainableModel', () => {
  it('scores masked tokens with the reference log-softmax, adapter on or off', async () => {
    const model = make();
    for (const adapter of [true, false]) {
      const scores = await model.forward([seqA, seqB], { adapter });
      const expected: number[] = [];
      for (const s of [seqA, seqB]) {
        const logits = referenceLogits(config, weights, s.tokenIds, adapter ? model.adapter : undefined);
        for (let t = 1; t < s.tokenIds.length; t++) if (s.lossMask[t]) expected.push(logSoftmax(logits, 48, t - 1, s.tokenIds[t]));
      }
      expect(scores.length).toBe(6);
      scores.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 5));
    }
    const on = await model.forward([seqA]);
    const off = await model.forward([seqA], { adapter: false });
    expect(Math.max(...on.map((v, i) => Math.abs(v - off[i])))).toBeGreaterThan(1e-3); // the non-zero B matters
  });

  it('backward gives the gradient of Σ w·score (finite differences through A and B)', async () => {
    const model = make();
    const w = Float32Array.from([0.7, -1.3, 0.4, 2.0, -0.5, 1.1]);
    model.score64([seqA, seqB]);
    await model.backward(w);
    const objective = () => {
      const s = model.score64([seqA, seqB]);
      return s.reduce((a, v, i) => a + v * w[i], 0);
    };
    const h = 1e-5;
    const cases = [
      { p: 'q_proj', which: 'a', layer: 0, i: 3 },
      { p: 'down_proj', which: 'b', layer: 1, i: 5 },
      { p: 'v_proj', which: 'b', layer: 0, i: 1 },
      { p: 'gate_proj', which: 'a', layer: 1, i: 7 },
    ] as const;
    for (const c of cases) {
      const pair = model.adapter.layers[c.layer][c.p]!;
      const data = (c.which === 'a' ? pair.a : pair.b).data as Float64Array;
      const old = data[c.i];
      data[c.i] = old + h;
      const up = objective();
      data[c.i] = old - h;
      const down = objective();
      data[c.i] = old;
      const fd = (up - down) / (2 * h);
      const g = model.grads[c.layer][c.p]!;
      const analytic = (c.which === 'a' ? g.da : g.db)[c.i];
      expect(Math.abs(analytic - fd)).toBeLessThan(1e-5 * Math.max(1e-3, Math.abs(fd)) + 1e-9);
    }
  });

  it('accumulates gradients over calls, and the optimizer step zeroes them (lr 0 leaves the adapter as it was)', async () => {
    const model = make();
    await model.forward([seqA]);
    await model.backward(new Float32Array(4).fill(1));
    const once = model.gradNorm();
    await model.forward([seqA]);
    await model.backward(new Float32Array(4).fill(1));
    expect(model.gradNorm()).toBeCloseTo(2 * once, 10);
    const before = Float64Array.from(model.adapter.layers[0].q_proj!.a.data);
    const { gradNorm } = await model.optimizerStep({ lr: 0, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, step: 1, maxGradNorm: 1 });
    expect(gradNorm).toBeCloseTo(2 * once, 10);
    expect(model.gradNorm()).toBe(0);
    expect(Array.from(model.adapter.layers[0].q_proj!.a.data)).toEqual(Array.from(before));
    await expect(model.backward(new Float32Array(4))).rejects.toThrow(/no forward/);
  });

  it('generates the same tokens for the same seed, with log-probs equal to the scores at temperature 1', async () => {
    const model = make();
    const request = { promptTokenIds: [1, 9, 10, 11], maxNewTokens: 6, temperature: 1, topP: 1, seed: 42 };
    const [a] = await model.generate([request]);
    const [b] = await model.generate([request]);
    expect(a.tokenIds).toEqual(b.tokenIds);
    expect(a.tokenIds.length).toBeGreaterThan(0);
    const ids = [...request.promptTokenIds, ...a.tokenIds];
    const mask = ids.map((_, t) => (t >= request.promptTokenIds.length ? 1 : 0));
    const scores = model.score64([{ tokenIds: ids, lossMask: mask }]);
    a.logProbs.forEach((lp, i) => expect(lp).toBeCloseTo(scores[i], 9));
    const [greedy] = await model.generate([{ ...request, temperature: 0, maxNewTokens: 1 }]);
    const logits = referenceLogits(config, weights, request.promptTokenIds, model.adapter);
    const last = logits.subarray((request.promptTokenIds.length - 1) * 48);
    expect(greedy.tokenIds[0]).toBe(last.indexOf(Math.max(...last)));
    expect(greedy.logProbs[0]).toBe(0);
  });

  it('samples from the top-p set only, reporting log-probs renormalised over it', () => {
    const logits = Float64Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);
    const rng = createRng(9);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const s = sampleToken(logits, 1, 0.75, rng);
      counts[s.token]++;
      expect(s.logProb).toBeCloseTo(Math.log(s.token === 0 ? 0.5 / 0.8 : 0.3 / 0.8), 9);
    }
    expect(counts[2] + counts[3]).toBe(0);
    expect(counts[0] / 4000).toBeGreaterThan(0.58); // 0.625 expected; 4000 draws: σ ≈ 0.008
    expect(counts[0] / 4000).toBeLessThan(0.67);
  });
  it('saves and restores its adapter and AdamW state: a restored copy takes the same next step', async () => {
    const adam = { lr: 0.05, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1, step: 1 };
    const first = make();
    await first.forward([seqA, seqB]);
    await first.backward(Float32Array.from({ length: 6 }, (_, i) => (i % 2 ? 1 : -0.5)));
    await first.optimizerStep(adam);
    const adapter = await first.readAdapter();
    const state = await first.readOptimizerState();
    const scratch = await first.readAdapter();
    scratch.layers[0].q_proj!.a.data[0] += 1; // a copy: the model's own values must not move
    expect(first.adapter.layers[0].q_proj!.a.data[0]).toBe(adapter.layers[0].q_proj!.a.data[0]);

    const copy = new ReferenceTrainableModel(config, weights, tokenizer, { lora, seed: 99 });
    copy.loadAdapter(adapter);
    copy.loadOptimizerState(state);
    for (const m of [first, copy]) {
      await m.forward([seqA]);
      await m.backward(Float32Array.from([1, -1, 0.5, 2]));
      await m.optimizerStep({ ...adam, step: 2 });
    }
    expect(await copy.readAdapter()).toEqual(await first.readAdapter());
    expect(await copy.readOptimizerState()).toEqual(await first.readOptimizerState());
    expect(await copy.forward([seqB])).toEqual(await first.forward([seqB]));
  });

  it('refuses an adapter or optimiser state of another shape, naming the layer and target', async () => {
    const model = make();
    const other = new ReferenceTrainableModel(config, weights, tokenizer, { lora: { ...lora, rank: 3 }, seed: 1 });
    expect(() => model.loadAdapter(other.adapter)).toThrow(/layer 0 q_proj/);
    const narrow = new ReferenceTrainableModel(config, weights, tokenizer, { lora: { ...lora, targetModules: ['q_proj'] }, seed: 1 });
    const narrowState = await narrow.readOptimizerState();
    expect(() => model.loadOptimizerState(narrowState)).toThrow(/layer 0 has targets q_proj/);
  });
});
