/**
 * `trainingKvCache`: training keeps an f32 KV cache where the plan with it fits the memory budget with a whole
 * sequence per micro-batch, and stores the cache in f16 where only that fits (issue 14: the Qwen3-0.6B GRPO plan,
 * G = 4 episodes of 2,048 tokens with f16 weights, inside 3 GB).
 */
import { describe, expect, it } from 'vitest';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';
import { PROJECTIONS } from '../../src/model/weights.ts';
import { trainingKvCache, type GpuTrainableModelOptions } from '../../src/train/gpu-model.ts';

const ALL = PROJECTIONS;
const GIB = 1024 ** 3;
const BINDING = 2 * GIB;

function options(gpuMemoryBytes: number, extra: Partial<GpuTrainableModelOptions> = {}): GpuTrainableModelOptions {
  return { lora: { rank: 16, alpha: 32, dropout: 0, useRslora: false, targetModules: [...ALL] }, seed: 1, rolloutSlots: 4, contextTokens: 2048, gpuMemoryBytes, ...extra };
}

/** The training plan's bytes at one sequence per micro-batch. */
const planBytes = (kvCache: 'f16' | 'f32') =>
  planMemory(QWEN3_0_6B, { batch: 4, context: 2048, maxTokens: 2048, logitRows: 4, lora: { rank: 16, targets: [...ALL] }, weights: 'f16', kvCache, training: { logitChunkRows: 64 }, maxBindingBytes: BINDING }).totalBytes;

describe('trainingKvCache', () => {
  it('keeps f32 for a model whose f32 plan fits', () => {
    expect(trainingKvCache(tinyModelConfig(), options(4 * GIB), 'f16', 64, BINDING)).toBe('f32');
  });

  it('stores the Qwen3-0.6B GRPO cache in f16 under a 3 GB budget, where only the f16 plan fits', () => {
    const budget = 3e9;
    expect(planBytes('f32')).toBeGreaterThan(budget);
    expect(planBytes('f16')).toBeLessThanOrEqual(budget);
    expect(trainingKvCache(QWEN3_0_6B, options(budget), 'f16', 64, BINDING)).toBe('f16');
  });

  it('keeps f32 for Qwen3-0.6B when the budget holds its f32 plan', () => {
    expect(planBytes('f32')).toBeLessThanOrEqual(4 * GIB);
    expect(trainingKvCache(QWEN3_0_6B, options(4 * GIB), 'f16', 64, BINDING)).toBe('f32');
  });

  it('judges an asked micro-batch by its own size', () => {
    // The whole group in one micro-batch (T = 8,192) does not fit 4 GiB with an f32 cache: f16.
    expect(trainingKvCache(QWEN3_0_6B, options(4 * GIB, { microBatchTokens: 8192 }), 'f16', 64, BINDING)).toBe('f16');
  });
});
