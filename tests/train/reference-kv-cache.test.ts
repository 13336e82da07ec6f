/**
 * `ReferenceModelOptions.kvCache` (used by scripts/kv-cache-seeds.ts to decide the training cache): 'f16' rounds the
 * stored keys and values on both of the model's paths, generation and scoring, so the log-probs a rollout samples
 * with equal the scores the update computes for the same tokens (as with the exact cache), and they differ from the
 * exact cache's by f16 rounding only: a path that forgot the option would break the first equality.
 */
import { describe, expect, it } from 'vitest';
import { testSeed } from '../fixtures/seed.ts';
import { useToyTask } from './toy-fixture.ts';

const f = useToyTask();
const SEED = testSeed('tests/train/reference-kv-cache.test.ts');

describe('the reference model with an f16 KV cache', () => {
  it('samples with the log-probs it scores, each within f16 rounding of the exact cache', async () => {
    const prompt = f.tokenizer.encodeChat([{ role: 'user', content: f.dataset.questions[0].question }]);
    const request = { promptTokenIds: prompt, maxNewTokens: 6, temperature: 1, topP: 1, seed: SEED };
    const score = async (kvCache: 'f16' | 'f32', tokenIds: number[]) =>
      Array.from(await f.model({ kvCache }).forward([{ tokenIds: [...prompt, ...tokenIds], lossMask: [...prompt.map(() => 0), ...tokenIds.map(() => 1)] }]));
    const [sampled] = await f.model({ kvCache: 'f16' }).generate([request]);
    const f16 = await score('f16', sampled.tokenIds);
    const f32 = await score('f32', sampled.tokenIds);
    expect(f16.length).toBe(sampled.tokenIds.length);
    f16.forEach((s, i) => expect(s).toBeCloseTo(sampled.logProbs[i], 6));
    const gaps = f16.map((s, i) => Math.abs(s - f32[i]));
    console.log(`seed ${SEED}: largest f16 − exact score gap ${Math.max(...gaps).toExponential(2)} over ${gaps.length} tokens`);
    expect(Math.max(...gaps)).toBeGreaterThan(0); // the rounding is there
    expect(Math.max(...gaps)).toBeLessThan(1e-2); // and is rounding only
  });
});
