/**
 * The float64 reference model: whole-sequence logits equal KV-cached prefill + decode step by step, for both
 * architectures and tied/untied heads; a LoRA adapter with B = 0 leaves logits bit-identical, a non-zero one changes
 * them exactly as merging scale·B·A into the base weight does; layers keep every activation a backward needs.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { createLoraAdapter, DEFAULT_LORA_CONFIG, loraScale, type LoraConfig } from '../../src/model/lora.ts';
import {
  createReferenceSession,
  emptyCache,
  modelForward,
  referenceLogits,
  toReferenceWeights,
} from '../../src/model/reference/model.ts';
import { maxAbsDiff } from '../../src/model/reference/ops.ts';
import { randomModelWeights, tinyModelConfig, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import { layerTensorNames, WeightShapeError, type Tensor } from '../../src/model/weights.ts';

// A smaller vocabulary keeps these tests fast; the tokenizer-sized model is exercised in tiny-model.test.ts.
const SMALL: Partial<TinyModelOptions> = { vocabSize: 512 };
const IDS = [3, 17, 400, 5, 5, 42, 311];

const VARIANTS: Array<[string, Partial<TinyModelOptions>]> = [
  ['qwen3 tied', { architecture: 'qwen3', tieWordEmbeddings: true }],
  ['qwen3 untied, MHA (KVH = H)', { architecture: 'qwen3', tieWordEmbeddings: false, numKvHeads: 4 }],
  ['qwen3, head size ≠ C/H', { architecture: 'qwen3', headDim: 8, numHeads: 4, numKvHeads: 1 }],
  ['qwen2 tied', { architecture: 'qwen2', tieWordEmbeddings: true }],
  ['qwen2 untied', { architecture: 'qwen2', tieWordEmbeddings: false, numLayers: 3 }],
];

function setup(options: Partial<TinyModelOptions>, seed = 1) {
  const config = tinyModelConfig({ ...SMALL, ...options });
  const tensors = randomModelWeights(config, createRng(seed));
  return { config, tensors, weights: toReferenceWeights(config, tensors) };
}

describe('reference model: full sequence vs KV cache', () => {
  it.each(VARIANTS)('%s: prefill + decode logits equal the full-sequence logits', (_name, options) => {
    const { config, weights } = setup(options);
    const V = config.vocabSize;
    const full = referenceLogits(config, weights, IDS);
    expect(full.length).toBe(IDS.length * V);
    expect(full.every(Number.isFinite)).toBe(true);

    const session = createReferenceSession(config, weights);
    const split = 3;
    const last = session.prefill(IDS.slice(0, split));
    expect(maxAbsDiff(last, full.subarray((split - 1) * V, split * V))).toBeLessThan(1e-12);
    for (let t = split; t < IDS.length; t++) {
      const step = session.decode(IDS[t]);
      expect(maxAbsDiff(step, full.subarray(t * V, (t + 1) * V))).toBeLessThan(1e-12);
    }
    expect(session.length).toBe(IDS.length);
    // append() continues a sequence with several tokens; prefill() starts over.
    const again = createReferenceSession(config, weights);
    again.prefill(IDS.slice(0, 2));
    expect(maxAbsDiff(again.append(IDS.slice(2)), full.subarray((IDS.length - 1) * V))).toBeLessThan(1e-12);
    expect(maxAbsDiff(again.prefill(IDS.slice(0, 1)), full.subarray(0, V))).toBeLessThan(1e-12);
    expect(again.length).toBe(1);
  });

  it('is causal: logits of a prefix do not depend on later tokens', () => {
    const { config, weights } = setup({});
    const V = config.vocabSize;
    const a = referenceLogits(config, weights, [1, 2, 3, 4]);
    const b = referenceLogits(config, weights, [1, 2, 9, 9]);
    expect(maxAbsDiff(a.subarray(0, 2 * V), b.subarray(0, 2 * V))).toBe(0);
    expect(maxAbsDiff(a.subarray(2 * V), b.subarray(2 * V))).toBeGreaterThan(1e-3);
  });

  it('takes the raw tensor map too, and refuses ids outside the vocabulary', () => {
    const { config, tensors, weights } = setup({});
    expect(maxAbsDiff(referenceLogits(config, tensors, [1, 2]), referenceLogits(config, weights, [1, 2]))).toBe(0);
    expect(() => referenceLogits(config, weights, [config.vocabSize])).toThrow(/outside the vocabulary/);
    expect(() => referenceLogits(config, weights, [])).toThrow(/no token ids/);
  });

  it('names the tensor when a weight has the wrong shape', () => {
    const { config, tensors } = setup({});
    const bad = new Map(tensors);
    const name = layerTensorNames(1).kProj;
    bad.set(name, { shape: [7, 64], data: new Float32Array(7 * 64) });
    expect(() => toReferenceWeights(config, bad)).toThrow(WeightShapeError);
    expect(() => toReferenceWeights(config, bad)).toThrow(name);
  });

  it('keeps every activation of every layer (the backward pass reads them)', () => {
    const { config, weights } = setup({ architecture: 'qwen3' });
    const r = modelForward(config, weights, null, emptyCache(config), IDS);
    const { hiddenSize: C, numHeads: H, numKvHeads: KVH, headDim: D, intermediateSize: I } = config;
    const T = IDS.length;
    expect(r.layers).toHaveLength(config.numLayers);
    const a = r.layers[1];
    expect(a.x).toBe(r.layers[0].out);
    expect([a.ln1.length, a.q.length, a.k.length, a.qr.length, a.kr.length]).toEqual([T * C, T * H * D, T * KVH * D, T * H * D, T * KVH * D]);
    expect([a.gate.length, a.act.length, a.out.length]).toEqual([T * I, T * I, T * C]);
    expect(a.positions).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('reference model with LoRA', () => {
  const lora: LoraConfig = { ...DEFAULT_LORA_CONFIG, rank: 4, alpha: 8 };

  it.each(VARIANTS)('%s: B = 0 gives exactly the base logits', (_name, options) => {
    const { config, weights } = setup(options);
    const adapter = createLoraAdapter(config, lora, createRng(9));
    expect(maxAbsDiff(referenceLogits(config, weights, IDS, adapter), referenceLogits(config, weights, IDS))).toBe(0);
  });

  it.each(VARIANTS)('%s: a non-zero adapter equals its merged weights W + scale·B·A', (_name, options) => {
    const { config, tensors, weights } = setup(options);
    const adapter = createLoraAdapter(config, lora, createRng(9), (rng) => (rng.next() * 2 - 1) * 0.2);
    const withLora = referenceLogits(config, weights, IDS, adapter);
    const base = referenceLogits(config, weights, IDS);
    expect(maxAbsDiff(withLora, base)).toBeGreaterThan(1e-3);

    // Merge: W'(out,in) = W + scale · B(out,R) · A(R,in), in float64.
    const merged = new Map<string, Tensor>(tensors);
    const scale = loraScale(lora);
    adapter.layers.forEach((layer, i) => {
      for (const [p, pair] of Object.entries(layer)) {
        const module = ['gate_proj', 'up_proj', 'down_proj'].includes(p) ? 'mlp' : 'self_attn';
        const name = `model.layers.${i}.${module}.${p}.weight`;
        const w = tensors.get(name)!;
        const [out, inp] = w.shape;
        const data = Float64Array.from(w.data);
        for (let o = 0; o < out; o++) {
          for (let k = 0; k < inp; k++) {
            let acc = 0;
            for (let r = 0; r < lora.rank; r++) acc += pair.b.data[o * lora.rank + r] * pair.a.data[r * inp + k];
            data[o * inp + k] += scale * acc;
          }
        }
        merged.set(name, { shape: w.shape, data });
      }
    });
    expect(maxAbsDiff(withLora, referenceLogits(config, merged, IDS))).toBeLessThan(1e-10);

    // And the KV-cached session agrees with LoRA on.
    const session = createReferenceSession(config, weights, adapter);
    session.prefill(IDS.slice(0, 4));
    const V = config.vocabSize;
    expect(maxAbsDiff(session.decode(IDS[4]), withLora.subarray(4 * V, 5 * V))).toBeLessThan(1e-12);
  });
});
