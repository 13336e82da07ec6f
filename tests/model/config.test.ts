/**
 * Model config parsing: the published Qwen3-0.6B and Qwen2.5-0.5B-Instruct configs normalise to the expected
 * dimensions, the HF round trip holds, and every refusal names its field. Also the weight-name table and the
 * parameter counts it implies.
 */
import { describe, expect, it } from 'vitest';
import {
  ModelConfigError,
  parseModelConfig,
  QWEN2_5_0_5B_INSTRUCT,
  QWEN3_0_6B,
  QWEN3_0_6B_CONFIG_JSON,
  toHfConfigJson,
  UnsupportedArchitectureError,
} from '../../src/model/config.ts';
import { checkWeights, expectedTensors, parameterCount, WeightShapeError } from '../../src/model/weights.ts';

describe('parseModelConfig', () => {
  it('normalises the published Qwen3-0.6B config', () => {
    expect(QWEN3_0_6B).toEqual({
      architecture: 'qwen3',
      vocabSize: 151936,
      hiddenSize: 1024,
      intermediateSize: 3072,
      numLayers: 28,
      numHeads: 16,
      numKvHeads: 8,
      headDim: 128, // explicit head_dim, not 1024/16 = 64
      rmsNormEps: 1e-6,
      ropeTheta: 1_000_000,
      tieWordEmbeddings: true,
      qkvBias: false,
      qkNorm: true,
      maxPositionEmbeddings: 40960,
      eosTokenIds: [151645, 151643],
      bosTokenId: 151643,
    });
  });

  it('normalises the published Qwen2.5-0.5B-Instruct config', () => {
    expect(QWEN2_5_0_5B_INSTRUCT).toMatchObject({
      architecture: 'qwen2',
      hiddenSize: 896,
      intermediateSize: 4864,
      numLayers: 24,
      numHeads: 14,
      numKvHeads: 2,
      headDim: 64, // 896 / 14
      qkvBias: true,
      qkNorm: false,
      tieWordEmbeddings: true,
      maxPositionEmbeddings: 32768,
      eosTokenIds: [151645, 151643],
    });
  });

  it('round-trips through toHfConfigJson', () => {
    expect(parseModelConfig(toHfConfigJson(QWEN3_0_6B))).toEqual(QWEN3_0_6B);
    expect(parseModelConfig(toHfConfigJson(QWEN2_5_0_5B_INSTRUCT))).toEqual(QWEN2_5_0_5B_INSTRUCT);
  });

  const base = QWEN3_0_6B_CONFIG_JSON as unknown as Record<string, unknown>;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing hidden_size', { hidden_size: undefined }, 'hidden_size'],
    ['fractional vocab_size', { vocab_size: 1.5 }, 'vocab_size'],
    ['kv heads not dividing heads', { num_key_value_heads: 3 }, 'num_key_value_heads'],
    ['odd head_dim', { head_dim: 7 }, 'head_dim'],
    ['rope scaling', { rope_scaling: { rope_type: 'yarn', factor: 4 } }, 'rope_scaling'],
    ['sliding window', { use_sliding_window: true }, 'use_sliding_window'],
    ['gelu', { hidden_act: 'gelu' }, 'hidden_act'],
    ['qwen3 biases', { attention_bias: true }, 'attention_bias'],
    ['bad eos', { eos_token_id: 'x' }, 'eos_token_id'],
  ];
  it.each(cases)('refuses %s, naming the field', (_name, patch, field) => {
    const json = { ...base, ...patch };
    try {
      parseModelConfig(json);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ModelConfigError);
      expect((e as ModelConfigError).field).toBe(field);
      expect((e as Error).message).toContain(field);
    }
  });

  it('refuses other architectures by name', () => {
    expect(() => parseModelConfig({ ...base, architectures: ['LlamaForCausalLM'] })).toThrow(UnsupportedArchitectureError);
    expect(() => parseModelConfig({ ...base, architectures: ['LlamaForCausalLM'] })).toThrow(/LlamaForCausalLM.*Qwen2ForCausalLM, Qwen3ForCausalLM/);
    expect(() => parseModelConfig({ ...base, architectures: undefined })).toThrow(/none given/);
    expect(() => parseModelConfig(null)).toThrow(ModelConfigError);
  });

  it('accepts rope_scaling of type "default" and a missing head_dim (C/H)', () => {
    const c = parseModelConfig({ ...base, rope_scaling: { rope_type: 'default' }, head_dim: undefined });
    expect(c.headDim).toBe(64);
  });
});

