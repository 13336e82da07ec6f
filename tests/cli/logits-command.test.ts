/**
 * `sqlenv logits` on the Node WebGPU engine (SwiftShader here) against the float64 reference.
 *
 * Tolerance: the reference is given the weights as the engine stores them (every matrix rounded through f16, or
 * through q8's groups), so what is left is the engine's f32 arithmetic against float64: sums of 32–64 products of
 * values of a few units, each rounded at ~6e-8 relative, plus the attention's online softmax. The engine's own GPU
 * checks hold the same forward to |Δ| ≤ 5e-5 + 1e-4·|ref| (src/gpu-tests/checks/engine.ts), and so does this test;
 * the storage rounding itself (f16 weights against the f32 file) moves these logits by ~4e-3, far above that bound,
 * so a kernel reading unrounded or wrongly packed weights fails.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topLogits } from '../../src/model/top-logits.ts';
import { loadModelFolder, loadTokenizerFolder } from '../../src/model/files-node.ts';
import { createReferenceSession } from '../../src/model/reference/model.ts';
import { readSafetensors, writeSafetensors, type TensorToWrite } from '../../src/model/safetensors.ts';
import { jsonLines, sqlenv, storedWeights, tinyModelFolder, worstExcess } from './model-fixture.ts';

const TOL = { abs: 5e-5, rel: 1e-4 };
const IDS = [151644, 872, 198, 3838, 374, 279, 8644, 315, 9625, 30, 151645, 198, 151644, 77091, 198];

let folder: Awaited<ReturnType<typeof tinyModelFolder>>;
beforeAll(async () => {
  folder = await tinyModelFolder();
});
afterAll(() => folder?.cleanup());

interface LogitsOutput {
  model: string;
  backend: string;
  quant: string;
  adapter: string;
  lora: string | null;
  tokens: number;
  ids: number[];
  logits: number[];
}

async function logits(args: string[]): Promise<LogitsOutput> {
  const run = await sqlenv(['logits', '--model', folder.model, ...args]);
  expect(run.stderr).not.toMatch(/Error/);
  expect(run.code).toBe(0);
  const [out] = jsonLines(run.stdout);
  return out as unknown as LogitsOutput;
}

/** The reference's last-position logits on the weights as `format` stores them. */
async function reference(ids: number[], format: 'f16' | 'q8'): Promise<Float64Array> {
  const model = await loadModelFolder(folder.model);
  return createReferenceSession(model.config, storedWeights(model.tensors, format)).prefill(ids);
}

describe('sqlenv logits', () => {
  it.each(['f16', 'q8'] as const)('gives the top-K of the float64 reference on %s-stored weights', async (quant) => {
    const out = await logits(['--ids', IDS.join(','), '--quant', quant, '--top', '40']);
    expect(out).toMatchObject({ model: folder.model, backend: 'webgpu', quant, lora: null, tokens: IDS.length });
    expect(out.adapter).toMatch(/\//);
    const ref = await reference(IDS, quant);
    const { excess, maxAbs } = worstExcess(
      out.logits,
      out.ids.map((id) => ref[id]),
      TOL.abs,
      TOL.rel,
    );
    console.log(`logits ${quant}: max |gpu − ref| = ${maxAbs.toExponential(2)} over the top 40 (bound ${TOL.abs} + ${TOL.rel}·|ref|)`);
    expect(excess).toBeLessThanOrEqual(0);
    expect(out.ids).toEqual(topLogits(ref, 40).ids);
  }, 180_000);

  it('tokenizes --text with the model folder’s tokenizer', async () => {
    const text = 'How many singers do we have?';
    const out = await logits(['--text', text, '--top', '5']);
    const ids = (await loadTokenizerFolder(folder.model)).encode(text);
    expect(out.tokens).toBe(ids.length);
    expect(out.ids).toEqual(topLogits(await reference(ids, 'f16'), 5).ids);
  }, 120_000);

  it('refuses non-finite logits with an error naming the model', async () => {
    // Final-norm weights of 3e38 overflow f32 in the LM head's sums: the engine's logits become ±Infinity/NaN.
    const file = join(folder.root, 'model', 'model.safetensors');
    const original = await readFile(file);
    const { tensors } = readSafetensors(new Uint8Array(original));
    const toWrite = new Map<string, TensorToWrite>();
    for (const [name, t] of tensors) toWrite.set(name, { shape: t.shape, data: name === 'model.norm.weight' ? new Float32Array(t.data.length).fill(3e38) : t.data, dtype: 'F32' });
    await writeFile(file, writeSafetensors(toWrite, { format: 'pt' }));
    try {
      const run = await sqlenv(['logits', '--model', folder.model, '--ids', '1,2,3']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${folder.model}: the logit of token`);
      expect(run.stdout).toBe('');
    } finally {
      await writeFile(file, original);
    }
  }, 120_000);
});
