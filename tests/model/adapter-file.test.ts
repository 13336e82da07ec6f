/**
 * PEFT adapter files (src/model/adapter-file.ts): write→read is exact, the written layout is PEFT's (names, dtype,
 * metadata, adapter_config fields), files laid out by hand as PEFT writes them load (`.default` names, BF16, regex,
 * "all-linear", layers_to_transform, exclude_modules), every refusal is an AdapterFileError naming the file (and the
 * tensor), and the float64 reference model gives bit-identical logits with the adapter before and after write→read.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import type { ModelConfig } from '../../src/model/config.ts';
import {
  ADAPTER_CONFIG_FILE,
  ADAPTER_WEIGHTS_FILE,
  AdapterFileError,
  loraAdapterFromArrays,
  peftBaseModel,
  readPeftAdapter,
  readPeftAdapterConfig,
  writePeftAdapter,
  type PeftAdapterFiles,
} from '../../src/model/adapter-file.ts';
import { createLoraAdapter, LoraConfigError, parsePeftAdapterConfig, peftTensorName, type LoraAdapter, type LoraConfig, type LoraTarget } from '../../src/model/lora.ts';
import { referenceLogits, toReferenceLora, toReferenceWeights } from '../../src/model/reference/model.ts';
import { bf16BitsToF32, f32ToBf16Bits, parseSafetensorsHeader, readSafetensors, writeSafetensors, type TensorToWrite } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { PROJECTIONS, projectionPrefix } from '../../src/model/weights.ts';

const MODEL = tinyModelConfig({ vocabSize: 300 });
const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'], dropout: 0.05, useRslora: false };

/** A non-zero adapter (B random too) rounded to f32, so an F32 file holds it exactly. */
function adapterFor(model: ModelConfig, lora: LoraConfig, seed: number): LoraAdapter {
  const adapter = createLoraAdapter(model, lora, createRng(seed), (rng) => rng.next() - 0.5);
  for (const layer of adapter.layers) for (const pair of Object.values(layer)) for (const t of [pair.a, pair.b]) t.data = Float32Array.from(t.data);
  return adapter;
}

function files(written: PeftAdapterFiles): { safetensors: Uint8Array; configJson: string } {
  return { safetensors: written[ADAPTER_WEIGHTS_FILE], configJson: written[ADAPTER_CONFIG_FILE] };
}

/** What PEFT ≥ 0.14 writes for a LoRA on Qwen (every field, sorted), with overrides. */
function peftConfig(overrides: Record<string, unknown>): string {
  const json: Record<string, unknown> = {
    alpha_pattern: {}, auto_mapping: null, base_model_name_or_path: 'Qwen/Qwen3-0.6B', bias: 'none', corda_config: null, eva_config: null,
    exclude_modules: null, fan_in_fan_out: false, inference_mode: true, init_lora_weights: true, layer_replication: null, layers_pattern: null,
    layers_to_transform: null, loftq_config: {}, lora_alpha: 8, lora_bias: false, lora_dropout: 0.05, megatron_config: null,
    megatron_core: 'megatron.core', modules_to_save: null, peft_type: 'LORA', r: 4, rank_pattern: {}, revision: null,
    target_modules: ['v_proj', 'q_proj'], task_type: 'CAUSAL_LM', trainable_token_indices: null, use_dora: false, use_rslora: false,
    ...overrides,
  };
  return JSON.stringify(json, null, 2);
}

