/**
 * The onnx-community layout (src/model/onnx/community.ts: MatMulNBits, GroupQueryAttention, RotaryEmbedding,
 * (Skip)SimplifiedLayerNormalization) run by onnxruntime-node — which has every one of those contrib ops in its CPU
 * build — against the float64 reference (src/model/reference): the prompt's logits at every position, then 16
 * KV-cached decode steps (present.* fed back as past_key_values.*) teacher-forced on the reference's greedy tokens,
 * so each step compares logits for the same prefix and the argmax wherever the reference's top-2 margin is large.
 *
 * Tolerances:
 *   fp32, and q4 with accuracy_level 0 (f32 activations) against the reference run on the q4 file's own dequantized
 *   weights: 1e-4 absolute, f32 arithmetic on logits of a few units (the same bound as the Optimum-layout test).
 *   q4 with accuracy_level 4 (the builder's value for cpu/webgpu: MLAS rounds each 32-value activation block to int8,
 *   step = block max / 127) against the same dequantized reference: the int8 step is 1/16 of the 4-bit weight step
 *   (block max / 8) relative to its block's largest value, and both errors enter the same products to first order,
 *   so the activation rounding moves logits by about 1/16 of what the weight rounding does. The weight rounding's
 *   effect is measured by the reference itself (original vs dequantized weights, max over the logits compared), and
 *   the bound allows 3× that / 16 for activations being heavier-tailed within a block than weights (SiLU·up).
 * Seeds are new on each run and printed (SQLENV_TEST_SEED=… replays one).
 */
import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import { communityOnnxFileName, communityOnnxGraph, exportCommunityOnnx, q4Checkpoint, type CommunityDtype } from '../../src/model/onnx/community.ts';
import { DataType } from '../../src/model/onnx/proto.ts';
import { quantizeQ4 } from '../../src/model/onnx/q4.ts';
import { OnnxExportError, pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../src/model/onnx/qwen.ts';
import { createReferenceSession, referenceLogits } from '../../src/model/reference/model.ts';
import { f16BitsToF32 } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import type { TensorMap } from '../../src/model/weights.ts';
import { maxDiff, top2 } from './logit-compare.ts';
import { testSeed } from '../fixtures/seed.ts';

const seed = testSeed('tests/model/onnx-community.test.ts');

const F32_TOLERANCE = 1e-4;
const MAX_POSITIONS = 64;
const STEPS = 16;
const SMALL: Partial<TinyModelOptions> = { vocabSize: 512 };

const VARIANTS: Array<[string, Partial<TinyModelOptions>]> = [
  ['qwen3 tied (GQA 4/2)', { architecture: 'qwen3', tieWordEmbeddings: true }],
  ['qwen3 untied, D=8, GQA 4/1', { architecture: 'qwen3', tieWordEmbeddings: false, headDim: 8, numKvHeads: 1 }],
  ['qwen2 tied (qkv bias), 3 layers', { architecture: 'qwen2', tieWordEmbeddings: true, numLayers: 3 }],
];

/** The two runtimes share onnxruntime-common's API: Node's native CPU build and the browser's WASM build. */
type Runtime = Pick<typeof ort, 'InferenceSession' | 'Tensor'>;
type Feeds = Record<string, ort.Tensor>;

interface Trace {
  /** (T,V) prompt logits, then one (V) row per decode step. */
  prompt: Float64Array | Float32Array;
  steps: Array<Float64Array | Float32Array>;
}

/** The reference's prompt logits and its greedy continuation (the tokens every backend is then fed). */
function referenceTrace(config: ModelConfig, tensors: TensorMap, prompt: readonly number[], tokens?: readonly number[]): Trace & { tokens: number[] } {
  const s = createReferenceSession(config, tensors);
  const all = referenceLogits(config, tensors, prompt);
  let last = s.prefill(prompt);
  const steps: Float64Array[] = [];
  const fed: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const id = tokens?.[i] ?? top2(last).index;
    fed.push(id);
    last = s.decode(id);
    steps.push(last);
  }
  return { prompt: all, steps, tokens: fed };
}

