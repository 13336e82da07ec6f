/**
 * The TypeScript reference against an independent oracle: `oracle/qwen_numpy.py`, a NumPy port written the way
 * Hugging Face's modeling_qwen2/3 are (head reshapes, rotate_half, repeat_kv, masked softmax), run on tiny model
 * folders of every architecture option. Skipped where python3 with numpy is missing; the pinned values at the end
 * (taken from the oracle) run everywhere, so a change to the reference or to the tiny-model weights is caught even
 * then (regenerate them from the oracle if the tiny-model initialisation changes on purpose).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { loadModelFolder, writeTinyModel } from '../../src/model/files-node.ts';
import { referenceLogits } from '../../src/model/reference/model.ts';
import { maxAbsDiff } from '../../src/model/reference/ops.ts';
import type { SafetensorsDtype } from '../../src/model/safetensors.ts';
import { tinyModelConfig, type TinyModelOptions } from '../../src/model/tiny-model.ts';

const ORACLE = join(import.meta.dirname, 'oracle', 'qwen_numpy.py');
const HAS_NUMPY = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0;
/** Prompt-like ids: "<|im_start|>user\nHello world<|im_end|>\n<|im_start|>assistant\n" plus a high id. */
const IDS = [151644, 872, 198, 9707, 1879, 151645, 198, 151644, 77091, 198, 151935];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'oracle-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function oracleLogits(dir: string, ids: number[]): Promise<Float64Array> {
  const out = join(dir, 'oracle.f64');
  const r = spawnSync('python3', [ORACLE, dir, ids.join(','), out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  const bytes = await readFile(out);
  return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
}

const CASES: Array<[string, Partial<TinyModelOptions>, SafetensorsDtype]> = [
  ['qwen3 tied (defaults)', {}, 'F32'],
  ['qwen3 untied, head size 8 ≠ C/H, KVH 1', { tieWordEmbeddings: false, headDim: 8, numKvHeads: 1 }, 'BF16'],
  ['qwen2 tied, 3 layers', { architecture: 'qwen2', numLayers: 3 }, 'F32'],
  ['qwen2 untied, hidden 48, 6 heads, 3 kv heads', { architecture: 'qwen2', tieWordEmbeddings: false, hiddenSize: 48, numHeads: 6, numKvHeads: 3 }, 'F16'],
];

describe.skipIf(!HAS_NUMPY)('reference vs the NumPy (HF-style) oracle', () => {
  it.each(CASES)('%s: logits agree to 1e-9', async (_name, options, dtype) => {
    const dir = join(root, `m-${Math.random().toString(36).slice(2)}`);
    await writeTinyModel(dir, tinyModelConfig(options), createRng(21), { dtype });
    const loaded = await loadModelFolder(dir);
    const ours = referenceLogits(loaded.config, loaded.tensors, IDS);
    const theirs = await oracleLogits(dir, IDS);
    expect(theirs.length).toBe(ours.length);
    expect(maxAbsDiff(ours, theirs)).toBeLessThan(1e-9);
  });
});

describe('pinned reference logits (default tiny qwen3, seed 0)', () => {
  it('matches values taken from the NumPy oracle', async () => {
    const dir = join(root, 'pinned');
    await writeTinyModel(dir, tinyModelConfig(), createRng(0), { dtype: 'F32' });
    const loaded = await loadModelFolder(dir);
    const logits = referenceLogits(loaded.config, loaded.tensors, IDS);
    const V = loaded.config.vocabSize;
    const last = logits.subarray((IDS.length - 1) * V);
    PINNED.forEach(([id, value]) => expect([id, last[id]]).toEqual([id, expect.closeTo(value, 9)]));
    const top5 = Array.from(last.keys()).sort((a, b) => last[b] - last[a]).slice(0, 5);
    expect(top5).toEqual([5538, 23649, 84129, 73185, 31855]);
  });
});

/** From the oracle (python3 oracle/qwen_numpy.py DIR <IDS> OUT): last-position logits of `npm run model:tiny -- --seed 0`. */
const PINNED: Array<[number, number]> = [
  [0, 2.3997976911026697],
  [1, -2.469584213085307],
  [9707, -4.204412338336536],
  [151643, 1.3561390691263302],
  [151645, -2.135688427554666],
  [151935, 0.34710050719067287],
];