/** A safetensors file as PEFT writes it from a bf16 model: BF16 tensors, `.default` names; values from `pick`. */
function peftBf16File(model: ModelConfig, modules: Array<[number, LoraTarget]>, rank: number, seed: number): { bytes: Uint8Array; values: Map<string, Float32Array> } {
  const rng = createRng(seed);
  const tensors = new Map<string, TensorToWrite>();
  const values = new Map<string, Float32Array>();
  const lora: LoraConfig = { ...LORA, rank };
  for (const [layer, target] of modules) {
    const adapter = createLoraAdapter(model, { ...lora, targetModules: [target] }, rng, (r) => r.next() - 0.5);
    const pair = adapter.layers[layer][target]!;
    for (const [which, t] of [['A', pair.a], ['B', pair.b]] as const) {
      const bf16 = Float32Array.from(t.data, (x) => bf16BitsToF32(f32ToBf16Bits(x)));
      tensors.set(`base_model.model.${projectionPrefix(layer, target)}.lora_${which}.default.weight`, { shape: t.shape, data: bf16, dtype: 'BF16' });
      values.set(peftTensorName(layer, target, which), bf16);
    }
  }
  return { bytes: writeSafetensors(tensors, { format: 'pt' }), values };
}

function expectAdapterError(run: () => unknown, file: string, message: RegExp, tensor: string | null = null): void {
  let thrown: unknown = null;
  try {
    run();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(AdapterFileError);
  const error = thrown as AdapterFileError;
  expect(error.file).toBe(file);
  expect(error.message).toMatch(message);
  if (tensor !== null) expect(error.tensor).toBe(tensor);
}

describe('writePeftAdapter writes PEFT\'s layout', () => {
  it('names, shapes, dtype and metadata of adapter_model.safetensors', () => {
    const written = writePeftAdapter(adapterFor(MODEL, LORA, 1), { modelId: 'Qwen/Qwen3-0.6B', config: MODEL });
    const header = parseSafetensorsHeader(written[ADAPTER_WEIGHTS_FILE]);
    expect(header.metadata).toEqual({ format: 'pt' });
    expect([...header.tensors.keys()].slice(0, 4)).toEqual([
      'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight',
      'base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight',
      'base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight',
      'base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight',
    ]);
    expect(header.tensors.size).toBe(MODEL.numLayers * 3 * 2);
    const down = header.tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')!;
    expect(down).toMatchObject({ dtype: 'F32', shape: [4, MODEL.intermediateSize] });
    expect(header.tensors.get('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')!.shape).toEqual([MODEL.hiddenSize, 4]);
  });

  it('adapter_config.json with PEFT\'s fields, keys sorted, two-space indents', () => {
    const text = writePeftAdapter(adapterFor(MODEL, LORA, 1), { modelId: 'Qwen/Qwen3-0.6B', config: MODEL })[ADAPTER_CONFIG_FILE];
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json).toMatchObject({
      peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 8, lora_dropout: 0.05, target_modules: ['q_proj', 'v_proj', 'down_proj'],
      use_rslora: false, use_dora: false, bias: 'none', base_model_name_or_path: 'Qwen/Qwen3-0.6B', fan_in_fan_out: false,
      inference_mode: true, modules_to_save: null, rank_pattern: {}, alpha_pattern: {}, layers_to_transform: null,
    });
    expect(Object.keys(json)).toEqual(Object.keys(json).sort());
    expect(text.split('\n')[1]).toMatch(/^ {2}"alpha_pattern": \{\},$/);
    expect(peftBaseModel(text)).toBe('Qwen/Qwen3-0.6B');
  });

  it('refuses an adapter that does not fit the base model, naming the tensor', () => {
    const adapter = adapterFor(MODEL, LORA, 1);
    adapter.layers[1].v_proj!.b.shape = [7, 4];
    expectAdapterError(() => writePeftAdapter(adapter, { modelId: 'm', config: MODEL }), ADAPTER_WEIGHTS_FILE, /shape \[7, 4\] does not match \[32, 4\]/, peftTensorName(1, 'v_proj', 'B'));
    const nan = adapterFor(MODEL, LORA, 1);
    nan.layers[0].q_proj!.a.data[3] = NaN;
    expectAdapterError(() => writePeftAdapter(nan, { modelId: 'm', config: MODEL }), ADAPTER_WEIGHTS_FILE, /value 3 is NaN/, peftTensorName(0, 'q_proj', 'A'));
    const short = adapterFor(MODEL, LORA, 1);
    delete short.layers[1].down_proj;
    expectAdapterError(() => writePeftAdapter(short, { modelId: 'm', config: MODEL }), ADAPTER_WEIGHTS_FILE, /missing/, peftTensorName(1, 'down_proj', 'A'));
  });
});