/** onnxruntime-node on the community graph: prompt (empty past), then the tokens one by one with the cache fed back. */
async function onnxTrace(config: ModelConfig, bytes: Uint8Array, prompt: readonly number[], tokens: readonly number[], runtime: Runtime = ort, f16 = false): Promise<Trace> {
  const s = await runtime.InferenceSession.create(bytes);
  const empty = () => (f16 ? new runtime.Tensor('float16', new Uint16Array(0), [1, config.numKvHeads, 0, config.headDim]) : new runtime.Tensor('float32', new Float32Array(0), [1, config.numKvHeads, 0, config.headDim]));
  const i64 = (values: readonly number[]) => new runtime.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);
  let past: Feeds = {};
  for (let l = 0; l < config.numLayers; l++) {
    for (const name of [pastKeyName(l), pastValueName(l)]) past[name] = empty();
  }
  const run = async (ids: readonly number[], start: number) => {
    const S = start + ids.length;
    const out = await s.run({ input_ids: i64(ids), attention_mask: i64(Array<number>(S).fill(1)), position_ids: i64(ids.map((_, t) => start + t)), ...past });
    expect(out.logits.dims).toEqual([1, ids.length, config.vocabSize]);
    expect(out[presentKeyName(0)].dims).toEqual([1, config.numKvHeads, S, config.headDim]);
    past = {};
    for (let l = 0; l < config.numLayers; l++) {
      past[pastKeyName(l)] = out[presentKeyName(l)];
      past[pastValueName(l)] = out[presentValueName(l)];
    }
    expect(out.logits.type).toBe(f16 ? 'float16' : 'float32');
    return f16 ? Float32Array.from(out.logits.data as Uint16Array, f16BitsToF32) : (out.logits.data as Float32Array);
  };
  const promptLogits = await run(prompt, 0);
  const steps: Float32Array[] = [];
  for (const [i, id] of tokens.entries()) steps.push(await run([id], prompt.length + i));
  return { prompt: promptLogits, steps };
}

/** Compares two traces: max |Δlogit| overall, and argmax agreement at every step whose reference margin exceeds 2·tol. */
function compare(ref: Trace, got: Trace, tol: number): { maxDiff: number; checked: number; agreed: number } {
  let m = maxDiff(got.prompt, ref.prompt);
  let checked = 0;
  let agreed = 0;
  for (const [i, row] of ref.steps.entries()) {
    m = Math.max(m, maxDiff(got.steps[i], row));
    const r = top2(row);
    if (r.margin > 2 * tol) {
      checked++;
      if (top2(got.steps[i]).index === r.index) agreed++;
    }
  }
  return { maxDiff: m, checked, agreed };
}

function setup(options: Partial<TinyModelOptions>, salt: number) {
  const config = tinyModelConfig({ ...SMALL, ...options });
  const tensors = randomModelWeights(config, createRng(seed + salt));
  const rng = createRng(seed + salt + 1000);
  const prompt = Array.from({ length: 7 }, () => Math.floor(rng.next() * config.vocabSize));
  return { config, tensors, prompt };
}

const build = (config: ModelConfig, tensors: TensorMap, dtype: CommunityDtype, accuracyLevel: 0 | 4 = 4) =>
  exportCommunityOnnx(config, tensors, { dtype, maxPositions: MAX_POSITIONS, accuracyLevel });

/** 3/16 of what the weight rounding itself moves the logits (original vs dequantized weights, same prefixes). */
function int8Bound(config: ModelConfig, tensors: TensorMap, ref: Trace & { tokens: number[] }, prompt: readonly number[]): number {
  return (3 * compare(ref, referenceTrace(config, tensors, prompt, ref.tokens), 0).maxDiff) / 16;
}

