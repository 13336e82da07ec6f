/**
 * `npm run model:tiny -- --onnx fp32,q4`: one folder holds the safetensors checkpoint and the onnx-community files
 * made from it. With `--dtype bf16` the ONNX weights must be the checkpoint's bf16-rounded values (the folder is read
 * back), so onnxruntime-node's fp32 logits equal the float64 reference on the loaded checkpoint within f32
 * tolerance; the q4 file is there with MatMulNBits; an unknown ONNX dtype exits 2 with the usage and writes nothing.
 * Seed new on each run, printed.
 */
import { spawnSync } from 'node:child_process';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../src/model/files-node.ts';
import { referenceLogits } from '../../src/model/reference/model.ts';
import { testSeed } from '../fixtures/seed.ts';

const seed = testSeed('tests/model/onnx-community-cli.test.ts');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'onnx-community-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-tiny-model.ts', ...args], { encoding: 'utf8', cwd: process.cwd() });
const i64 = (values: readonly number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);

describe('npm run model:tiny -- --onnx', () => {
  it('writes onnx/model.onnx and onnx/model_q4.onnx from the folder\'s own (bf16) weights', async () => {
    const out = join(root, 'both');
    const r = run(['--out', out, '--layers', '1', '--hidden', '32', '--dtype', 'bf16', '--seed', String(seed), '--onnx', 'fp32,q4']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/model\.safetensors, tokenizer\.json, onnx\/model\.onnx, onnx\/model_q4\.onnx/);
    const model = await loadModelFolder(out);
    const c = model.config;

    const prompt = [9707, 11, 1879, 0, 151644]; // real token ids: the vocabulary is Qwen3's
    const session = await ort.InferenceSession.create(join(out, 'onnx', 'model.onnx'));
    const feeds: Record<string, ort.Tensor> = { input_ids: i64(prompt), attention_mask: i64(prompt.map(() => 1)), position_ids: i64(prompt.map((_, t) => t)) };
    for (const name of session.inputNames.filter((n) => n.startsWith('past_key_values.'))) feeds[name] = new ort.Tensor('float32', new Float32Array(0), [1, c.numKvHeads, 0, c.headDim]);
    const logits = (await session.run(feeds)).logits.data as Float32Array;
    const ref = referenceLogits(c, model.tensors, prompt);
    let diff = 0;
    for (let i = 0; i < ref.length; i++) diff = Math.max(diff, Math.abs(ref[i] - logits[i]));
    console.log(`CLI folder fp32 ONNX vs reference on the loaded bf16 checkpoint: max |Δlogit| ${diff.toExponential(2)} over ${ref.length} logits`);
    expect(diff).toBeLessThan(1e-4);

    const q4 = await readFile(join(out, 'onnx', 'model_q4.onnx'));
    expect(q4.includes(Buffer.from('MatMulNBits'))).toBe(true);
    expect((await ort.InferenceSession.create(q4)).outputNames).toEqual(['logits', 'present.0.key', 'present.0.value']);
  });

  it('exits 2 with the usage for an unknown ONNX dtype, before writing anything', async () => {
    const out = join(root, 'bad');
    const r = run(['--out', out, '--onnx', 'fp32,q8']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown ONNX dtype 'q8': choose from fp32, q4, q4f16\nusage: npm run model:tiny/);
    await expect(access(out)).rejects.toThrow();
  });
});