describe('write → read', () => {
  it('is exact in F32 (config and every value)', () => {
    const adapter = adapterFor(MODEL, LORA, 2);
    const back = readPeftAdapter(files(writePeftAdapter(adapter, { modelId: 'tiny', config: MODEL })), MODEL);
    expect(back.config).toEqual(LORA);
    expect(back.layers.length).toBe(MODEL.numLayers);
    back.layers.forEach((layer, i) => {
      expect(Object.keys(layer).sort()).toEqual([...LORA.targetModules].sort());
      for (const t of LORA.targetModules) {
        expect(layer[t]!.a.shape).toEqual(adapter.layers[i][t]!.a.shape);
        expect(Array.from(layer[t]!.a.data)).toEqual(Array.from(adapter.layers[i][t]!.a.data));
        expect(Array.from(layer[t]!.b.data)).toEqual(Array.from(adapter.layers[i][t]!.b.data));
      }
    });
  });

  it('rounds to nearest in F16 and BF16, and says so in the header', () => {
    const adapter = adapterFor(MODEL, { ...LORA, useRslora: true }, 3);
    for (const dtype of ['F16', 'BF16'] as const) {
      const written = writePeftAdapter(adapter, { modelId: 'tiny', config: MODEL }, { dtype });
      expect(parseSafetensorsHeader(written[ADAPTER_WEIGHTS_FILE]).tensors.get(peftTensorName(0, 'q_proj', 'A'))!.dtype).toBe(dtype);
      const back = readPeftAdapter(files(written), MODEL);
      expect(back.config.useRslora).toBe(true);
      const a = adapter.layers[1].down_proj!.b.data;
      const b = back.layers[1].down_proj!.b.data;
      let worst = 0;
      for (let j = 0; j < a.length; j++) worst = Math.max(worst, Math.abs(a[j] - b[j]) / Math.abs(a[j]));
      // Half a unit in the last place: 2^-11 for f16 (at these magnitudes, all normal), 2^-8 for bf16.
      expect(worst).toBeGreaterThan(0);
      expect(worst).toBeLessThanOrEqual(dtype === 'F16' ? 2 ** -11 : 2 ** -8);
    }
  });

  it('gives bit-identical float64 reference logits (Qwen3 and Qwen2, every projection)', () => {
    for (const model of [MODEL, tinyModelConfig({ vocabSize: 300, architecture: 'qwen2', tieWordEmbeddings: false })]) {
      const weights = toReferenceWeights(model, randomModelWeights(model, createRng(5)));
      const lora: LoraConfig = { rank: 3, alpha: 6, targetModules: [...PROJECTIONS], dropout: 0, useRslora: false };
      const adapter = adapterFor(model, lora, 6);
      const back = readPeftAdapter(files(writePeftAdapter(adapter, { modelId: 'tiny', config: model })), model);
      const ids = [5, 17, 120, 299, 3];
      const want = referenceLogits(model, weights, ids, adapter);
      const base = referenceLogits(model, weights, ids);
      expect(Array.from(referenceLogits(model, weights, ids, back))).toEqual(Array.from(want));
      // The adapter matters (so identical logits are not the base model's twice).
      expect(Math.max(...Array.from(want, (x, j) => Math.abs(x - base[j])))).toBeGreaterThan(1e-3);
    }
  });

  it('loraAdapterFromArrays turns per-layer f32 arrays (QwenTrainer.readLora) into an adapter', () => {
    const adapter = adapterFor(MODEL, LORA, 7);
    const arrays = adapter.layers.map((layer) => Object.fromEntries(Object.entries(layer).map(([t, p]) => [t, { a: Float32Array.from(p.a.data), b: Float32Array.from(p.b.data) }])));
    const built = loraAdapterFromArrays(MODEL, LORA, arrays);
    expect(built.layers[1].down_proj!.a.shape).toEqual([4, MODEL.intermediateSize]);
    expect(Array.from(built.layers[1].down_proj!.a.data)).toEqual(Array.from(adapter.layers[1].down_proj!.a.data));
    arrays[0].q_proj.a = new Float32Array(5);
    expect(() => loraAdapterFromArrays(MODEL, LORA, arrays)).toThrow(/layers\.0\.self_attn\.q_proj\.lora_A\.weight.*holds 5 values/);
  });
});

