/**
 * `npm run model:tiny` and the loader: every architecture option writes a folder that loads back through
 * `loadModelFolder` (config, weights checked against it, same reference logits as the in-memory weights) and whose
 * tokenizer loads; the same seed writes the same bytes; the CLI itself runs (by default into public/models/tiny/,
 * with the test-model mark) and rejects bad options.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { ModelConfigError, UnsupportedArchitectureError } from '../../src/model/config.ts';
import { loadModelFolder, loadTokenizerFolder, qwen3TokenizerConfig, qwen3TokenizerJsonPath, writeTinyModel } from '../../src/model/files-node.ts';
import { CheckpointError } from '../../src/model/load.ts';
import { referenceLogits } from '../../src/model/reference/model.ts';
import { maxAbsDiff } from '../../src/model/reference/ops.ts';
import { bf16BitsToF32, f32ToBf16Bits, OffsetOutOfRangeError, type SafetensorsDtype } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig, TinyModelOptionsError, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import { readTestModelMarker } from '../../src/model/test-model-marker.ts';
import { WeightShapeError } from '../../src/model/weights.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tiny-model-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const IDS = [151644, 872, 198, 9707, 1879, 151645]; // "<|im_start|>user\nHello world<|im_end|>"

const OPTIONS: Array<[string, Partial<TinyModelOptions>, SafetensorsDtype]> = [
  ['qwen3 tied f32 (defaults)', {}, 'F32'],
  ['qwen3 untied bf16', { tieWordEmbeddings: false }, 'BF16'],
  ['qwen2 tied f32', { architecture: 'qwen2' }, 'F32'],
  ['qwen2 untied f16, 3 layers, hidden 32, 2 heads, 1 kv head', { architecture: 'qwen2', tieWordEmbeddings: false, numLayers: 3, hiddenSize: 32, numHeads: 2, numKvHeads: 1 }, 'F16'],
  ['qwen3 MHA, head dim 8, intermediate 96', { numHeads: 4, numKvHeads: 4, headDim: 8, intermediateSize: 96, numLayers: 1 }, 'F32'],
];

describe('tiny model folders load back', () => {
  it.each(OPTIONS)('%s', async (_name, options, dtype) => {
    const dir = join(root, `m-${Math.random().toString(36).slice(2)}`);
    const config = tinyModelConfig(options);
    const files = await writeTinyModel(dir, config, createRng(11), { dtype });
    expect(files.sort()).toEqual(['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);

    const loaded = await loadModelFolder(dir);
    expect(loaded.config).toEqual(config);
    expect(loaded.ignored).toEqual([]);
    expect(loaded.config.vocabSize).toBe(151936);

    const original = randomModelWeights(config, createRng(11));
    for (const [name, t] of original) {
      const back = loaded.tensors.get(name)!;
      expect(back.dtype).toBe(dtype);
      expect(back.shape).toEqual(t.shape);
      // Typed arrays of millions of values: compare bytes, not through toEqual (which walks them slowly).
      if (dtype === 'F32') expect(Buffer.from(back.data.buffer, back.data.byteOffset, back.data.byteLength).equals(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))).toBe(true);
      if (dtype === 'BF16') expect(back.data[0]).toBe(bf16BitsToF32(f32ToBf16Bits(t.data[0])));
    }
    if (dtype === 'F32') {
      expect(maxAbsDiff(referenceLogits(loaded.config, loaded.tensors, IDS), referenceLogits(config, original, IDS))).toBe(0);
    } else {
      const logits = referenceLogits(loaded.config, loaded.tensors, IDS);
      expect(logits.every(Number.isFinite)).toBe(true);
    }
    // The tokenizer files are the package's (loaded and exercised once, below).
    expect((await readFile(join(dir, 'tokenizer.json'))).equals(await readFile(qwen3TokenizerJsonPath()))).toBe(true);
  });

  it("loads the folder's tokenizer, whose ids fit the model's vocabulary", async () => {
    const dir = join(root, 'tok');
    const config = tinyModelConfig({ numLayers: 1 });
    await writeTinyModel(dir, config, createRng(1), { dtype: 'BF16' });
    const tok = await loadTokenizerFolder(dir);
    expect(tok.encode('<|im_start|>user\nHello world<|im_end|>')).toEqual(IDS);
    expect(tok.size).toBeLessThanOrEqual(config.vocabSize);
    const saved = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toEqual(await qwen3TokenizerConfig());
    expect(saved).not.toHaveProperty('default');
  });

  it('writes the same bytes for the same seed', async () => {
    const config = tinyModelConfig({ numLayers: 1, vocabSize: 1000 }); // small: this checks bytes, not the vocabulary
    await writeTinyModel(join(root, 's1'), config, createRng(5), { dtype: 'BF16' });
    await writeTinyModel(join(root, 's2'), config, createRng(5), { dtype: 'BF16' });
    await writeTinyModel(join(root, 's3'), config, createRng(6), { dtype: 'BF16' });
    const [a, b, c] = await Promise.all(['s1', 's2', 's3'].map((d) => readFile(join(root, d, 'model.safetensors'))));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });

  it('refuses impossible shapes', () => {
    expect(() => tinyModelConfig({ numHeads: 4, numKvHeads: 3 })).toThrow(TinyModelOptionsError);
    expect(() => tinyModelConfig({ architecture: 'qwen2', hiddenSize: 60, numHeads: 8, numKvHeads: 2 })).toThrow(/multiple of --heads/);
  });
});

describe('loader errors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(root, 'broken');
    await writeTinyModel(dir, tinyModelConfig({ numLayers: 1 }), createRng(1), { dtype: 'BF16' });
  });

  it('names a missing folder or file', async () => {
    await expect(loadModelFolder(join(root, 'nope'))).rejects.toThrow(CheckpointError);
  });

  it('a config that does not match the weights names the tensor', async () => {
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, intermediate_size: 100 }));
    await expect(loadModelFolder(dir)).rejects.toThrow(WeightShapeError);
    await expect(loadModelFolder(dir)).rejects.toThrow(/model\.layers\.0\.mlp\.gate_proj\.weight/);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, tie_word_embeddings: false }));
    await expect(loadModelFolder(dir)).rejects.toThrow(/lm_head\.weight.*missing/);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, architectures: ['GPT2LMHeadModel'] }));
    await expect(loadModelFolder(dir)).rejects.toThrow(UnsupportedArchitectureError);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 'two' }));
    await expect(loadModelFolder(dir)).rejects.toThrow(ModelConfigError);
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  });

  it('a truncated download is an offset error', async () => {
    const bytes = await readFile(join(dir, 'model.safetensors'));
    await writeFile(join(dir, 'model.safetensors'), bytes.subarray(0, bytes.length - 100));
    await expect(loadModelFolder(dir)).rejects.toThrow(OffsetOutOfRangeError);
    await writeFile(join(dir, 'model.safetensors'), bytes);
    await expect(loadModelFolder(dir)).resolves.toBeDefined();
  });
});

describe('npm run model:tiny (the script)', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-tiny-model.ts', ...args], { encoding: 'utf8', cwd: process.cwd() });

  it('writes a loadable qwen2 untied bf16 model from its flags, by default into public/models/tiny/, which the app serves', async () => {
    // Run from an empty folder standing in for a checkout, so the real public/ is never written.
    const cwd = join(root, 'checkout');
    await mkdir(cwd, { recursive: true });
    const script = join(process.cwd(), 'scripts', 'make-tiny-model.ts');
    const tsx = pathToFileURL(join(process.cwd(), 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const args = ['--arch', 'qwen2', '--layers', '1', '--hidden', '32', '--heads', '4', '--kv-heads', '2', '--tied', 'false', '--dtype', 'bf16', '--seed', '3'];
    const r = spawnSync(process.execPath, ['--import', tsx, script, ...args], { encoding: 'utf8', cwd });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/wrote qwen2 L=1 C=32 H=4 KVH=2 D=8/);
    expect(r.stdout, 'says how to load it').toMatch(/Folder URL models\/tiny\/$/m);
    const out = join(cwd, 'public', 'models', 'tiny');
    // The test-model mark names the script and its seed (src/model/test-model-marker.ts).
    const marker = readTestModelMarker(JSON.parse(await readFile(join(out, 'config.json'), 'utf8')));
    expect(marker).toEqual({ generator: 'npm run model:tiny', seed: 3, problem: null });
    const loaded = await loadModelFolder(out);
    expect(loaded.config).toMatchObject({ architecture: 'qwen2', numLayers: 1, hiddenSize: 32, headDim: 8, tieWordEmbeddings: false, qkvBias: true });
  });

  it('exits 2 with usage on bad flags', () => {
    for (const args of [['--out', join(root, 'x'), '--arch', 'llama'], ['--out', join(root, 'x'), '--tied', 'yes'], ['--out', join(root, 'x'), '--heads', '3']]) {
      const r = run(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/usage: npm run model:tiny/);
    }
  });
});
