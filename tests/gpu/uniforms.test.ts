/**
 * Uniform layouts: one declaration gives both the WGSL struct and the packed bytes, at the same offsets.
 */
import { describe, expect, it } from 'vitest';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { MATMUL_PARAMS } from '../../src/gpu/kernels/matmul.ts';
import { defineUniforms } from '../../src/gpu/uniforms.ts';

describe('defineUniforms', () => {
  const layout = defineUniforms('P', { M: 'u32', shift: 'i32', scale: 'f32', N: 'u32', extra: 'u32' });

  it('lays scalars out at 4-byte steps, padded to 16 bytes', () => {
    expect(layout.offsets).toEqual({ M: 0, shift: 4, scale: 8, N: 12, extra: 16 });
    expect(layout.byteSize).toBe(32);
    expect(layout.wgsl).toBe('struct P {\n  M: u32,\n  shift: i32,\n  scale: f32,\n  N: u32,\n  extra: u32,\n}\n');
  });

  it('packs values little-endian at those offsets', () => {
    const view = new DataView(layout.pack({ M: 7, shift: -3, scale: 0.25, N: 0xffffffff, extra: 1 }));
    expect(view.getUint32(0, true)).toBe(7);
    expect(view.getInt32(4, true)).toBe(-3);
    expect(view.getFloat32(8, true)).toBe(0.25);
    expect(view.getUint32(12, true)).toBe(0xffffffff);
    expect(view.getUint32(16, true)).toBe(1);
  });

  it('refuses values that do not fit their type, naming the field', () => {
    expect(() => layout.pack({ M: -1, shift: 0, scale: 0, N: 0, extra: 0 })).toThrow(/P\.M/);
    expect(() => layout.pack({ M: 1.5, shift: 0, scale: 0, N: 0, extra: 0 })).toThrow(GpuShapeError);
    expect(() => layout.pack({ M: 1, shift: 2 ** 31, scale: 0, N: 0, extra: 0 })).toThrow(/P\.shift/);
  });

  it('declares the matmul struct the shader reads', () => {
    expect(MATMUL_PARAMS.wgsl).toContain('struct MatmulParams {');
    expect(MATMUL_PARAMS.byteSize).toBe(48);
  });
});
