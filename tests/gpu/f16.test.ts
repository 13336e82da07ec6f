/**
 * f16 packing on the CPU: rounding (nearest, ties to even, subnormals, overflow), an exhaustive round trip of every
 * f16 value, the word layout `unpack2x16float` expects (element 2i in the low half), and the bf16 path.
 */
import { describe, expect, it } from 'vitest';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { f16BitsToNumber, f32ToF16Bits, packF16, packF16Matrix, roundToF16, unpackF16 } from '../../src/gpu/f16.ts';

describe('f32ToF16Bits', () => {
  it.each([
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [0.5, 0x3800],
    [65504, 0x7bff], // largest finite
    [65519.99, 0x7bff], // still rounds down
    [65520, 0x7c00], // rounds to +Inf
    [1e6, 0x7c00],
    [-Infinity, 0xfc00],
    [2 ** -14, 0x0400], // smallest normal
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // a tie between 0 and the smallest subnormal: to even (0)
    [3 * 2 ** -25, 0x0002], // a tie between 1 and 2 subnormal units: to even (2)
    [1 + 2 ** -11, 0x3c00], // tie between 1 and 1+2^-10: to even (1)
    [1 + 3 * 2 ** -11, 0x3c02], // tie between 1+2^-10 and 1+2^-9: to even
    [1 + 2 ** -11 + 2 ** -20, 0x3c01], // just above the tie
  ])('%s → 0x%s', (value, bits) => {
    expect(f32ToF16Bits(value)).toBe(bits);
  });

  it('maps NaN to a NaN', () => {
    expect(Number.isNaN(f16BitsToNumber(f32ToF16Bits(NaN)))).toBe(true);
  });

  it('round-trips every finite f16 value exactly', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const value = f16BitsToNumber(bits);
      if (Number.isNaN(value)) continue;
      expect(f32ToF16Bits(value)).toBe(bits);
    }
  });
});

describe('packing', () => {
  it('puts element 2i in the low half of word i, as unpack2x16float reads it', () => {
    const words = packF16([1, -2, 0.5]);
    expect([...words]).toEqual([(0x3c00 | (0xc000 << 16)) >>> 0, 0x3800]);
    expect([...unpackF16(words, 3)]).toEqual([1, -2, 0.5]);
  });

  it('packs a matrix only when its rows hold whole words', () => {
    expect(packF16Matrix(new Float32Array(6), 3, 2).length).toBe(3);
    expect(() => packF16Matrix(new Float32Array(6), 2, 3)).toThrow(GpuShapeError);
    expect(() => packF16Matrix(new Float32Array(5), 3, 2)).toThrow(GpuShapeError);
  });

  it('roundToF16 gives what the packed storage holds', () => {
    const values = [0.1, -3.14159, 1234.567, 1e-6];
    expect([...roundToF16(values)]).toEqual([...unpackF16(packF16(values), 4)]);
    expect(roundToF16([0.1])[0]).toBeCloseTo(0.1, 3);
  });
});
