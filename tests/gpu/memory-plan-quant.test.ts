/**
 * The memory plan per weight format: matrices at 2 (f16), 1.125 (q8) or 0.625 (q4) bytes per element, norms f32,
 * golden weight bytes for Qwen3-0.6B and Qwen2.5-0.5B-Instruct, splitting only where a format still exceeds a
 * binding, the sampler's buffers, and a typed error for a model whose K is not a multiple of the group.
 */
import { describe, expect, it } from 'vitest';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { formatBytes, planMemory } from '../../src/gpu/memory-plan.ts';
import { WEIGHT_FORMATS } from '../../src/gpu/quant.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B } from '../../src/model/config.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

const PER_ELEMENT = { f16: 2, q8: 1.125, q4: 0.625, q4m: 0.625 } as const;
/** Bytes per element of matrix `name` in a plan of `format`: q4m keeps the embedding and LM head at q8. */
function perElement(format: keyof typeof PER_ELEMENT, name: string): number {
  return format === 'q4m' && (name === 'model.embed_tokens.weight' || name === 'lm_head.weight') ? PER_ELEMENT.q8 : PER_ELEMENT[format];
}
// Qwen3-0.6B's tied embedding: 151,936 × 1,024 elements.
const QWEN3_EMBED = 151_936 * 1024;

describe('planMemory weight formats', () => {
  // Qwen3-0.6B: 595,984,384 parameters in matrices, 65,536 in norms.
  const QWEN3_MATRIX = 595_984_384;
  const QWEN3_VECTOR = 65_536;

  it('Qwen3-0.6B weight bytes: f16 1.11 GiB, q8 639 MiB, q4 355 MiB', () => {
    const lines: string[] = [];
    for (const format of WEIGHT_FORMATS) {
      const plan = planMemory(QWEN3_0_6B, { batch: 4, context: 2048, weights: format });
      const embed = QWEN3_EMBED * perElement(format, 'model.embed_tokens.weight');
      expect(plan.byKind.weight).toBe((QWEN3_MATRIX - QWEN3_EMBED) * PER_ELEMENT[format] + embed + QWEN3_VECTOR * 4);
      lines.push(`${format}: weights ${formatBytes(plan.byKind.weight)}, total ${formatBytes(plan.totalBytes)}, split ${plan.entries.filter((e) => e.chunks).length}`);
    }
    console.log(`Qwen3-0.6B, B=4 S=2048:\n  ${lines.join('\n  ')}`);
    expect(formatBytes(planMemory(QWEN3_0_6B, { batch: 1, context: 256, weights: 'f16' }).byKind.weight)).toBe('1.11 GiB');
    expect(formatBytes(planMemory(QWEN3_0_6B, { batch: 1, context: 256, weights: 'q8' }).byKind.weight)).toBe('639.7 MiB');
    expect(formatBytes(planMemory(QWEN3_0_6B, { batch: 1, context: 256, weights: 'q4' }).byKind.weight)).toBe('355.5 MiB');
    // q4m: 4-bit projections (0.625 B) and a q8 embedding (1.125 B): 355.5 MiB + 151,936 · 1,024 · 0.5 B.
    expect(formatBytes(planMemory(QWEN3_0_6B, { batch: 1, context: 256, weights: 'q4m' }).byKind.weight)).toBe('429.7 MiB');
  });

  it('every matrix entry of every format is sized by its format, vectors stay f32', () => {
    for (const config of [QWEN3_0_6B, QWEN2_5_0_5B_INSTRUCT]) {
      const f16 = planMemory(config, { batch: 1, context: 128, weights: 'f16' });
      for (const format of WEIGHT_FORMATS) {
        const plan = planMemory(config, { batch: 1, context: 128, weights: format });
        expect(plan.options.weights).toBe(format);
        plan.entries.forEach((e, i) => {
          expect(e.name).toBe(f16.entries[i].name);
          if (e.kind === 'weight' && e.shape.length === 2) expect(e.bytes).toBe(e.shape[0] * e.shape[1] * perElement(format, e.name));
          else expect(e.bytes).toBe(f16.entries[i].bytes);
        });
      }
    }
  });

  it('q4 fits the tied Qwen3 embedding in one 128 MiB binding; f16 needs three', () => {
    const name = 'model.embed_tokens.weight';
    expect(planMemory(QWEN3_0_6B, { batch: 1, context: 128, weights: 'f16' }).entries.find((e) => e.name === name)?.chunks?.length).toBe(3);
    expect(planMemory(QWEN3_0_6B, { batch: 1, context: 128, weights: 'q8' }).entries.find((e) => e.name === name)?.chunks?.length).toBe(2);
    expect(planMemory(QWEN3_0_6B, { batch: 1, context: 128, weights: 'q4' }).entries.find((e) => e.name === name)?.chunks).toBeNull();
  });

  it('plans the sampler buffers per logit row', () => {
    const plan = planMemory(tinyModelConfig(), { batch: 3, context: 32, weights: 'q4' });
    expect(plan.entries.find((e) => e.name === 'act.sampleKeys')?.shape).toEqual([3, 4]);
    expect(plan.entries.find((e) => e.name === 'act.sampled')?.shape).toEqual([3, 4]);
  });

  it('refuses quantised weights when a K is not a multiple of 32', () => {
    const odd = tinyModelConfig({ hiddenSize: 48, numHeads: 4, headDim: 12 });
    expect(() => planMemory(odd, { batch: 1, context: 16, weights: 'q4' })).toThrow(GpuShapeError);
    expect(() => planMemory(odd, { batch: 1, context: 16, weights: 'f16' })).not.toThrow();
  });
});
