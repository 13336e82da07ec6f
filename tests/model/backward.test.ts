/**
 * The reference backward against central finite differences, through the whole model: the loss is a weighted sum
 * of chosen tokens' log-probabilities (the shape of both the SFT and the GRPO losses), and every LoRA A and B entry
 * of every projection of every layer is checked, for Qwen3 (q/k norms) and Qwen2 (biases), GQA and tied/untied
 * heads. Also the token log-prob op on its own.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { createLoraAdapter, DEFAULT_LORA_CONFIG } from '../../src/model/lora.ts';
import { modelBackward, zeroLoraGrads } from '../../src/model/reference/backward.ts';
import { emptyCache, modelForward, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import { maxAbsDiff, randomArray, tokenLogProbsBackwardRef, tokenLogProbsRef } from '../../src/model/reference/ops.ts';
import { randomModelWeights, tinyModelConfig, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import { PROJECTIONS } from '../../src/model/weights.ts';

const SMALL: Partial<TinyModelOptions> = { vocabSize: 64, hiddenSize: 16, numHeads: 4, numKvHeads: 2, headDim: 4, intermediateSize: 24 };
const IDS = [1, 7, 33, 7, 60];
const TARGETS = [7, 33, 7, 60, 2];
const WEIGHTS = [0.5, -1, 2, 1, -0.3]; // per-token loss weights (advantages)

describe('token log-probabilities', () => {
  it('gathers log softmax and back-propagates onehot − softmax', () => {
    const rng = createRng(3);
    const [M, V] = [3, 5];
    const logits = randomArray(rng, M * V, 2);
    const targets = [4, 0, 2];
    const dout = Float64Array.from([1, -0.5, 2]);
    const out = new Float64Array(M);
    tokenLogProbsRef(out, logits, targets, M, V);
    expect(out[0]).toBeCloseTo(logits[4] - Math.log(Array.from(logits.subarray(0, 5), Math.exp).reduce((a, b) => a + b)), 12);
    const dl = new Float64Array(M * V);
    tokenLogProbsBackwardRef(dl, dout, logits, targets, M, V);
    const h = 1e-6;
    for (let i = 0; i < M * V; i++) {
      const keep = logits[i];
      const f = (x: number): number => {
        logits[i] = x;
        tokenLogProbsRef(out, logits, targets, M, V);
        return out.reduce((s, v, m) => s + v * dout[m], 0);
      };
      const numeric = (f(keep + h) - f(keep - h)) / (2 * h);
      logits[i] = keep;
      expect(Math.abs(numeric - dl[i])).toBeLessThan(1e-8);
    }
  });
});

const VARIANTS: Array<[string, Partial<TinyModelOptions>]> = [
  ['qwen3 tied', { architecture: 'qwen3' }],
  ['qwen3 untied, MHA', { architecture: 'qwen3', tieWordEmbeddings: false, numKvHeads: 4 }],
  ['qwen2 tied', { architecture: 'qwen2', headDim: 4 }],
  ['qwen2 untied, 3 layers, KVH 1', { architecture: 'qwen2', tieWordEmbeddings: false, numLayers: 3, numKvHeads: 1 }],
];

describe('whole-model LoRA gradients vs finite differences', () => {
  it.each(VARIANTS)('%s', (_name, options) => {
    const config = tinyModelConfig({ ...SMALL, ...options });
    const weights = toReferenceWeights(config, randomModelWeights(config, createRng(1)));
    const adapter = createLoraAdapter(config, { ...DEFAULT_LORA_CONFIG, rank: 2, alpha: 3 }, createRng(2), (rng) => (rng.next() - 0.5) * 0.5);
    const lora = toReferenceLora(adapter); // shares the adapter's f64 arrays, so perturbing them moves the model
    const V = config.vocabSize;
    const T = IDS.length;
    const w = Float64Array.from(WEIGHTS);

    const loss = (): number => {
      const f = modelForward(config, weights, lora, emptyCache(config), IDS);
      const lp = new Float64Array(T);
      tokenLogProbsRef(lp, f.logits, TARGETS, T, V);
      return lp.reduce((s, v, t) => s + v * w[t], 0);
    };

    const forward = modelForward(config, weights, lora, emptyCache(config), IDS);
    const dlogits = new Float64Array(T * V);
    tokenLogProbsBackwardRef(dlogits, w, forward.logits, TARGETS, T, V);
    const grads = zeroLoraGrads(lora);
    modelBackward(config, weights, lora, grads, forward, dlogits);

    let worst = 0;
    let largest = 0;
    const h = 1e-5;
    lora.forEach((layer, l) => {
      for (const p of PROJECTIONS) {
        const pair = layer[p]!;
        const g = grads[l][p]!;
        for (const [param, grad] of [[pair.a, g.da], [pair.b, g.db]] as const) {
          const numeric = new Float64Array(param.length);
          for (let i = 0; i < param.length; i++) {
            const keep = param[i];
            param[i] = keep + h;
            const up = loss();
            param[i] = keep - h;
            const down = loss();
            param[i] = keep;
            numeric[i] = (up - down) / (2 * h);
          }
          worst = Math.max(worst, maxAbsDiff(grad, numeric));
          largest = Math.max(largest, ...Array.from(numeric, Math.abs));
        }
      }
    });
    expect(largest).toBeGreaterThan(1e-2); // the check is not vacuous
    expect(worst).toBeLessThan(1e-7);
  });

  it('accumulates: two backward calls give twice the gradient', () => {
    const config = tinyModelConfig({ ...SMALL });
    const weights = toReferenceWeights(config, randomModelWeights(config, createRng(1)));
    const lora = toReferenceLora(createLoraAdapter(config, { ...DEFAULT_LORA_CONFIG, rank: 2 }, createRng(2), (rng) => rng.next() - 0.5));
    const forward = modelForward(config, weights, lora, emptyCache(config), IDS);
    const dlogits = randomArray(createRng(4), IDS.length * config.vocabSize, 1);
    const once = zeroLoraGrads(lora);
    modelBackward(config, weights, lora, once, forward, dlogits);
    const twice = zeroLoraGrads(lora);
    modelBackward(config, weights, lora, twice, forward, dlogits);
    modelBackward(config, weights, lora, twice, forward, dlogits);
    const a = once[1].up_proj!.da.map((x) => 2 * x);
    expect(maxAbsDiff(a, twice[1].up_proj!.da)).toBeLessThan(1e-12);
  });
});
