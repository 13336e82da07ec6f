/**
 * The ONNX export (src/model/onnx/qwen.ts) run by onnxruntime-node (the CPU runtime transformers.js uses in Node)
 * against the float64 reference: the prefill's logits at every position and two KV-cached decode steps (feeding the
 * `present.*` outputs back as `past_key_values.*`, as transformers.js does) agree within 1e-4 absolute (logits of a
 * few units; f32 arithmetic), for each architecture option; a left-padded batch of two sequences gives each sequence
 * the logits it has alone (padding mask); the graph uses only standard ONNX ops of opset 17; a model too big for one
 * protobuf is refused.
 */
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { exportQwenOnnx, OnnxExportError, ONNX_OPSET, qwenOnnxGraph, pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../src/model/onnx/qwen.ts';
import { createReferenceSession, referenceLogits } from '../../src/model/reference/model.ts';
import { randomModelWeights, tinyModelConfig, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import { maxDiff } from './logit-compare.ts';

const TOLERANCE = 1e-4;
const MAX_POSITIONS = 64;
const SMALL: Partial<TinyModelOptions> = { vocabSize: 512 };

const VARIANTS: Array<[string, Partial<TinyModelOptions>]> = [
  ['qwen3 tied (GQA 4/2)', { architecture: 'qwen3', tieWordEmbeddings: true }],
  ['qwen3 untied, head size ≠ C/H, GQA 4/1', { architecture: 'qwen3', tieWordEmbeddings: false, headDim: 8, numKvHeads: 1 }],
  ['qwen2 tied (qkv bias)', { architecture: 'qwen2', tieWordEmbeddings: true }],
  ['qwen2 untied, MHA, 3 layers', { architecture: 'qwen2', tieWordEmbeddings: false, numKvHeads: 4, numLayers: 3 }],
];

type Feeds = Record<string, ort.Tensor>;
const i64 = (values: readonly number[], dims: readonly number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

function emptyPast(config: ModelConfig, batch: number): Feeds {
  const feeds: Feeds = {};
  for (let l = 0; l < config.numLayers; l++) {
    for (const name of [pastKeyName(l), pastValueName(l)]) feeds[name] = new ort.Tensor('float32', new Float32Array(0), [batch, config.numKvHeads, 0, config.headDim]);
  }
  return feeds;
}

/** The next call's past: this call's present outputs, renamed. */
function pastFrom(config: ModelConfig, out: ort.InferenceSession.ReturnType): Feeds {
  const feeds: Feeds = {};
  for (let l = 0; l < config.numLayers; l++) {
    feeds[pastKeyName(l)] = out[presentKeyName(l)];
    feeds[pastValueName(l)] = out[presentValueName(l)];
  }
  return feeds;
}

async function session(options: Partial<TinyModelOptions>, seed: number) {
  const config = tinyModelConfig({ ...SMALL, ...options });
  const tensors = randomModelWeights(config, createRng(seed));
  const bytes = exportQwenOnnx(config, tensors, { maxPositions: MAX_POSITIONS });
  return { config, tensors, bytes, session: await ort.InferenceSession.create(bytes) };
}

describe('ONNX export vs float64 reference (onnxruntime-node)', () => {
  it.each(VARIANTS)('%s: prefill logits at every position, then two cached decode steps', async (_name, options) => {
    const { config, tensors, session: s } = await session(options, 7);
    const V = config.vocabSize;
    const ids = [3, 17, 400, 5, 5, 42, 311];
    const T = ids.length;
    const prefill = await s.run({ input_ids: i64(ids, [1, T]), attention_mask: i64(ids.map(() => 1), [1, T]), position_ids: i64(ids.map((_, t) => t), [1, T]), ...emptyPast(config, 1) });
    expect(prefill.logits.dims).toEqual([1, T, V]);
    expect(prefill[presentKeyName(0)].dims).toEqual([1, config.numKvHeads, T, config.headDim]);
    const diffs = [maxDiff(prefill.logits.data as Float32Array, referenceLogits(config, tensors, ids))];

    const ref = createReferenceSession(config, tensors);
    ref.prefill(ids);
    let past = pastFrom(config, prefill);
    for (const [step, id] of [101, 7].entries()) {
      const S = T + step + 1;
      const out = await s.run({ input_ids: i64([id], [1, 1]), attention_mask: i64(Array<number>(S).fill(1), [1, S]), position_ids: i64([S - 1], [1, 1]), ...past });
      expect(out[presentValueName(config.numLayers - 1)].dims).toEqual([1, config.numKvHeads, S, config.headDim]);
      diffs.push(maxDiff(out.logits.data as Float32Array, ref.decode(id)));
      past = pastFrom(config, out);
    }
    console.log(`${_name}: max |logit − reference| prefill ${diffs[0].toExponential(2)}, decode ${diffs.slice(1).map((d) => d.toExponential(2)).join(', ')} (tolerance ${TOLERANCE})`);
    for (const d of diffs) expect(d).toBeLessThan(TOLERANCE);
  });

  it('a left-padded batch gives each sequence its own logits (padding mask, position_ids)', async () => {
    const { config, tensors, session: s } = await session({ architecture: 'qwen3' }, 11);
    const V = config.vocabSize;
    const long = [9, 8, 7, 6, 5];
    const short = [40, 41, 42];
    const pad = long.length - short.length;
    const mask = [...long.map(() => 1), ...Array<number>(pad).fill(0), ...short.map(() => 1)];
    // transformers.js's position ids: cumsum(mask) − 1, padding filled with 1.
    const positions = [0, 1, 2, 3, 4, 1, 1, 0, 1, 2];
    const padded = [...long, ...Array<number>(pad).fill(0), ...short];
    const prefill = await s.run({ input_ids: i64(padded, [2, 5]), attention_mask: i64(mask, [2, 5]), position_ids: i64(positions, [2, 5]), ...emptyPast(config, 2) });
    const logits = prefill.logits.data as Float32Array;
    const refLong = referenceLogits(config, tensors, long);
    const refShort = referenceLogits(config, tensors, short);
    expect(maxDiff(logits.subarray(0, 5 * V), refLong)).toBeLessThan(TOLERANCE);
    expect(maxDiff(logits.subarray((5 + pad) * V, 10 * V), refShort)).toBeLessThan(TOLERANCE);

    // One decode step for both: each row's mask grows by a 1, positions continue per sequence.
    const step = await s.run({ input_ids: i64([1, 2], [2, 1]), attention_mask: i64([...mask.slice(0, 5), 1, ...mask.slice(5), 1], [2, 6]), position_ids: i64([5, 3], [2, 1]), ...pastFrom(config, prefill) });
    const out = step.logits.data as Float32Array;
    const a = createReferenceSession(config, tensors);
    a.prefill(long);
    const b = createReferenceSession(config, tensors);
    b.prefill(short);
    expect(maxDiff(out.subarray(0, V), a.decode(1))).toBeLessThan(TOLERANCE);
    expect(maxDiff(out.subarray(V, 2 * V), b.decode(2))).toBeLessThan(TOLERANCE);
  });

  it('uses only standard ONNX ops of opset 17', () => {
    const config = tinyModelConfig({ ...SMALL, architecture: 'qwen2' });
    const graph = qwenOnnxGraph(config, randomModelWeights(config, createRng(3)), { maxPositions: MAX_POSITIONS });
    const standard = ['Gather', 'Unsqueeze', 'Slice', 'Neg', 'Concat', 'Add', 'Mul', 'Div', 'Sqrt', 'ReduceMean', 'MatMul', 'Reshape', 'Transpose', 'Softmax', 'Where', 'Sigmoid', 'Shape', 'Range', 'Sub', 'LessOrEqual', 'Cast', 'And', 'Tile', 'Gemm'];
    expect(ONNX_OPSET).toBe(17);
    for (const node of graph.nodes) expect(standard).toContain(node.opType);
  });

  it('refuses a model over protobuf\'s 2 GiB, naming the size', () => {
    const config = tinyModelConfig({ ...SMALL, architecture: 'qwen3' });
    const tensors = randomModelWeights(config, createRng(3));
    expect(() => exportQwenOnnx(config, tensors, { maxPositions: 2 ** 24 })).toThrow(OnnxExportError);
    expect(() => exportQwenOnnx(config, tensors, { maxPositions: 2 ** 24 })).toThrow(/2\.00 GiB\) exceed protobuf's 2 GiB/);
  });
});