describe('weight names and shapes', () => {
  it('lists the HF names of a Qwen3 layer with q/k norms and no biases', () => {
    const names = expectedTensors(QWEN3_0_6B).map((s) => s.name);
    expect(names.slice(0, 13)).toEqual([
      'model.embed_tokens.weight',
      'model.layers.0.input_layernorm.weight',
      'model.layers.0.self_attn.q_proj.weight',
      'model.layers.0.self_attn.k_proj.weight',
      'model.layers.0.self_attn.v_proj.weight',
      'model.layers.0.self_attn.o_proj.weight',
      'model.layers.0.self_attn.q_norm.weight',
      'model.layers.0.self_attn.k_norm.weight',
      'model.layers.0.post_attention_layernorm.weight',
      'model.layers.0.mlp.gate_proj.weight',
      'model.layers.0.mlp.up_proj.weight',
      'model.layers.0.mlp.down_proj.weight',
      'model.layers.1.input_layernorm.weight',
    ]);
    expect(names.at(-1)).toBe('model.norm.weight'); // tied: no lm_head.weight
    expect(names).toHaveLength(1 + 28 * 11 + 1);
    const shapes = new Map(expectedTensors(QWEN3_0_6B).map((s) => [s.name, s.shape]));
    expect(shapes.get('model.layers.0.self_attn.q_proj.weight')).toEqual([2048, 1024]);
    expect(shapes.get('model.layers.0.self_attn.k_proj.weight')).toEqual([1024, 1024]);
    expect(shapes.get('model.layers.0.self_attn.o_proj.weight')).toEqual([1024, 2048]);
    expect(shapes.get('model.layers.0.self_attn.q_norm.weight')).toEqual([128]);
  });

  it('adds Qwen2 q/k/v biases and an untied lm_head', () => {
    const specs = expectedTensors({ ...QWEN2_5_0_5B_INSTRUCT, tieWordEmbeddings: false });
    const shapes = new Map(specs.map((s) => [s.name, s.shape]));
    expect(shapes.get('model.layers.3.self_attn.q_proj.bias')).toEqual([896]);
    expect(shapes.get('model.layers.3.self_attn.k_proj.bias')).toEqual([128]);
    expect(shapes.has('model.layers.3.self_attn.o_proj.bias')).toBe(false);
    expect(shapes.has('model.layers.3.self_attn.q_norm.weight')).toBe(false);
    expect(shapes.get('lm_head.weight')).toEqual([151936, 896]);
  });

  it('counts the published parameter totals', () => {
    expect(parameterCount(QWEN3_0_6B)).toBe(596_049_920);
    expect(parameterCount(QWEN2_5_0_5B_INSTRUCT)).toBe(494_032_768);
  });

  it('checkWeights names a missing or misshapen tensor and lists ignored ones', () => {
    const specs = expectedTensors(QWEN3_0_6B);
    const shapes = new Map(specs.map((s) => [s.name, { shape: s.shape }]));
    expect(checkWeights(QWEN3_0_6B, new Map([...shapes, ['lm_head.weight', { shape: [151936, 1024] }]])).ignored).toEqual(['lm_head.weight']);
    const missing = new Map(shapes);
    missing.delete('model.layers.5.self_attn.k_norm.weight');
    expect(() => checkWeights(QWEN3_0_6B, missing)).toThrow(/model\.layers\.5\.self_attn\.k_norm\.weight.*missing/);
    const wrong = new Map(shapes);
    wrong.set('model.layers.2.mlp.down_proj.weight', { shape: [3072, 1024] });
    expect(() => checkWeights(QWEN3_0_6B, wrong)).toThrow(WeightShapeError);
    expect(() => checkWeights(QWEN3_0_6B, wrong)).toThrow(/down_proj.*\[3072, 1024\] does not match \[1024, 3072\]/);
  });
});