/** One f16 rounding (≤ 2⁻¹¹ relative) per stored activation along the path (14 a layer, 3 outside), gain ≈ 1. */
function f16Bound(config: ModelConfig, ref: Trace): number {
  let m = 0;
  for (const row of [ref.prompt, ...ref.steps]) for (const v of row) m = Math.max(m, Math.abs(v));
  return 2 ** -11 * (14 * config.numLayers + 3) * m;
}

describe('onnx-community layout vs float64 reference (onnxruntime-node)', () => {
  it.each(VARIANTS)('%s: fp32 prompt logits and 16 cached greedy steps within f32 tolerance', async (name, options) => {
    const { config, tensors, prompt } = setup(options, 1);
    const ref = referenceTrace(config, tensors, prompt);
    const r = compare(ref, await onnxTrace(config, build(config, tensors, 'fp32'), prompt, ref.tokens), F32_TOLERANCE);
    console.log(`${name} fp32: max |logit − reference| ${r.maxDiff.toExponential(2)} (tolerance ${F32_TOLERANCE}); greedy ${r.agreed}/${r.checked} steps with a clear margin agree`);
    expect(r.maxDiff).toBeLessThan(F32_TOLERANCE);
    expect(r.checked).toBeGreaterThan(STEPS / 2);
    expect(r.agreed).toBe(r.checked);
  });

  it.each(VARIANTS)('%s: q4 with f32 activations is the dequantized model within f32 tolerance', async (name, options) => {
    const { config, tensors, prompt } = setup(options, 2);
    const q = q4Checkpoint(config, tensors);
    const ref = referenceTrace(q.config, q.tensors, prompt);
    const r = compare(ref, await onnxTrace(config, build(config, tensors, 'q4', 0), prompt, ref.tokens), F32_TOLERANCE);
    console.log(`${name} q4 (accuracy_level 0): max |logit − dequantized reference| ${r.maxDiff.toExponential(2)}; greedy ${r.agreed}/${r.checked}`);
    expect(r.maxDiff).toBeLessThan(F32_TOLERANCE);
    expect(r.agreed).toBe(r.checked);
  });

  it.each(VARIANTS)('%s: q4 as exported (int8 activations) within the derived bound; greedy equal where the margin is clear', async (name, options) => {
    const { config, tensors, prompt } = setup(options, 3);
    const q = q4Checkpoint(config, tensors);
    const ref = referenceTrace(q.config, q.tensors, prompt);
    // The weight rounding's own effect, on the same prefixes: original weights vs dequantized ones.
    const original = referenceTrace(config, tensors, prompt, ref.tokens);
    const weightEffect = compare(ref, original, 0).maxDiff;
    const tol = int8Bound(config, tensors, ref, prompt);
    const r = compare(ref, await onnxTrace(config, build(config, tensors, 'q4'), prompt, ref.tokens), tol);
    const greedyOriginal = compare(ref, original, weightEffect / 2);
    console.log(
      `${name} q4 (accuracy_level 4): max |logit − dequantized reference| ${r.maxDiff.toFixed(4)} ≤ ${tol.toFixed(4)} (weight rounding moves logits by ${weightEffect.toFixed(3)}); ` +
        `greedy ${r.agreed}/${r.checked} steps with margin > ${(2 * tol).toFixed(3)} agree; the f32 original model's greedy agrees with q4's on ${greedyOriginal.agreed}/${greedyOriginal.checked} steps with margin > ${weightEffect.toFixed(3)}`,
    );
    expect(weightEffect).toBeGreaterThan(0);
    expect(r.maxDiff).toBeLessThan(tol);
    expect(r.agreed).toBe(r.checked);
  });

  it.each(VARIANTS)('%s: q4f16 (f16 activations, cache and logits) within the int8 + f16 bounds', async (name, options) => {
    const { config, tensors, prompt } = setup(options, 5);
    const q = q4Checkpoint(config, tensors, 'q4f16');
    const ref = referenceTrace(q.config, q.tensors, prompt);
    const tol = int8Bound(config, tensors, ref, prompt) + f16Bound(config, ref);
    const exact = compare(ref, await onnxTrace(config, build(config, tensors, 'q4f16', 0), prompt, ref.tokens, ort, true), f16Bound(config, ref));
    const r = compare(ref, await onnxTrace(config, build(config, tensors, 'q4f16'), prompt, ref.tokens, ort, true), tol);
    console.log(
      `${name} q4f16: accuracy_level 0 max |Δlogit| ${exact.maxDiff.toFixed(4)} ≤ ${f16Bound(config, ref).toFixed(4)} (f16 bound); ` +
        `as exported ${r.maxDiff.toFixed(4)} ≤ ${tol.toFixed(4)}; greedy ${r.agreed}/${r.checked} steps with a clear margin agree`,
    );
    expect(exact.maxDiff).toBeLessThan(f16Bound(config, ref));
    expect(exact.agreed).toBe(exact.checked);
    expect(r.maxDiff).toBeLessThan(tol);
    expect(r.agreed).toBe(r.checked);
  });
});