describe('adapters as PEFT writes them load', () => {
  const weights = toReferenceWeights(MODEL, randomModelWeights(MODEL, createRng(9)));
  const ids = [1, 2, 3, 250];

  it('`.default` names, BF16 tensors, a regex target_modules', () => {
    const modules: Array<[number, LoraTarget]> = [[0, 'q_proj'], [0, 'v_proj'], [1, 'q_proj'], [1, 'v_proj']];
    const { bytes, values } = peftBf16File(MODEL, modules, 4, 10);
    const adapter = readPeftAdapter({ safetensors: bytes, configJson: peftConfig({ target_modules: '.*\\.(q_proj|v_proj)' }) }, MODEL);
    expect(adapter.config.targetModules).toEqual(['q_proj', 'v_proj']);
    for (const [layer, target] of modules) {
      expect(Array.from(adapter.layers[layer][target]!.a.data)).toEqual(Array.from(values.get(peftTensorName(layer, target, 'A'))!));
      expect(Array.from(adapter.layers[layer][target]!.b.data)).toEqual(Array.from(values.get(peftTensorName(layer, target, 'B'))!));
    }
    // Written back (names without .default, F32) and read again: the same adapter.
    const again = readPeftAdapter(files(writePeftAdapter(adapter, { modelId: 'Qwen/Qwen3-0.6B', config: MODEL })), MODEL);
    expect(Array.from(referenceLogits(MODEL, weights, ids, again))).toEqual(Array.from(referenceLogits(MODEL, weights, ids, adapter)));
  });

  it('a regex reaching one layer only: the other layer gets a zero pair, exactly the same logits', () => {
    const { bytes } = peftBf16File(MODEL, [[1, 'o_proj']], 4, 11);
    const adapter = readPeftAdapter({ safetensors: bytes, configJson: peftConfig({ target_modules: 'model\\.layers\\.1\\.self_attn\\.o_proj' }) }, MODEL);
    expect(adapter.config.targetModules).toEqual(['o_proj']);
    expect(adapter.layers[0].o_proj!.b.data.every((x) => x === 0)).toBe(true);
    const only = toReferenceLora(adapter);
    delete only[0].o_proj;
    expect(Array.from(referenceLogits(MODEL, weights, ids, adapter))).toEqual(Array.from(referenceLogits(MODEL, weights, ids, only)));
  });

  it('"all-linear", layers_to_transform and exclude_modules', () => {
    const all: LoraTarget[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
    const every = peftBf16File(MODEL, all.flatMap((t) => [[0, t], [1, t]] as Array<[number, LoraTarget]>), 2, 12);
    expect(readPeftAdapterConfig(peftConfig({ r: 2, target_modules: 'all-linear' }), MODEL).targetModules).toEqual(all);
    expect(readPeftAdapter({ safetensors: every.bytes, configJson: peftConfig({ r: 2, target_modules: 'all-linear' }) }, MODEL).layers[1].gate_proj).toBeDefined();

    const layer1 = peftBf16File(MODEL, [[1, 'q_proj'], [1, 'v_proj']], 4, 13);
    const adapter = readPeftAdapter({ safetensors: layer1.bytes, configJson: peftConfig({ layers_to_transform: [1], layers_pattern: 'layers' }) }, MODEL);
    expect(adapter.layers[0].q_proj!.a.data.every((x) => x === 0)).toBe(true);
    expect(Array.from(adapter.layers[1].q_proj!.a.data)).toEqual(Array.from(layer1.values.get(peftTensorName(1, 'q_proj', 'A'))!));

    const noV = peftBf16File(MODEL, [[0, 'q_proj'], [1, 'q_proj'], [1, 'v_proj']], 4, 14);
    const excluded = readPeftAdapter({ safetensors: noV.bytes, configJson: peftConfig({ exclude_modules: 'model\\.layers\\.0\\.self_attn\\.v_proj' }) }, MODEL);
    expect(excluded.layers[0].v_proj!.b.data.every((x) => x === 0)).toBe(true);
  });
});

describe('refusals: an AdapterFileError naming the file and the tensor', () => {
  const written = writePeftAdapter(adapterFor(MODEL, LORA, 20), { modelId: 'tiny', config: MODEL });
  const good = files(written);
  const withConfig = (overrides: Record<string, unknown>) => ({ ...good, configJson: peftConfig({ target_modules: ['q_proj', 'v_proj', 'down_proj'], ...overrides }) });
  const read = (f: { safetensors: Uint8Array; configJson: string }, model: ModelConfig = MODEL) => () => readPeftAdapter(f, model);

  it('config fields the engine cannot compute', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ rank_pattern: { q_proj: 8 } }, /rank_pattern.*per-module ranks/],
      [{ alpha_pattern: { 'model.layers.0.self_attn.q_proj': 16 } }, /alpha_pattern.*per-module alphas/],
      [{ modules_to_save: ['lm_head'] }, /modules_to_save/],
      [{ use_dora: true }, /DoRA/],
      [{ bias: 'lora_only' }, /bias.*only "none"/],
      [{ lora_bias: true }, /lora_bias/],
      [{ peft_type: 'IA3' }, /only LORA/],
      [{ target_modules: ['q_proj', 'lm_head'] }, /reaches lm_head/],
      [{ target_modules: '.*embed_tokens' }, /reaches model\.embed_tokens/],
      [{ target_modules: 'c_attn' }, /matches no projection/],
      [{ target_modules: '(unclosed' }, /regex "\(unclosed" has an unclosed "\("/],
      [{ target_modules: [3] }, /expected a list of module names/],
      [{ layers_to_transform: [0], layers_pattern: 'h' }, /layers_pattern/],
      [{ r: 0 }, /"rank": must be a positive integer/],
    ];
    for (const [overrides, message] of cases) expectAdapterError(read(withConfig(overrides)), ADAPTER_CONFIG_FILE, message);
    expectAdapterError(read({ ...good, configJson: '{"r": 4,' }), ADAPTER_CONFIG_FILE, /not valid JSON/);
    expectAdapterError(read({ ...good, configJson: '[]' }), ADAPTER_CONFIG_FILE, /JSON object/);
  });

  it('a damaged or missing file', () => {
    const corrupt = good.safetensors.slice();
    corrupt[9] = 0x7b; // '{' inside the header JSON: no longer JSON
    corrupt[8] = 0x5d;
    expectAdapterError(read({ ...good, safetensors: corrupt }), ADAPTER_WEIGHTS_FILE, /not a valid safetensors file.*header/);
    expectAdapterError(read({ ...good, safetensors: good.safetensors.subarray(0, 100) }), ADAPTER_WEIGHTS_FILE, /not a valid safetensors file/);
    const f64 = writeSafetensors(new Map([['x', { shape: [1], data: [1] }]]));
    f64.set(new TextEncoder().encode('"F64"'), new TextDecoder().decode(f64).indexOf('"F32"'));
    expectAdapterError(read({ ...good, safetensors: f64 }), ADAPTER_WEIGHTS_FILE, /dtype F64/);
    expectAdapterError(read({ ...good, safetensors: undefined as unknown as Uint8Array }), ADAPTER_WEIGHTS_FILE, /is missing/);
    expectAdapterError(read({ ...good, configJson: undefined as unknown as string }), ADAPTER_CONFIG_FILE, /is missing/);
  });

  it('an adapter for another architecture or rank: the shape mismatch names the tensor', () => {
    const wider = tinyModelConfig({ vocabSize: 300, hiddenSize: 96, numHeads: 4, numKvHeads: 2, headDim: 24 });
    expectAdapterError(read(good, wider), ADAPTER_WEIGHTS_FILE, /shape \[4, 64\] does not match \[4, 96\].*another model/, peftTensorName(0, 'q_proj', 'A'));
    expectAdapterError(read(withConfig({ r: 8 })), ADAPTER_WEIGHTS_FILE, /shape \[4, 64\] does not match \[8, 64\] \(rank 8/, peftTensorName(0, 'q_proj', 'A'));
    // A Qwen2 of the same sizes has the same projection shapes: only base_model_name_or_path could tell them apart.
    expect(() => readPeftAdapter(good, tinyModelConfig({ vocabSize: 300, architecture: 'qwen2' }))).not.toThrow();
    const deeper = tinyModelConfig({ vocabSize: 300, numLayers: 3 });
    expectAdapterError(read(good, deeper), ADAPTER_WEIGHTS_FILE, /missing, though adapter_config\.json targets/, peftTensorName(2, 'q_proj', 'A'));
  });

  it('tensors that do not fit the config', () => {
    const tensors = readSafetensors(good.safetensors).tensors;
    const rewrite = (edit: (m: Map<string, TensorToWrite>) => void) => {
      const m = new Map<string, TensorToWrite>([...tensors].map(([n, t]) => [n, { shape: t.shape, data: t.data }]));
      edit(m);
      return { ...good, safetensors: writeSafetensors(m) };
    };
    const vB = peftTensorName(1, 'v_proj', 'B');
    expectAdapterError(read(rewrite((m) => m.delete(vB))), ADAPTER_WEIGHTS_FILE, /missing/, vB);
    const dora = 'base_model.model.model.layers.0.self_attn.q_proj.lora_magnitude_vector';
    expectAdapterError(read(rewrite((m) => m.set(dora, { shape: [64], data: new Float32Array(64) }))), ADAPTER_WEIGHTS_FILE, /DoRA/, dora);
    const kA = peftTensorName(0, 'k_proj', 'A');
    expectAdapterError(read(rewrite((m) => m.set(kA, { shape: [4, 64], data: new Float32Array(256) }))), ADAPTER_WEIGHTS_FILE, /does not account for/, kA);
    const twice = rewrite((m) => m.set(vB.replace('.weight', '.default.weight'), m.get(vB)!));
    expectAdapterError(read(twice), ADAPTER_WEIGHTS_FILE, /appears twice/);
    // A tensor present for a module the config leaves out of that layer.
    expectAdapterError(read(withConfig({ layers_to_transform: [1] })), ADAPTER_WEIGHTS_FILE, /does not target model\.layers\.0\.self_attn\.q_proj/, peftTensorName(0, 'q_proj', 'A'));
    const inf = rewrite((m) => (m.get(vB)!.data as Float32Array)[2] = Infinity);
    expectAdapterError(read(inf), ADAPTER_WEIGHTS_FILE, /value 2 is Infinity/, vB);
  });

  it('lora.ts alone refuses what needs the model (regex, layers_to_transform)', () => {
    const json = JSON.parse(peftConfig({})) as Record<string, unknown>;
    expect(parsePeftAdapterConfig(json).targetModules).toEqual(['v_proj', 'q_proj']);
    expect(() => parsePeftAdapterConfig({ ...json, target_modules: '.*q_proj' })).toThrow(/readPeftAdapter/);
    expect(() => parsePeftAdapterConfig({ ...json, layers_to_transform: [0] })).toThrow(LoraConfigError);
    expect(() => parsePeftAdapterConfig({ ...json, alpha_pattern: { q_proj: 2 } })).toThrow(/alpha_pattern/);
  });
});
