/**
 * transformers.js 4 in Node (onnxruntime-node underneath) loads a tiny onnx-community folder written by
 * `writeCommunityOnnx` — config.json + onnx/model.onnx, model_q4.onnx, model_q4f16.onnx, chosen by `dtype` —
 * and its forward logits and 16-token greedy `generate` (its own KV cache: empty past built from the input metadata,
 * present.* fed back, position_ids from the mask) agree with the float64 reference: fp32 within 1e-4; q4 (int8
 * activations, as exported) and q4f16 against the reference on the file's dequantized weights within the bounds
 * derived in onnx-community.test.ts. Greedy tokens must equal the reference's up to
 * a step whose reference top-2 margin is below twice the tolerance (where the two may rightly part).
 * Seed new on each run, printed.
 */
import type { PreTrainedModel, Tensor as TjsTensor } from '@huggingface/transformers';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { toHfConfigJson, type ModelConfig } from '../../src/model/config.ts';
import { q4Checkpoint, type CommunityDtype } from '../../src/model/onnx/community.ts';
import { writeCommunityOnnx } from '../../src/model/onnx/community-node.ts';
import { createReferenceSession, referenceLogits } from '../../src/model/reference/model.ts';
import { f16BitsToF32 } from '../../src/model/safetensors.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import type { TensorMap } from '../../src/model/weights.ts';
import { maxDiff, top2 } from './logit-compare.ts';
import { testSeed } from '../fixtures/seed.ts';

const seed = testSeed('tests/model/onnx-community-tjs.test.ts');

const STEPS = 16;
const F32_TOLERANCE = 1e-4;
const config = tinyModelConfig({ vocabSize: 512, architecture: 'qwen3' });
const tensors = randomModelWeights(config, createRng(seed));
const rng = createRng(seed + 1);
const prompt = Array.from({ length: 6 }, () => Math.floor(rng.next() * config.vocabSize));
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'onnx-community-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(toHfConfigJson(config)));
  await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: config.bosTokenId, eos_token_id: config.eosTokenIds, do_sample: false }));
  await writeCommunityOnnx(dir, config, tensors, { dtypes: ['fp32', 'q4', 'q4f16'], maxPositions: 64 });
});
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/** The reference's greedy continuation and each step's top-2 margin. */
function referenceGreedy(c: ModelConfig, t: TensorMap): Array<{ index: number; margin: number }> {
  const s = createReferenceSession(c, t);
  let last = s.prefill(prompt);
  const out: Array<{ index: number; margin: number }> = [];
  for (let i = 0; i < STEPS; i++) {
    const step = top2(last);
    out.push(step);
    last = s.decode(step.index);
  }
  return out;
}

async function load(dtype: CommunityDtype): Promise<{ model: PreTrainedModel; tensor: (ids: number[]) => TjsTensor }> {
  const tjs = await import('@huggingface/transformers');
  tjs.env.allowRemoteModels = false;
  tjs.env.allowLocalModels = true;
  tjs.env.localModelPath = dirname(dir);
  const model = await tjs.AutoModelForCausalLM.from_pretrained(basename(dir), { dtype, device: 'cpu' });
  return { model, tensor: (ids) => new tjs.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]) };
}

describe('transformers.js (Node) on the onnx-community tiny model vs float64 reference', () => {
  it.each([['fp32'], ['q4'], ['q4f16']] as const)('%s: forward logits and 16 greedy generate steps', async (dtype) => {
    const q = dtype === 'fp32' ? { config, tensors } : q4Checkpoint(config, tensors, dtype);
    const ref = referenceLogits(q.config, q.tensors, prompt);
    // Bounds derived in onnx-community.test.ts: int8 activations = 3/16 of what the weight rounding itself moves the
    // prompt's logits; f16 = one 2⁻¹¹ rounding per stored activation along the path (14 a layer, 3 outside).
    const f16 = dtype === 'q4f16' ? 2 ** -11 * (14 * config.numLayers + 3) * ref.reduce((m, v) => Math.max(m, Math.abs(v)), 0) : 0;
    const tol = dtype === 'fp32' ? F32_TOLERANCE : (3 * maxDiff(referenceLogits(config, tensors, prompt), ref)) / 16 + f16;
    const { model, tensor } = await load(dtype);
    try {
      const mask = tensor(prompt.map(() => 1));
      const out = (await model({ input_ids: tensor(prompt), attention_mask: mask })) as { logits: TjsTensor };
      expect(out.logits.dims).toEqual([1, prompt.length, config.vocabSize]);
      const logits = dtype === 'q4f16' ? Float32Array.from(out.logits.data as Uint16Array, f16BitsToF32) : (out.logits.data as Float32Array);
      expect(out.logits.type).toBe(dtype === 'q4f16' ? 'float16' : 'float32');
      const logitDiff = maxDiff(logits, ref);

      const generated = (await model.generate({ input_ids: tensor(prompt), attention_mask: mask, max_new_tokens: STEPS, do_sample: false })) as TjsTensor;
      const tokens = Array.from(generated.data as BigInt64Array, Number).slice(prompt.length);
      expect(tokens).toHaveLength(STEPS);
      // Walk the reference's greedy path while the tokens match (same prefix, so the same logits up to tol): a step
      // whose reference margin exceeds 2·tol must match; a differing token is allowed only where the margin is small,
      // and ends the walk (the prefixes part there).
      const greedy = referenceGreedy(q.config, q.tensors);
      let equal = 0;
      let clear = 0;
      for (const [i, step] of greedy.entries()) {
        if (step.margin > 2 * tol) clear++;
        if (tokens[i] !== step.index) {
          expect(step.margin, `step ${i}: token ${tokens[i]} vs the reference's ${step.index}`).toBeLessThanOrEqual(2 * tol);
          break;
        }
        equal++;
      }
      console.log(
        `transformers.js ${dtype}: max |logit − reference| ${logitDiff.toExponential(2)} (tolerance ${tol.toExponential(2)}); ` +
          `greedy tokens equal the reference's for ${equal}/${STEPS} steps, ${clear} of them with top-2 margin > ${(2 * tol).toExponential(2)}`,
      );
      expect(logitDiff).toBeLessThan(tol);
    } finally {
      await model.dispose();
    }
  });
});