describe('onnx-community layout on onnxruntime-web (WASM: transformers.js in a browser without WebGPU)', () => {
  ortWeb.env.wasm.numThreads = 1;
  const runtime = ortWeb as unknown as Runtime; // same onnxruntime-common API, a separately bundled copy of its types

  it.each([['fp32'], ['q4'], ['q4f16']] as const)('qwen3 tied %s: logits and 16 cached greedy steps as on onnxruntime-node', async (dtype) => {
    const { config, tensors, prompt } = setup({ architecture: 'qwen3' }, 4);
    const q = dtype === 'fp32' ? { config, tensors } : q4Checkpoint(config, tensors, dtype);
    const ref = referenceTrace(q.config, q.tensors, prompt);
    const tol = dtype === 'fp32' ? F32_TOLERANCE : int8Bound(config, tensors, ref, prompt) + (dtype === 'q4f16' ? f16Bound(config, ref) : 0);
    const r = compare(ref, await onnxTrace(config, build(config, tensors, dtype), prompt, ref.tokens, runtime, dtype === 'q4f16'), tol);
    console.log(`onnxruntime-web ${dtype}: max |logit − reference| ${r.maxDiff.toExponential(2)} (tolerance ${tol.toExponential(2)}); greedy ${r.agreed}/${r.checked} steps with a clear margin agree`);
    expect(r.maxDiff).toBeLessThan(tol);
    expect(r.agreed).toBe(r.checked);
  });
});

