/**
 * chooseDecodeSlots (src/gpu/engine/decode-slots.ts): the page's decode batch B is the most slots, up to 8, whose
 * memory plan fits the budget — 8 for the tiny test model, fewer for Qwen3-0.6B at S = 2,048 — and never below 1.
 */
import { describe, expect, it } from 'vitest';
import { chooseDecodeSlots, DECODE_MEMORY_BUDGET_BYTES, MAX_DECODE_SLOTS } from '../../src/gpu/engine/decode-slots.ts';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

const bytes = (B: number, weights: 'q4' | 'f16') => planMemory(QWEN3_0_6B, { batch: B, logitRows: B, context: 2048, weights }).totalBytes;

describe('chooseDecodeSlots', () => {
  it('gives the tiny model all 8 slots', () => {
    expect(chooseDecodeSlots(tinyModelConfig(), { context: 2048, weights: 'f16' })).toBe(MAX_DECODE_SLOTS);
  });

  for (const weights of ['q4', 'f16'] as const) {
    it(`gives Qwen3-0.6B (${weights}, S = 2,048) the most slots within the budget`, () => {
      const B = chooseDecodeSlots(QWEN3_0_6B, { context: 2048, weights });
      console.log(`Qwen3-0.6B ${weights}: B = ${B} (${(bytes(B, weights) / 2 ** 30).toFixed(2)} GiB planned)`);
      expect(B).toBeGreaterThanOrEqual(1);
      expect(B).toBeLessThan(MAX_DECODE_SLOTS);
      if (B > 1) expect(bytes(B, weights)).toBeLessThanOrEqual(DECODE_MEMORY_BUDGET_BYTES);
      expect(bytes(B + 1, weights)).toBeGreaterThan(DECODE_MEMORY_BUDGET_BYTES);
    });
  }

  it('never goes below one slot, and refuses a bad maximum', () => {
    expect(chooseDecodeSlots(QWEN3_0_6B, { context: 2048, weights: 'f16' }, { budgetBytes: 1 })).toBe(1);
    expect(() => chooseDecodeSlots(QWEN3_0_6B, { context: 2048 }, { maxSlots: 0 })).toThrow(/positive integer/);
  });
});
