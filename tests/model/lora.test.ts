/**
 * LoRA adapters: PEFT names and shapes, scale, adapter_config round trip and refusals, and an adapter saved as
 * safetensors and loaded back gives bit-identical reference logits.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import {
  createLoraAdapter,
  DEFAULT_LORA_CONFIG,
  LoraConfigError,
  loraScale,
  loraShapes,
  parsePeftAdapterConfig,
  peftTensorName,
  toPeftAdapterConfig,
  type LoraConfig,
} from '../../src/model/lora.ts';
import { referenceLogits, toReferenceWeights } from '../../src/model/reference/model.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, readPeftAdapter, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';

describe('LoRA config and names', () => {
  it('uses PEFT tensor names', () => {
    expect(peftTensorName(3, 'q_proj', 'A')).toBe('base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight');
    expect(peftTensorName(0, 'down_proj', 'B')).toBe('base_model.model.model.layers.0.mlp.down_proj.lora_B.weight');
  });

  it('gives A (R, in) and B (out, R) for each projection of Qwen3-0.6B', () => {
    const lora: LoraConfig = { ...DEFAULT_LORA_CONFIG, rank: 8 };
    expect(loraShapes(QWEN3_0_6B, lora, 'q_proj')).toEqual({ a: [8, 1024], b: [2048, 8] });
    expect(loraShapes(QWEN3_0_6B, lora, 'v_proj')).toEqual({ a: [8, 1024], b: [1024, 8] });
    expect(loraShapes(QWEN3_0_6B, lora, 'o_proj')).toEqual({ a: [8, 2048], b: [1024, 8] });
    expect(loraShapes(QWEN3_0_6B, lora, 'down_proj')).toEqual({ a: [8, 3072], b: [1024, 8] });
    const perLayer = lora.targetModules.reduce((n, t) => {
      const { a, b } = loraShapes(QWEN3_0_6B, lora, t);
      return n + a[0] * a[1] + b[0] * b[1];
    }, 0);
    expect(lora.targetModules).toHaveLength(7);
    // 28 layers × R × (Σ in + Σ out): in = 5·1024 (q,k,v,gate,up) + 2048 (o) + 3072 (down);
    // out = 2048 (q) + 3·1024 (k,v,o) + 2·3072 (gate,up) + 1024 (down).
    expect(28 * perLayer).toBe(28 * 8 * (5 * 1024 + 2048 + 3072 + (2048 + 3 * 1024 + 2 * 3072 + 1024)));
  });

  it('scales by alpha/R, or alpha/sqrt(R) with rsLoRA', () => {
    expect(loraScale({ ...DEFAULT_LORA_CONFIG, rank: 16, alpha: 32 })).toBe(2);
    expect(loraScale({ ...DEFAULT_LORA_CONFIG, rank: 16, alpha: 32, useRslora: true })).toBe(8);
  });

  it('round-trips adapter_config.json and refuses what it cannot compute', () => {
    const lora: LoraConfig = { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'], dropout: 0.05, useRslora: false };
    const json = toPeftAdapterConfig(lora, 'Qwen/Qwen3-0.6B');
    expect(json).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, target_modules: ['q_proj', 'v_proj'] });
    expect(parsePeftAdapterConfig(JSON.parse(JSON.stringify(json)))).toEqual(lora);
    expect(() => parsePeftAdapterConfig({ ...json, use_dora: true })).toThrow(/DoRA/);
    expect(() => parsePeftAdapterConfig({ ...json, target_modules: ['lm_head'] })).toThrow(/unknown module "lm_head"/);
    expect(() => parsePeftAdapterConfig({ ...json, r: 0 })).toThrow(LoraConfigError);
    expect(() => parsePeftAdapterConfig({ ...json, bias: 'all' })).toThrow(/bias/);
  });
});

describe('LoRA adapter tensors', () => {
  it('initialises A in ±1/sqrt(in) and B at zero, seeded', () => {
    const config = tinyModelConfig({ vocabSize: 256 });
    const lora: LoraConfig = { ...DEFAULT_LORA_CONFIG, rank: 4 };
    const a = createLoraAdapter(config, lora, createRng(3));
    const b = createLoraAdapter(config, lora, createRng(3));
    const q = a.layers[1].q_proj!;
    expect(q.a.shape).toEqual([4, 64]);
    expect(Math.max(...Array.from(q.a.data, Math.abs))).toBeLessThanOrEqual(1 / 8);
    expect(q.b.data.every((x) => x === 0)).toBe(true);
    expect(Array.from(q.a.data)).toEqual(Array.from(b.layers[1].q_proj!.a.data));
  });

  it('saved as safetensors and loaded back gives identical logits', () => {
    const config = tinyModelConfig({ vocabSize: 300, architecture: 'qwen2' });
    const weights = toReferenceWeights(config, randomModelWeights(config, createRng(1)));
    const lora: LoraConfig = { ...DEFAULT_LORA_CONFIG, rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] };
    const adapter = createLoraAdapter(config, lora, createRng(2), (rng) => rng.next() - 0.5);
    // f32 storage: round the adapter to f32 first, so the file holds it exactly.
    for (const layer of adapter.layers) for (const pair of Object.values(layer)) for (const t of [pair.a, pair.b]) t.data = Float64Array.from(t.data, Math.fround);

    // The product's path: PEFT's two files written and read back (missing and misshapen tensors: adapter-file.test.ts).
    const files = writePeftAdapter(adapter, { modelId: 'tiny', config });
    const back = readPeftAdapter({ safetensors: files[ADAPTER_WEIGHTS_FILE], configJson: files[ADAPTER_CONFIG_FILE] }, config);
    const ids = [5, 6, 7, 200];
    expect(Array.from(referenceLogits(config, weights, ids, back))).toEqual(Array.from(referenceLogits(config, weights, ids, adapter)));
  });
});