describe('onnx-community graph', () => {
  const config = tinyModelConfig({ ...SMALL, architecture: 'qwen3' });
  const tensors = randomModelWeights(config, createRng(seed));

  it('uses the builder operators, in their domains, and the names transformers.js feeds', () => {
    const q4 = communityOnnxGraph(config, tensors, { dtype: 'q4', maxPositions: MAX_POSITIONS });
    const ops = new Map(q4.nodes.map((n) => [n.opType, n.domain ?? '']));
    expect([...ops.keys()].sort()).toEqual(
      ['Cast', 'Gather', 'GroupQueryAttention', 'MatMulNBits', 'Mul', 'ReduceSum', 'Reshape', 'RotaryEmbedding', 'Shape', 'Sigmoid', 'SimplifiedLayerNormalization', 'SkipSimplifiedLayerNormalization', 'Sub'].sort(),
    );
    for (const op of ['GroupQueryAttention', 'MatMulNBits', 'RotaryEmbedding', 'SkipSimplifiedLayerNormalization']) expect(ops.get(op)).toBe('com.microsoft');
    expect(ops.get('SimplifiedLayerNormalization')).toBe('');
    const count = (op: string) => q4.nodes.filter((n) => n.opType === op).length;
    const L = config.numLayers;
    expect([count('MatMulNBits'), count('GroupQueryAttention'), count('RotaryEmbedding'), count('SkipSimplifiedLayerNormalization'), count('SimplifiedLayerNormalization')]).toEqual([7 * L + 1, L, 2 * L, 2 * L, 1 + 2 * L]);
    const nbits = q4.nodes.find((n) => n.opType === 'MatMulNBits');
    expect(nbits?.attributes).toMatchObject({ bits: { int: 4 }, block_size: { int: 32 }, accuracy_level: { int: 4 } });
    expect(q4.nodes.find((n) => n.opType === 'GroupQueryAttention')?.attributes).toMatchObject({ do_rotary: { int: 0 }, num_heads: { int: 4 }, kv_num_heads: { int: 2 } });
    expect(q4.inputs.map((i) => i.name)).toEqual(['input_ids', 'attention_mask', 'position_ids', 'past_key_values.0.key', 'past_key_values.0.value', 'past_key_values.1.key', 'past_key_values.1.value']);
    expect(q4.inputs[3].shape).toEqual(['batch_size', 2, 'past_sequence_length', 16]); // fixed KVH, D: transformers.js builds the empty past from them
    expect(q4.outputs.map((o) => o.name)).toEqual(['logits', 'present.0.key', 'present.0.value', 'present.1.key', 'present.1.value']);
    const fp32 = communityOnnxGraph(config, tensors, { dtype: 'fp32', maxPositions: MAX_POSITIONS });
    expect(fp32.nodes.filter((n) => n.opType === 'MatMul')).toHaveLength(7 * L + 1);
    expect(fp32.nodes.some((n) => n.opType === 'MatMulNBits')).toBe(false);
    expect([communityOnnxFileName('fp32'), communityOnnxFileName('q4'), communityOnnxFileName('q4f16')]).toEqual(['model.onnx', 'model_q4.onnx', 'model_q4f16.onnx']);
    const half = communityOnnxGraph(config, tensors, { dtype: 'q4f16', maxPositions: MAX_POSITIONS });
    expect(new Set([...half.inputs.slice(3), ...half.outputs].map((v) => v.dataType))).toEqual(new Set([DataType.FLOAT16]));
    expect(new Set(half.initializers.filter((t) => t.dataType !== DataType.INT64).map((t) => t.dataType))).toEqual(new Set([DataType.FLOAT16, DataType.UINT8]));
  });

  it('packs 4-bit codes low nibble first, scale = signed block max / −8, zero point 8', () => {
    // One row, K = 40: block 0 holds −8..7 then 16 zeros (max magnitude −8 → scale 1, code = w + 8); block 1 is
    // 8 values (padded to 32 with code 8) with max magnitude 4 → scale −0.5, codes 0, 14, 6, 8.
    const w = [...Array.from({ length: 16 }, (_, i) => i - 8), ...Array<number>(16).fill(0), 4, -3, 1, 0, 0, 0, 0, 0];
    const q = quantizeQ4(w, 1, 40);
    expect(q.blocks).toBe(2);
    expect([...q.scales]).toEqual([1, -0.5]);
    expect([...q.packed.subarray(0, 9)]).toEqual([0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0x88]);
    expect([...q.packed.subarray(16, 32)]).toEqual([0xe0, 0x86, ...Array<number>(14).fill(0x88)]);
    expect(Array.from(q.dequantized, (v) => v + 0)).toEqual(w); // + 0: (8 − 8) · −0.5 is −0
  });

  it('refuses a graph over protobuf\'s 2 GiB, naming the size', () => {
    expect(() => exportCommunityOnnx(config, tensors, { dtype: 'fp32', maxPositions: 2 ** 25 })).toThrow(OnnxExportError);
    expect(() => exportCommunityOnnx(config, tensors, { dtype: 'q4', maxPositions: 2 ** 25 })).toThrow(/GiB\) exceed protobuf's 2 GiB/);
  });
});
