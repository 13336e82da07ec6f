/**
 * AttentionBackwardOp's variant argument (src/gpu/kernels/attention-backward.ts): the row passes hold a head in
 * per-invocation arrays of ATTENTION_BACKWARD_ROW_MAX_D values, so asking for them with a wider head is refused
 * before anything is recorded, while the tiled passes take the same arguments. (Their numbers are checked against the
 * float64 reference by the backward-attention registry check, both variants.)
 */
import { describe, expect, it } from 'vitest';
import { BufferUsage } from '../../src/gpu/flags.ts';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { ATTENTION_BACKWARD_ROW_MAX_D, AttentionBackwardOp } from '../../src/gpu/kernels/attention-backward.ts';
import { Recorder } from '../../src/gpu/recorder.ts';
import type { AttentionBackwardArgs } from '../../src/gpu/engine/train-ops.ts';
import type { GpuContext } from '../../src/gpu/device.ts';
import { useDawnContext } from './dawn-context.ts';

const gpu = useDawnContext('attention-backward-variant', 'attention backward variants');

/**
 * Arguments of one 2-token sequence (slot 0, positions 0 and 1) with head size D, every buffer of its exact size; the
 * float tensors are zeros. The index buffers must be consistent: the passes trust them (a sequence end before its
 * token would make a key's loop run ~2^32 times).
 */
function args(ctx: GpuContext, D: number): AttentionBackwardArgs {
  const [T, H, KVH, S, B] = [2, 2, 1, 2, 1];
  const buffer = (floats: number) => ctx.device.createBuffer({ size: floats * 4, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
  const indices = (values: number[]) => {
    const b = buffer(values.length);
    ctx.device.queue.writeBuffer(b, 0, Uint32Array.from(values));
    return b;
  };
  return {
    dq: buffer(T * H * D), dk: buffer(T * KVH * D), dv: buffer(T * KVH * D), dout: buffer(T * H * D), q: buffer(T * H * D), out: buffer(T * H * D),
    lse: buffer(T * H), kCache: buffer(B * S * KVH * D), vCache: buffer(B * S * KVH * D), slots: indices([0, 0]), positions: indices([0, 1]), seqEnds: indices([2, 2]),
    T, H, KVH, D, S, B, format: 'f32',
  };
}

describe('AttentionBackwardOp variants', () => {
  it(`refuses the row passes for a head wider than ${ATTENTION_BACKWARD_ROW_MAX_D} values, and records the tiled ones`, async () => {
    const ctx = gpu();
    const op = await AttentionBackwardOp.create(ctx, ['f32']);
    const D = ATTENTION_BACKWARD_ROW_MAX_D + 2;
    const rec = new Recorder(ctx, 'test.attention-backward-variant');
    try {
      expect(() => op.encode(rec, args(ctx, D), 'row')).toThrow(GpuShapeError);
      expect(() => op.encode(rec, args(ctx, D), 'row')).toThrow(`at most ${ATTENTION_BACKWARD_ROW_MAX_D} values, got D = ${D}`);
      expect(rec.pending).toBe(0);
      op.encode(rec, args(ctx, D), 'tiled');
      expect(rec.pending).toBe(3);
      op.encode(rec, args(ctx, ATTENTION_BACKWARD_ROW_MAX_D), 'row');
      expect(rec.pending).toBe(6);
      await rec.finish();
    } finally {
      rec.destroy();
    }
  });
});
