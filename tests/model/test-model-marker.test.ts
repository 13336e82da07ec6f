/**
 * The test-model mark (src/model/test-model-marker.ts): `writeTinyModel` writes it into config.json, the reader gives
 * it back; a config.json without it is a real model; a mark that is not as the generator writes it still marks the
 * model as a test model, with the fault named, and no hostile text (control characters, megabytes) gets through.
 * Expected values are written by hand from the module's contract, not read from its output.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { toHfConfigJson } from '../../src/model/config.ts';
import { writeTinyModel } from '../../src/model/files-node.ts';
import { describeTestModel, readTestModelMarker, TEST_MODEL_FIELD, TEST_WEIGHTS_NOTICE, testModelMarkerJson, type TestModelMarker } from '../../src/model/test-model-marker.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'test-model-marker-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const withMark = (mark: unknown): Record<string, unknown> => ({ ...(toHfConfigJson(tinyModelConfig()) as Record<string, unknown>), [TEST_MODEL_FIELD]: mark });

describe('the mark written', () => {
  it('writeTinyModel marks config.json with its generator and seed, and the reader gives them back', async () => {
    const dir = join(root, 'named');
    await writeTinyModel(dir, tinyModelConfig({ numLayers: 1, hiddenSize: 32, vocabSize: 512 }), createRng(7), { dtype: 'BF16', generator: { name: 'npm run model:tiny', seed: 7 } });
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config[TEST_MODEL_FIELD]).toEqual({ weights: 'random', generator: 'npm run model:tiny', seed: 7 });
    expect(readTestModelMarker(config)).toEqual({ generator: 'npm run model:tiny', seed: 7, problem: null });
  });

  it('writeTinyModel marks its models even when the caller names no generator (every model it writes is random)', async () => {
    const dir = join(root, 'unnamed');
    await writeTinyModel(dir, tinyModelConfig({ numLayers: 1, hiddenSize: 32, vocabSize: 512 }), createRng(1), { dtype: 'BF16' });
    const marker = readTestModelMarker(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')));
    expect(marker?.problem).toBeNull();
    expect(marker?.seed).toBeNull();
    expect(marker?.generator).toMatch(/writeTinyModel/);
  });
});

describe('the mark read', () => {
  it('a config.json without the field is a real model', () => {
    expect(readTestModelMarker(toHfConfigJson(tinyModelConfig()))).toBeNull();
    // A real checkpoint's config.json has many fields the mark could be confused with; none of them marks it.
    expect(readTestModelMarker({ architectures: ['Qwen3ForCausalLM'], sqlenv_test: true, test_model: { weights: 'random' } })).toBeNull();
  });

  it.each([null, undefined, 'config', 42, [], [1, 2]])('a config.json that is not an object (%j) gives no mark and no throw', (config) => {
    expect(readTestModelMarker(config)).toBeNull();
  });

  it('the generator writes exactly what the reader accepts', () => {
    expect(readTestModelMarker(withMark(testModelMarkerJson('gen', 0)))).toEqual({ generator: 'gen', seed: 0, problem: null });
    expect(readTestModelMarker(withMark(testModelMarkerJson('gen', 0xffffffff)))).toEqual({ generator: 'gen', seed: 4294967295, problem: null });
    expect(readTestModelMarker(withMark(testModelMarkerJson('gen', null)))).toEqual({ generator: 'gen', seed: null, problem: null });
  });

  const MALFORMED: Array<[string, unknown, TestModelMarker]> = [
    ['a string', 'yes', { generator: null, seed: null, problem: 'it is not an object' }],
    ['null', null, { generator: null, seed: null, problem: 'it is not an object' }],
    ['false', false, { generator: null, seed: null, problem: 'it is not an object' }],
    ['an array', [{ weights: 'random', generator: 'g' }], { generator: null, seed: null, problem: 'it is not an object' }],
    ['weights not random', { weights: 'trained', generator: 'g', seed: 1 }, { generator: 'g', seed: 1, problem: '"weights" is not "random"' }],
    ['no generator', { weights: 'random', seed: 1 }, { generator: null, seed: 1, problem: '"generator" is not a text' }],
    ['an empty generator', { weights: 'random', generator: ' \u0000 ' }, { generator: null, seed: null, problem: '"generator" is not a text' }],
    ['a negative seed', { weights: 'random', generator: 'g', seed: -1 }, { generator: 'g', seed: null, problem: '"seed" is not an integer in [0, 2^32)' }],
    ['a seed of 2^32', { weights: 'random', generator: 'g', seed: 2 ** 32 }, { generator: 'g', seed: null, problem: '"seed" is not an integer in [0, 2^32)' }],
    ['a fractional seed', { weights: 'random', generator: 'g', seed: 1.5 }, { generator: 'g', seed: null, problem: '"seed" is not an integer in [0, 2^32)' }],
    ['a text seed', { weights: 'random', generator: 'g', seed: '3' }, { generator: 'g', seed: null, problem: '"seed" is not an integer in [0, 2^32)' }],
    ['everything wrong', { weights: 1, generator: 2, seed: 'x' }, { generator: null, seed: null, problem: '"weights" is not "random", "generator" is not a text, "seed" is not an integer in [0, 2^32)' }],
  ];
  it.each(MALFORMED)('a malformed mark (%s) still marks a test model and names the fault', (_name, mark, expected) => {
    expect(readTestModelMarker(withMark(mark))).toEqual(expected);
  });

  it('hostile text is cut short and loses its control characters', () => {
    const huge = 'A'.repeat(5_000_000);
    const long = readTestModelMarker(withMark({ weights: 'random', generator: huge }));
    expect(long?.generator).toBe(`${'A'.repeat(80)}…`);
    const control = readTestModelMarker(withMark({ weights: 'random', generator: 'evil\u001b[31m\nname\u0085' }));
    expect(control?.generator).toBe('evil [31m name');
  });

  it('a field inherited through the prototype is not a mark', () => {
    const config = Object.create({ [TEST_MODEL_FIELD]: { weights: 'random', generator: 'g' } }) as Record<string, unknown>;
    expect(readTestModelMarker(config)).toBeNull();
  });
});

describe('the words shown', () => {
  it('a well-formed mark: the notice, the generator and the seed', () => {
    const text = describeTestModel({ generator: 'npm run model:tiny', seed: 3, problem: null });
    expect(text.startsWith('Random test weights: expect nonsense.')).toBe(true);
    expect(text).toContain('npm run model:tiny, seed 3');
  });

  it('a malformed mark: the notice first, then the fault', () => {
    const text = describeTestModel({ generator: null, seed: null, problem: 'it is not an object' });
    expect(text.startsWith(TEST_WEIGHTS_NOTICE)).toBe(true);
    expect(text).toContain(`"${TEST_MODEL_FIELD}" field is malformed: it is not an object`);
  });
});
