/**
 * The training model's rollouts share a prompt's KV cache between slots (src/train/gpu-model.ts through
 * rollout-decode.ts and the scheduler of src/policies/llm/prefix-scheduler.ts; Node, Dawn; SwiftShader here), on the
 * toy task's model: two GRPO groups (two episodes of each prompt) whose prompts share only a system prompt compute
 * each shared part once — the first of the second group copies the system prompt from the first group, its twin
 * then copies the whole prompt from it (rows copied from a slot that was itself given copied rows) — and give
 * exactly the tokens and log-probabilities of the same requests generated one at a time.
 * Seeds are drawn anew each run (printed).
 */
import { describe, expect, it } from 'vitest';
import { toyGpuModel, toySetup } from '../../src/gpu-tests/toy-gpu.ts';
import { MIN_SHARED_PREFIX } from '../../src/policies/llm/prefix-slots.ts';
import type { GenerateRequest } from '../../src/train/policy-model.ts';
import { useDawnContext } from './dawn-context.ts';
import { testSeed } from '../fixtures/seed.ts';

const SEED = testSeed('tests/gpu/train-share-node.test.ts');

const lcp = (a: readonly number[], b: readonly number[]): number => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
};

describe('training rollouts share a prompt between slots (toy model, Dawn)', () => {
  const gpu = useDawnContext('train-share-node', `train-share seed ${SEED}`);

  it('computes each GRPO group’s prompt once and gives the tokens of one request at a time', { timeout: 900_000 }, async () => {
    const s = await toySetup();
    // Token ids drawn at random (the toy tokenizer knows only the toy task's words): a 48-token "system prompt"
    // shared by both questions, then 8 tokens of the first and 40 of the second (more than MIN_SHARED_PREFIX: worth
    // a wait for its twin).
    let state = SEED;
    const ids = (n: number) =>
      Array.from({ length: n }, () => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return (state >>> 8) % s.tokenizer.size;
      });
    const system = ids(48);
    const prompt = [...system, ...ids(8)];
    const other = [...system, ...ids(40)];
    expect(lcp(prompt, other)).toBeGreaterThanOrEqual(48);
    expect(lcp(prompt, other) + MIN_SHARED_PREFIX).toBeLessThanOrEqual(other.length - 1); // the second twin waits
    const request = (promptTokenIds: number[], i: number): GenerateRequest => ({ promptTokenIds, maxNewTokens: 5, temperature: 1, topP: 1, seed: (SEED + 97 * i) >>> 0 });
    const requests = [prompt, prompt, other, other].map(request);

    const batched = await (async () => {
      const model = await toyGpuModel(gpu(), s, { rolloutSlots: 4 });
      try {
        return await model.generate(requests);
      } finally {
        model.destroy();
      }
    })();
    const single = [];
    for (const r of requests) {
      const model = await toyGpuModel(gpu(), s, { rolloutSlots: 1 }); // each from an empty cache: the plain computation
      try {
        single.push(...(await model.generate([r])));
      } finally {
        model.destroy();
      }
    }
    expect(batched.map((g) => g.tokenIds)).toEqual(single.map((g) => g.tokenIds));
    expect(batched.map((g) => g.logProbs)).toEqual(single.map((g) => g.logProbs));
    // The first prefills its prompt, its twin only the last token; the second question past the system prompt, its
    // twin only the last token (HEAD's rollouts prefilled the second twin past the system prompt again).
    expect(batched.map((g) => g.prefillTokens)).toEqual([prompt.length, 1, other.length - lcp(prompt, other), 1]);
    expect(single.map((g) => g.prefillTokens)).toEqual(requests.map((r) => r.promptTokenIds.length));
  });
});
