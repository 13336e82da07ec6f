/**
 * What a training plan that does not fit suggests (src/gpu/engine/train-fit.ts): the halving that saves the most
 * bytes, with the planned totals before and after, and the LM head's chunk rows that fit one binding when the chunk
 * itself is too large.
 */
import { describe, expect, it } from 'vitest';
import { suggestSmallerTraining, suggestTrainingFit } from '../../src/gpu/engine/train-fit.ts';
import { planMemory, type PlanOptions } from '../../src/gpu/memory-plan.ts';
import { PROJECTIONS } from '../../src/model/weights.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';

const TRAIN: PlanOptions = { batch: 4, context: 2048, maxTokens: 2048, weights: 'f16', lora: { rank: 16, targets: PROJECTIONS }, training: { logitChunkRows: 64 } };

describe('suggestSmallerTraining', () => {
  it('picks the halving that saves the most and states both totals', () => {
    const s = suggestSmallerTraining(QWEN3_0_6B, TRAIN)!;
    expect(s).not.toBeNull();
    const before = planMemory(QWEN3_0_6B, TRAIN).totalBytes;
    expect(s.bytesBefore).toBe(before);
    expect(s.bytesAfter).toBeLessThan(before);
    // Every other single halving saves less.
    const others: PlanOptions[] = [
      { ...TRAIN, maxTokens: 1024 },
      { ...TRAIN, training: { logitChunkRows: 32 } },
      { ...TRAIN, lora: { rank: 8, targets: PROJECTIONS } },
      { ...TRAIN, context: 1024, maxTokens: 1024 },
      { ...TRAIN, batch: 2 },
    ];
    for (const o of others) expect(planMemory(QWEN3_0_6B, o).totalBytes).toBeGreaterThanOrEqual(s.bytesAfter);
    expect(s.to).toBe(s.from / 2);
    expect(s.text).toMatch(/from \d+ to \d+: the plan goes from .* to .*\./);
  });

  it('suggests nothing when nothing can be halved', () => {
    const tiny: PlanOptions = { batch: 1, context: 1, maxTokens: 1, lora: { rank: 1, targets: ['q_proj'] }, training: { logitChunkRows: 1 } };
    expect(suggestSmallerTraining(QWEN3_0_6B, tiny)).toBeNull();
  });
});

describe('suggestTrainingFit', () => {
  it('names the chunk rows that fit one binding when the LM head chunk is too large', () => {
    const options: PlanOptions = { ...TRAIN, training: { logitChunkRows: 512 }, maxBindingBytes: 128 * 1024 * 1024 };
    const s = suggestTrainingFit(QWEN3_0_6B, options)!;
    expect(s.setting).toBe('logitChunkRows');
    expect(s.to).toBe(Math.floor((128 * 1024 * 1024) / (151936 * 4))); // 220 rows
    expect(s.to * 151936 * 4).toBeLessThanOrEqual(128 * 1024 * 1024);
    expect(s.text).toContain('exceed one 128.0 MiB binding');
  });

  it('falls back to the largest saving otherwise', () => {
    expect(suggestTrainingFit(QWEN3_0_6B, TRAIN)).toEqual(suggestSmallerTraining(QWEN3_0_6B, TRAIN));
  });
});
