/**
 * The memory plan: its weight table is exactly the checkpoint's tensor list (names and shapes, for Qwen3 and
 * Qwen2.5), byte counts follow the storage rules (packed f16 matrices, f32 vectors, an f16 KV cache by default and
 * an f32 one on request), large weights are split to fit a binding, and it answers "how much GPU memory would Qwen3-0.6B need" from the config alone (golden figures).
 */
import { describe, expect, it } from 'vitest';
import { formatBytes, matrixFormat, planMemory, type PlanDims } from '../../src/gpu/memory-plan.ts';
import { PROJECTIONS } from '../../src/model/weights.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B } from '../../src/model/config.ts';
import { expectedTensors, parameterCount } from '../../src/model/weights.ts';

const MiB = 1024 * 1024;

describe('planMemory', () => {
  for (const [name, config] of [['Qwen3-0.6B', QWEN3_0_6B], ['Qwen2.5-0.5B-Instruct', QWEN2_5_0_5B_INSTRUCT]] as const) {
    it(`plans exactly the tensors of a ${name} checkpoint, at 2 bytes per matrix element and 4 per vector element`, () => {
      const plan = planMemory(config, { batch: 1, context: 256 });
      const weights = plan.entries.filter((e) => e.kind === 'weight');
      const expected = expectedTensors(config);
      expect(weights.map((e) => [e.name, e.shape])).toEqual(expect.arrayContaining(expected.map((s) => [s.name, s.shape])));
      expect(weights.length).toBe(expected.length);
      for (const e of weights) expect(e.dtype).toBe(e.shape.length === 2 ? 'f16x2' : 'f32');
      const elements = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
      const matrixElements = weights.filter((e) => e.shape.length === 2).reduce((a, e) => a + elements(e.shape), 0);
      const vectorElements = weights.filter((e) => e.shape.length === 1).reduce((a, e) => a + elements(e.shape), 0);
      expect(matrixElements + vectorElements).toBe(parameterCount(config));
      expect(plan.byKind.weight).toBe(2 * matrixElements + 4 * vectorElements);
    });
  }

  it('answers for Qwen3-0.6B with B = 4 sequences of 2048 tokens and a rank-16 LoRA on every projection', () => {
    const plan = planMemory(QWEN3_0_6B, { batch: 4, context: 2048, lora: { rank: 16, targets: PROJECTIONS }, kvCache: 'f32' });
    // 596,049,920 parameters: 595,984,384 in matrices (f16) and 65,536 in norms (f32).
    expect(plan.byKind.weight).toBe(595_984_384 * 2 + 65_536 * 4);
    // K and V, f32: L · 2 · B · S · KVH · D · 4 bytes.
    expect(plan.byKind['kv-cache']).toBe(28 * 2 * 4 * 2048 * 8 * 128 * 4);
    // Per layer (A + B) · R elements: q 1024+2048, k/v 1024+1024, o 2048+1024, gate/up 1024+3072, down 3072+1024.
    expect(plan.byKind.adapter).toBe(28 * 16 * (3072 + 2048 + 2048 + 3072 + 4096 * 3) * 4);
    const embed = plan.entries.find((e) => e.name === 'model.embed_tokens.weight')!;
    expect(embed.bytes).toBe(151936 * 1024 * 2);
    expect(embed.chunks?.map((c) => c.rows)).toEqual([50646, 50645, 50645]);
    expect(plan.largestBufferBytes).toBeLessThanOrEqual(128 * MiB);
    expect(plan.entries.filter((e) => e.chunks).map((e) => e.name)).toEqual(['model.embed_tokens.weight']);
    expect(formatBytes(plan.totalBytes)).toBe('2.94 GiB');
  });

  it('stores the KV cache as f16 pairs by default (half the bytes), f32 on request, same shapes', () => {
    const options = { batch: 4, context: 2048, lora: { rank: 16, targets: PROJECTIONS } };
    const f16 = planMemory(QWEN3_0_6B, options);
    const f32 = planMemory(QWEN3_0_6B, { ...options, kvCache: 'f32' });
    expect(f16.options.kvCache).toBe('f16');
    expect(f32.options.kvCache).toBe('f32');
    const kv = (plan: typeof f16) => plan.entries.filter((e) => e.kind === 'kv-cache');
    expect(kv(f16).map((e) => [e.name, e.shape])).toEqual(kv(f32).map((e) => [e.name, e.shape]));
    expect(kv(f16).length).toBe(28 * 2);
    for (const e of kv(f16)) expect([e.dtype, e.shape, e.bytes]).toEqual(['f16', [4, 2048, 8, 128], 4 * 2048 * 8 * 128 * 2]);
    for (const e of kv(f32)) expect([e.dtype, e.bytes]).toEqual(['f32', 4 * 2048 * 8 * 128 * 4]);
    // Only the cache changes: 28 · 2 · (B·S·KVH·D) elements at 2 bytes instead of 4.
    expect(f16.totalBytes).toBe(f32.totalBytes - 28 * 2 * 4 * 2048 * 8 * 128 * 2);
    // The cache is a plain buffer (allocatePlan makes packed weights only of matrix dtypes).
    expect(matrixFormat('f16')).toBeNull();
  });

  it('splits nothing when bindings are large, and an untied lm_head like the embedding', () => {
    const untied: PlanDims = { ...QWEN3_0_6B, tieWordEmbeddings: false };
    const plan = planMemory(untied, { batch: 1, context: 128, maxBindingBytes: 2 ** 30 });
    expect(plan.entries.some((e) => e.chunks)).toBe(false);
    const small = planMemory(untied, { batch: 1, context: 128 });
    expect(small.entries.filter((e) => e.chunks).map((e) => e.name)).toEqual(['model.embed_tokens.weight', 'lm_head.weight']);
  });

  it('sizes activations by tokens per forward and logits by logit rows only', () => {
    const plan = planMemory(QWEN3_0_6B, { batch: 2, context: 1024, maxTokens: 256 });
    const get = (name: string) => plan.entries.find((e) => e.name === name)!;
    expect(get('act.x').shape).toEqual([256, 1024]);
    expect(get('act.gate').shape).toEqual([256, 3072]);
    expect(get('act.qRaw').shape).toEqual([256, 2048]);
    expect(get('act.logits').shape).toEqual([2, 151936]);
    expect(get('rope.table').shape).toEqual([1024, 64, 2]);
    expect(plan.entries.some((e) => e.name === 'act.loraU')).toBe(false);
  });

  it('adds per-layer checkpoints, gradients and AdamW state for training, with logits in chunks of rows', () => {
    const lora = { rank: 8, targets: ['q_proj', 'v_proj'] as const };
    const plan = planMemory(QWEN3_0_6B, { batch: 4, context: 2048, maxTokens: 2048, lora, training: { logitChunkRows: 64 } });
    const names = plan.entries.map((e) => e.name);
    expect(names.filter((n) => n.startsWith('train.checkpoint.')).length).toBe(28);
    expect(plan.entries.find((e) => e.name === 'train.logitChunk')!.shape).toEqual([64, 151936]);
    expect(plan.byKind.optimizer).toBe(2 * plan.byKind.adapter);
    expect(names.filter((n) => n.startsWith('grad.model.')).length).toBe(28 * 2 * 2);
    // No (T, V) logits matrix anywhere.
    expect(plan.entries.every((e) => !(e.shape[0] === 2048 && e.shape[1] === 151936))).toBe(true);
  });

  it('lists every layer entry once per layer', () => {
    const plan = planMemory(QWEN3_0_6B, { batch: 1, context: 64 });
    expect(new Set(plan.entries.map((e) => e.name)).size).toBe(plan.entries.length);
    expect(plan.entries.filter((e) => e.name.endsWith('.self_attn.q_proj.weight')).map((e) => e.layer)).toEqual([...Array(28).keys()]);
  });
});

describe('planMemory refuses impossible options', () => {
  it.each([
    [{ batch: 0, context: 16 }, /B = 0/],
    [{ batch: 8, context: 16, maxTokens: 4 }, /at least the batch/],
    [{ batch: 1, context: 16, lora: { rank: 0, targets: ['q_proj'] as const } }, /R = 0/],
  ])('%o', (options, message) => {
    expect(() => planMemory(QWEN3_0_6B, options)).toThrow(message);
  });

  it('refuses an odd head size', () => {
    expect(() => planMemory({ ...QWEN3_0_6B, headDim: 7 }, { batch: 1, context: 8 })).toThrow(/even/);
  });
});
