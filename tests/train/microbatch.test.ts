/**
 * Micro-batching (src/train/microbatch.ts): greedy in-order packing within token / sequence / length limits, the
 * error and suggestion for an episode too long for one micro-batch, the token budget found from the memory plan
 * (largest T that fits, T + 1 does not), and gradient accumulation: micro-batched gradients on the CPU reference
 * equal the whole batch's.
 */
import { describe, expect, it } from 'vitest';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import { PROJECTIONS } from '../../src/model/weights.ts';
import { MicroBatchError, effectiveLimits, packMicroBatches, tokenBudgetForMemory } from '../../src/train/microbatch.ts';
import { sftLoss } from '../../src/train/sft.ts';
import { useToyTask } from './toy-fixture.ts';

const seq = (n: number, tag = 0) => ({ tokenIds: Array.from({ length: n }, () => tag) });

describe('packMicroBatches', () => {
  it('packs in order within the token and sequence limits', () => {
    const items = [seq(30, 1), seq(50, 2), seq(20, 3), seq(90, 4), seq(10, 5), seq(10, 6), seq(10, 7)];
    const batches = packMicroBatches(items, { maxTokens: 100, maxSequences: 2, maxSequenceTokens: 100 });
    expect(batches.map((b) => b.map((s) => s.tokenIds[0]))).toEqual([[1, 2], [3], [4, 5], [6, 7]]);
    const unlimited = packMicroBatches(items, effectiveLimits(undefined, 0));
    expect(unlimited).toHaveLength(1);
    expect(packMicroBatches([], effectiveLimits(undefined, 64))).toEqual([]);
  });

  it('stops with a clear error and a smaller setting when one episode does not fit', () => {
    const limits = effectiveLimits({ maxTokens: 512, maxSequences: 8, maxSequenceTokens: 2048 }, 0);
    try {
      packMicroBatches([seq(100), seq(700)], limits);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(MicroBatchError);
      expect((e as MicroBatchError).message).toMatch(/700 tokens does not fit.*Lower maxEpisodeTokens to 512/);
      expect((e as MicroBatchError).suggestedMaxEpisodeTokens).toBe(512);
    }
    expect(effectiveLimits({ maxTokens: 512, maxSequences: 8, maxSequenceTokens: 2048 }, 256)).toEqual({ maxTokens: 256, maxSequences: 8, maxSequenceTokens: 256 });
  });
});

describe('tokenBudgetForMemory (Qwen3-0.6B, LoRA r16 everywhere, q4 weights, G = 4 slots of 2048)', () => {
  const options = { batch: 4, context: 2048, lora: { rank: 16, targets: PROJECTIONS }, weights: 'q4' as const, logitChunkRows: 64 };
  const plan = (T: number) => planMemory(QWEN3_0_6B, { ...options, maxTokens: T, logitRows: 4, lora: { rank: 16, targets: [...options.lora.targets] }, training: { logitChunkRows: 64 } }).totalBytes;

  it('finds the largest T whose plan fits', () => {
    const available = plan(3000) + 1;
    const budget = tokenBudgetForMemory(QWEN3_0_6B, { ...options, lora: { rank: 16, targets: [...options.lora.targets] }, availableBytes: available });
    expect(budget.maxTokens).toBe(3000);
    expect(budget.bytes).toBeLessThanOrEqual(available);
    expect(plan(3001)).toBeGreaterThan(available);
    expect(budget.limits).toEqual({ maxTokens: 3000, maxSequences: 4, maxSequenceTokens: 2048 });
    const all = tokenBudgetForMemory(QWEN3_0_6B, { ...options, lora: { rank: 16, targets: [...options.lora.targets] }, availableBytes: 64 * 2 ** 30 });
    expect(all.maxTokens).toBe(4 * 2048);
  });

  it('says what to lower when not even T = B fits', () => {
    const budget = tokenBudgetForMemory(QWEN3_0_6B, { ...options, lora: { rank: 16, targets: [...options.lora.targets] }, availableBytes: 100 * 2 ** 20 });
    expect(budget.maxTokens).toBeNull();
    expect(budget.message).toMatch(/device offers 100\.0 MiB.*lower the episode length/);
  });
});

describe('gradient accumulation', () => {
  const f = useToyTask();
  it('micro-batched gradients equal the whole batch gradient', async () => {
    const sequences = [
      { tokenIds: [1, 2, 9, 10, 11, 2], lossMask: Uint8Array.from([0, 0, 1, 1, 0, 1]) },
      { tokenIds: [1, 3, 12, 13], lossMask: Uint8Array.from([0, 0, 1, 1]) },
      { tokenIds: [1, 4, 14, 15, 16], lossMask: Uint8Array.from([0, 0, 1, 0, 1]) },
    ];
    const N = 7;
    const whole = f.model({ bInit: (rng) => 0.1 * (rng.next() - 0.5) });
    await whole.backward(sftLoss(await whole.forward(sequences), N).grad);
    const parts = f.model({ bInit: (rng) => 0.1 * (rng.next() - 0.5) });
    for (const mb of packMicroBatches(sequences, { maxTokens: 6, maxSequences: 8, maxSequenceTokens: 6 })) {
      await parts.backward(sftLoss(await parts.forward(mb), N).grad);
    }
    expect(parts.forwardCalls).toBe(3);
    const flat = (m: typeof whole) => m.grads.flatMap((l) => Object.values(l).flatMap((g) => [...g.da, ...g.db]));
    const a = flat(whole);
    const b = flat(parts);
    expect(whole.gradNorm()).toBeGreaterThan(0);
    a.forEach((v, i) => expect(Math.abs(v - b[i])).toBeLessThan(1e-12 + 1e-9 * Math.abs(v)));
  });
});
