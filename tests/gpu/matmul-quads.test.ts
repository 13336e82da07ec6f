/**
 * Which kernel matmul v2 records (src/gpu/kernels/matmul.ts): the one that reads x in quads (matmul-x4.wgsl) exactly
 * where K and the row stride are multiples of 4 and x's binding offset of 16 bytes (`v2ReadsQuads`) unless the caller asks for single loads, in every
 * weight format; other variants are not affected. (The two kernels' numbers: the matmul and quant-matmul registry
 * checks compare both with the float64 reference and with each other, bit for bit.)
 */
import { describe, expect, it } from 'vitest';
import { createPackedWeight, destroyPackedWeight } from '../../src/gpu/packed-weight.ts';
import { MatmulOp, v2ReadsQuads, type MatmulArgs } from '../../src/gpu/kernels/matmul.ts';
import { Recorder } from '../../src/gpu/recorder.ts';
import type { WeightFormat } from '../../src/gpu/quant.ts';
import { BufferUsage } from '../../src/gpu/flags.ts';
import { useDawnContext } from './dawn-context.ts';

const gpu = useDawnContext('matmul-quads', 'matmul v2 kernels');

describe('v2ReadsQuads', () => {
  it('holds when K and the row stride are both multiples of 4 and x is bound at a multiple of 16 bytes', () => {
    expect(v2ReadsQuads(64, 64)).toBe(true);
    expect(v2ReadsQuads(64, 68)).toBe(true);
    expect(v2ReadsQuads(64, 64, 256)).toBe(true);
    expect(v2ReadsQuads(64, 64, 8)).toBe(false);
    expect(v2ReadsQuads(38, 38)).toBe(false);
    expect(v2ReadsQuads(64, 66)).toBe(false);
    expect(v2ReadsQuads(2, 4)).toBe(false);
  });
});

describe('MatmulOp.encode', () => {
  /** The kernel names `encode` records for these arguments, x bound at `xOffset` bytes (dispatches only; nothing is submitted). */
  async function recorded(format: WeightFormat, K: number, extra: Partial<MatmulArgs>, xOffset = 0): Promise<string[]> {
    const ctx = gpu();
    const op = await MatmulOp.create(ctx, [format]);
    const [M, N] = [3, 8];
    const ldx = extra.ldx ?? K;
    const buffer = (floats: number) => ctx.device.createBuffer({ size: floats * 4, usage: BufferUsage.STORAGE });
    const w = createPackedWeight(ctx, 'w', N, K, undefined, format);
    const rec = new Recorder(ctx, 'test.matmul-quads');
    const names: string[] = [];
    const dispatch = rec.dispatch.bind(rec);
    rec.dispatch = (kernel, ...rest) => {
      names.push(kernel.spec.name);
      return dispatch(kernel, ...rest);
    };
    try {
      op.encode(rec, { out: buffer(M * N), w, M, variant: 'v2', ...extra, x: { buffer: buffer(M * ldx + xOffset / 4), offset: xOffset } });
      return names;
    } finally {
      rec.destroy();
      destroyPackedWeight(w);
    }
  }

  it('records the quad-loading v2 where K and ldx allow it, in every format', async () => {
    expect(await recorded('f16', 64, {})).toEqual(['matmul.v2_x4']);
    expect(await recorded('f16', 64, { ldx: 68 })).toEqual(['matmul.v2_x4']);
    expect(await recorded('f16', 64, {}, 256)).toEqual(['matmul.v2_x4']);
    expect(await recorded('q8', 64, {})).toEqual(['matmul.v2_x4.q8']);
    expect(await recorded('q4', 64, {})).toEqual(['matmul.v2_x4.q4']);
  });

  it('records the single-load v2 where they do not, or when asked', async () => {
    expect(await recorded('f16', 38, {})).toEqual(['matmul.v2']);
    expect(await recorded('f16', 64, { ldx: 66 })).toEqual(['matmul.v2']);
    expect(await recorded('f16', 64, { quads: false })).toEqual(['matmul.v2']);
    // Only recorded, never submitted: WebGPU would refuse a binding offset of 8 at submit.
    expect(await recorded('f16', 64, {}, 8)).toEqual(['matmul.v2']);
    expect(await recorded('q8', 64, { quads: false })).toEqual(['matmul.v2.q8']);
  });

  it('leaves the other variants as they are', async () => {
    expect(await recorded('f16', 64, { variant: 'v0' })).toEqual(['matmul.v0']);
    expect(await recorded('f16', 64, { variant: 'v1' })).toEqual(['matmul.v1']);
  });
});
