/**
 * Untrusted model files, one test per defect of the issue "nothing crashes, hangs, floods or reads outside its
 * folder": a config with 1e9 layers is a typed error naming config.json and num_hidden_layers before anything is
 * allocated (loader, reference and plan budget); a shard index entry leaving the folder is refused naming the index;
 * NaN/Inf weights are refused naming the tensor and file (and `model:logits --cpu` exits 1 saying so); overlapping
 * tensors are refused; a config with fewer or more layers than the weights is refused naming both files; JSON errors
 * name the file; PEFT adapters get the same header and NaN checks plus rank/alpha/dropout ranges and a guard against
 * backtracking target_modules regexes.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { AdapterFileError, readPeftAdapter, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { createLoraAdapter, peftTensorName } from '../../src/model/lora.ts';
import { checkPlanFits, MemoryBudgetError, planMemory } from '../../src/gpu/memory-plan.ts';
import { ModelConfigError, parseModelConfig, QWEN3_0_6B, QWEN3_0_6B_CONFIG_JSON, toHfConfigJson } from '../../src/model/config.ts';
import { loadModelFolder, ModelFileError } from '../../src/model/files-node.ts';
import { hubFileUrl } from '../../src/model/hub.ts';
import { loadCheckpoint, shardFiles } from '../../src/model/load.ts';
import { checkModelFits } from '../../src/model/model-budget.ts';
import { checkModelFilePath, UnsafeModelPathError } from '../../src/model/model-path.ts';
import { toReferenceWeights } from '../../src/model/reference/model.ts';
import { CorruptHeaderError, NonFiniteTensorError, OverlappingTensorsError, parseSafetensorsHeader, readSafetensors, TruncatedFileError, writeSafetensors } from '../../src/model/safetensors.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';
import { ConfigWeightsMismatchError } from '../../src/model/weights.ts';
import { FUZZ_MODEL, poisonF32, tinyConfigJson, tinyWeights, withHeader } from './fuzz-support.ts';

let root = '';
let n = 0;
async function folder(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = join(root, `m${n++}`);
  await mkdir(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}
const weights = () => tinyWeights(createRng(7));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'untrusted-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('config.json ranges and the memory budget', () => {
  it('num_hidden_layers 1e9: ModelConfigError naming config.json, the field and the range, before any allocation', async () => {
    const json = { ...tinyConfigJson(), num_hidden_layers: 1e9 };
    expect(() => parseModelConfig(json)).toThrow(ModelConfigError);
    expect(() => parseModelConfig(json)).toThrow(/config\.json field "num_hidden_layers".*\[1, 256\].*1000000000/);
    const dir = await folder({ 'config.json': JSON.stringify(json), 'model.safetensors': weights() });
    await expect(loadModelFolder(dir)).rejects.toThrow(/config\.json field "num_hidden_layers"/);
    expect(() => loadCheckpoint({ configJson: json, safetensors: [weights()] })).toThrow(ModelConfigError);
    // The float64 reference refuses a hand-built config too, before widening a single tensor.
    expect(() => toReferenceWeights({ ...FUZZ_MODEL, numLayers: 1e9 }, new Map())).toThrow(/num_hidden_layers/);
  });

  it.each([
    ['hidden_size', 0],
    ['hidden_size', 1e6],
    ['intermediate_size', 2 ** 40],
    ['num_attention_heads', 1e5],
    ['num_key_value_heads', -2],
    ['head_dim', 4096],
    ['vocab_size', 1e12],
    ['max_position_embeddings', 1e12],
    ['rope_theta', 1e300],
    ['rope_theta', 0.5],
    ['rms_norm_eps', 1],
    ['rms_norm_eps', 0],
    ['num_hidden_layers', 2.5],
    ['num_hidden_layers', '28'],
    ['eos_token_id', 2 ** 40],
  ])('%s = %s is refused naming the field', (field, value) => {
    expect(() => parseModelConfig({ ...QWEN3_0_6B_CONFIG_JSON, [field]: value })).toThrow(new RegExp(`config\\.json field "${field}"`));
  });

  it('a config in range but too large as a whole: MemoryBudgetError from the plan, before any buffer', () => {
    const json = { ...QWEN3_0_6B_CONFIG_JSON, num_hidden_layers: 256, hidden_size: 16384, intermediate_size: 65536 };
    const config = parseModelConfig(json);
    expect(() => checkModelFits(config)).toThrow(MemoryBudgetError);
    expect(() => loadCheckpoint({ configJson: json, safetensors: [new Uint8Array(8)] })).toThrow(/needs .* more than the budget/);
    expect(() => checkModelFits(QWEN3_0_6B)).not.toThrow();
  });

  it('checkPlanFits compares the plan total with the budget and names the sizes', () => {
    const plan = planMemory(QWEN3_0_6B, { batch: 1, context: 2048 });
    expect(() => checkPlanFits(plan, plan.totalBytes)).not.toThrow();
    expect(() => checkPlanFits(plan, plan.totalBytes - 1, 'Qwen3-0.6B')).toThrow(/Qwen3-0\.6B \(L=28, C=1024, V=151936.*more than the budget/);
  });

  it('generation_config.json errors name that file', () => {
    expect(() => parseModelConfig(tinyConfigJson(), { eos_token_id: 'x' })).toThrow(/^generation_config\.json field "eos_token_id"/);
  });

  it('a config.json that is not JSON: the error names the file', async () => {
    const dir = await folder({ 'config.json': '{"architectures": ', 'model.safetensors': weights() });
    await expect(loadModelFolder(dir)).rejects.toThrow(ModelFileError);
    await expect(loadModelFolder(dir)).rejects.toThrow(/config\.json is not valid JSON/);
  });
});

describe('paths stay inside the model folder', () => {
  it('a weight_map entry ../../../../../../etc/passwd is refused naming the index file, and nothing is read', async () => {
    const index = { weight_map: { 'model.embed_tokens.weight': '../../../../../../etc/passwd' } };
    expect(() => shardFiles(index)).toThrow(UnsafeModelPathError);
    expect(() => shardFiles(index)).toThrow(/model\.safetensors\.index\.json field "weight_map\["model\.embed_tokens\.weight"\]".*'\.\.'/);
    const dir = await folder({ 'config.json': JSON.stringify(tinyConfigJson()), 'model.safetensors.index.json': JSON.stringify(index) });
    await expect(loadModelFolder(dir)).rejects.toThrow(UnsafeModelPathError);
  });

  it.each(['../x.safetensors', '/etc/x.safetensors', 'a\\..\\x.safetensors', 'x\u0000.safetensors', 'https://evil.example/x.safetensors', 'C:x.safetensors', '%2e%2e/x.safetensors', '.x.safetensors', 'a//x.safetensors', '', 'x.bin'])(
    'refuses the shard path %j',
    (path) => {
      expect(() => checkModelFilePath(path, { file: 'index', field: 'weight_map' }, '.safetensors')).toThrow(UnsafeModelPathError);
    },
  );

  it('accepts Hugging Face shard names', () => {
    for (const p of ['model-00001-of-00002.safetensors', 'sub/model.safetensors']) expect(checkModelFilePath(p, { file: 'i', field: 'f' }, '.safetensors')).toBe(p);
  });

  it('a Hub file URL cannot leave the repository', () => {
    expect(() => hubFileUrl('https://huggingface.co', 'Qwen/Qwen3-0.6B', 'main', '../../other/repo/config.json')).toThrow(UnsafeModelPathError);
  });

  it('a symbolic link out of the folder is refused', async () => {
    const outside = join(root, 'outside.safetensors');
    await writeFile(outside, weights());
    const dir = await folder({ 'config.json': JSON.stringify(tinyConfigJson()) });
    await symlink(outside, join(dir, 'model.safetensors'));
    await expect(loadModelFolder(dir)).rejects.toThrow(/outside the model folder/);
  });
});

describe('weights', () => {
  it.each([NaN, Infinity, -Infinity])('a %s weight is refused naming the tensor and the file', async (value) => {
    const bytes = poisonF32(weights(), 'model.layers.1.mlp.up_proj.weight', 5, value);
    expect(() => loadCheckpoint({ configJson: tinyConfigJson(), safetensors: [bytes] })).toThrow(NonFiniteTensorError);
    const dir = await folder({ 'config.json': JSON.stringify(tinyConfigJson()), 'model.safetensors': bytes });
    await expect(loadModelFolder(dir)).rejects.toThrow(new RegExp(`model\\.safetensors: tensor "model\\.layers\\.1\\.mlp\\.up_proj\\.weight" holds ${value} at element 5`));
  });

  it('a NaN in a BF16 or F16 file is found too', () => {
    for (const dtype of ['BF16', 'F16'] as const) {
      const data = new Float32Array(4);
      data[2] = NaN;
      const file = writeSafetensors(new Map([['w', { shape: [4], data, dtype }]]));
      expect(() => readSafetensors(file, 'x.safetensors', { requireFinite: true })).toThrow(/x\.safetensors: tensor "w" holds NaN at element 2/);
      expect(readSafetensors(file).tensors.get('w')!.data[1]).toBe(0); // without the check it decodes
    }
  });

  it('npm run model:logits --cpu exits non-zero with the message for NaN weights', async () => {
    const dir = await folder({ 'config.json': JSON.stringify(tinyConfigJson()), 'model.safetensors': poisonF32(weights(), 'model.norm.weight', 0, NaN) });
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/model-logits.ts', '--model', dir, '--ids', '1,2', '--cpu'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/tensor "model\.norm\.weight" holds NaN/);
    expect(run.stdout).not.toMatch(/null/);
  });

  it('overlapping tensors in a header are refused naming both', () => {
    const data = new Uint8Array(16);
    const file = withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] }, c: { dtype: 'F32', shape: [1], data_offsets: [12, 16] } }, data);
    expect(() => parseSafetensorsHeader(file, file.length, 'model.safetensors')).toThrow(OverlappingTensorsError);
    expect(() => parseSafetensorsHeader(file, file.length, 'model.safetensors')).toThrow(/model\.safetensors: tensors "a" and "b" overlap/);
    const same = withHeader({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8));
    expect(() => parseSafetensorsHeader(same)).toThrow(OverlappingTensorsError);
  });

  it('gaps, trailing bytes, huge shapes and a header longer than the file are refused from the header alone', () => {
    const gap = withHeader({ a: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, new Uint8Array(8));
    expect(() => parseSafetensorsHeader(gap)).toThrow(/belong to no tensor/);
    const trailing = withHeader({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, new Uint8Array(8));
    expect(() => parseSafetensorsHeader(trailing)).toThrow(/cover 4 bytes, the data section has 8/);
    const huge = withHeader({ a: { dtype: 'F32', shape: [2 ** 40, 2 ** 40], data_offsets: [0, 4] } }, new Uint8Array(4));
    expect(() => parseSafetensorsHeader(huge)).toThrow(CorruptHeaderError);
    const long = weights().slice();
    new DataView(long.buffer).setBigUint64(0, BigInt(long.length), true);
    expect(() => parseSafetensorsHeader(long, long.length, 'model.safetensors')).toThrow(TruncatedFileError);
    expect(() => parseSafetensorsHeader(long, long.length, 'model.safetensors')).toThrow(/^model\.safetensors: the header claims/);
  });
});

describe('config and weights that disagree', () => {
  const threeLayers = () => tinyWeights(createRng(3), tinyModelConfig({ ...FUZZ_MODEL, numLayers: 3 }));

  it('a config with fewer layers than the weights is refused naming config.json, the field and the weights file', async () => {
    const dir = await folder({ 'config.json': JSON.stringify(tinyConfigJson()), 'model.safetensors': threeLayers() });
    await expect(loadModelFolder(dir)).rejects.toThrow(ConfigWeightsMismatchError);
    await expect(loadModelFolder(dir)).rejects.toThrow(/model\.layers\.2\..*belongs to layer 2.*config\.json field "num_hidden_layers" disagrees with .*model\.safetensors/);
  });

  it('a config with more layers than the weights is refused naming the layer', () => {
    const json = toHfConfigJson({ ...FUZZ_MODEL, numLayers: 4 });
    expect(() => loadCheckpoint({ configJson: json, safetensors: [threeLayers()] })).toThrow(/no tensor of layer 3.*"num_hidden_layers" disagrees with model\.safetensors/);
  });

  it('a shape mismatch names the config fields; weights of the other architecture are refused', () => {
    const wide = toHfConfigJson({ ...FUZZ_MODEL, intermediateSize: 48 });
    expect(() => loadCheckpoint({ configJson: wide, safetensors: [weights()] })).toThrow(/gate_proj.*"hidden_size, intermediate_size" disagrees/);
    const qwen2Weights = tinyWeights(createRng(4), tinyModelConfig({ ...FUZZ_MODEL, architecture: 'qwen2', headDim: 8 }));
    const qwen2Config = tinyConfigJson(tinyModelConfig({ ...FUZZ_MODEL, architecture: 'qwen2' }));
    expect(() => loadCheckpoint({ configJson: { ...qwen2Config, architectures: ['Qwen3ForCausalLM'], head_dim: 8 }, safetensors: [qwen2Weights] })).toThrow(ConfigWeightsMismatchError);
  });
});

describe('PEFT adapter files', () => {
  const lora = { rank: 2, alpha: 4, targetModules: ['q_proj' as const], dropout: 0, useRslora: false };
  const files = () => writePeftAdapter(createLoraAdapter(FUZZ_MODEL, lora, createRng(5)), { modelId: 't/t', config: FUZZ_MODEL });
  const read = (patch: Record<string, unknown>) => {
    const f = files();
    const configJson = JSON.stringify({ ...(JSON.parse(f['adapter_config.json']) as Record<string, unknown>), ...patch });
    return () => readPeftAdapter({ safetensors: f['adapter_model.safetensors'], configJson }, FUZZ_MODEL);
  };

  it.each([
    [{ r: 1e9 }, /"rank": must be a positive integer at most 1024/],
    [{ lora_alpha: -3 }, /"alpha"/],
    [{ lora_dropout: 2 }, /"dropout"/],
    [{ target_modules: '(.*)*z' }, /exponential/],
    [{ target_modules: '(q|q)*_proj' }, /exponential/],
    [{ target_modules: '.*.*.*.*.*x' }, /exponential/],
  ])('%j is refused naming adapter_config.json', (patch, message) => {
    expect(read(patch)).toThrow(AdapterFileError);
    expect(read(patch)).toThrow(message);
    expect(read(patch)).toThrow(/^adapter_config\.json/);
  });

  it('a PEFT regex of the usual shape still loads', () => {
    expect(read({ target_modules: 'model\\.layers\\.\\d+\\.self_attn\\.(q)_proj' })).not.toThrow();
  });

  it('NaN in an adapter tensor is refused naming the tensor; a damaged header is a header error', () => {
    const f = files();
    const bad = poisonF32(f['adapter_model.safetensors'], peftTensorName(1, 'q_proj', 'A'), 3, NaN);
    expect(() => readPeftAdapter({ safetensors: bad, configJson: f['adapter_config.json'] }, FUZZ_MODEL)).toThrow(/adapter_model\.safetensors, tensor "base_model\.model\.model\.layers\.1\.self_attn\.q_proj\.lora_A\.weight": value 3 is NaN/);
    const cut = f['adapter_model.safetensors'].slice(0, 40);
    expect(() => readPeftAdapter({ safetensors: cut, configJson: f['adapter_config.json'] }, FUZZ_MODEL)).toThrow(AdapterFileError);
  });
});
