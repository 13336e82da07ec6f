/**
 * Safetensors: exact number conversions (every f16 and bf16 bit pattern round-trips, nearest-even rounding on
 * chosen cases), write→read round trips with mixed dtypes, a file laid out by hand as another writer would, and one
 * typed error per kind of damage.
 */
import { describe, expect, it } from 'vitest';
import {
  bf16BitsToF32,
  CorruptHeaderError,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  headerLength,
  OffsetOutOfRangeError,
  parseSafetensorsHeader,
  readSafetensors,
  tensorBytes,
  TruncatedFileError,
  UnknownDtypeError,
  writeSafetensors,
  type TensorToWrite,
} from '../../src/model/safetensors.ts';

/** A file built by hand: header JSON (unpadded) and raw data bytes. */
function handMade(header: Record<string, unknown>, data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

describe('number formats', () => {
  it('round-trips every f16 and bf16 bit pattern', () => {
    for (let h = 0; h < 65536; h++) {
      const f = f16BitsToF32(h);
      if (!Number.isNaN(f)) expect(f32ToF16Bits(f)).toBe(h);
      const b = bf16BitsToF32(h);
      if (!Number.isNaN(b)) expect(f32ToBf16Bits(b)).toBe(h);
    }
  });

  it('rounds to nearest even, saturates to infinity, keeps NaN', () => {
    const table: Array<[number, number]> = [
      [1, 0x3c00],
      [-2, 0xc000],
      [0.1, 0x2e66],
      [65504, 0x7bff],
      [65519, 0x7bff], // below the midpoint to the next (non-existent) step
      [65520, 0x7c00], // the midpoint rounds to infinity
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // tie between 0 and 2^-24 goes to even (0)
      [3 * 2 ** -25, 0x0002], // tie between 1 and 2 units goes to even (2)
      [1 + 2 ** -11, 0x3c00], // tie between 1 and 1+2^-10 goes to even
      [1 + 3 * 2 ** -11, 0x3c02],
      [-0, 0x8000],
    ];
    for (const [x, bits] of table) expect([x, f32ToF16Bits(x)]).toEqual([x, bits]);
    expect(f32ToF16Bits(NaN) & 0x7c00).toBe(0x7c00);
    expect(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN)))).toBe(true);
    expect(f32ToBf16Bits(1)).toBe(0x3f80);
    expect(f32ToBf16Bits(0.1)).toBe(0x3dcd); // 0x3dcccccd rounds up
    expect(f32ToBf16Bits(1 + 2 ** -8)).toBe(0x3f80); // tie to even
    expect(f32ToBf16Bits(3.5e38)).toBe(0x7f80); // overflow to infinity
    expect(Number.isNaN(bf16BitsToF32(f32ToBf16Bits(NaN)))).toBe(true);
  });
});

describe('write and read', () => {
  it('round-trips f32 exactly and bf16/f16 to their rounding, with odd lengths between dtypes', () => {
    const values = [0, 1, -1.5, 0.1, 3.14159, -1e-3, 1e4, 123.456, -7];
    const tensors = new Map<string, TensorToWrite>([
      ['a.f16', { shape: [3, 3], data: values, dtype: 'F16' }],
      ['b.f32', { shape: [9], data: values }],
      ['c.bf16', { shape: [1, 9], data: values, dtype: 'BF16' }],
      ['d.scalar', { shape: [], data: [42] }],
      ['e.empty', { shape: [0, 4], data: [] }],
    ]);
    const bytes = writeSafetensors(tensors, { format: 'pt' });
    expect(headerLength(bytes) % 8).toBe(0);
    const { tensors: read, metadata } = readSafetensors(bytes);
    expect(metadata).toEqual({ format: 'pt' });
    expect([...read.keys()]).toEqual(['a.f16', 'b.f32', 'c.bf16', 'd.scalar', 'e.empty']);
    expect(Array.from(read.get('b.f32')!.data)).toEqual(values.map(Math.fround));
    expect(Array.from(read.get('a.f16')!.data)).toEqual(values.map((v) => f16BitsToF32(f32ToF16Bits(v))));
    expect(Array.from(read.get('c.bf16')!.data)).toEqual(values.map((v) => bf16BitsToF32(f32ToBf16Bits(v))));
    expect(read.get('c.bf16')!.shape).toEqual([1, 9]);
    expect(read.get('c.bf16')!.dtype).toBe('BF16');
    expect(Array.from(read.get('d.scalar')!.data)).toEqual([42]);
    expect(read.get('e.empty')!.data.length).toBe(0);
    const header = parseSafetensorsHeader(bytes);
    expect(tensorBytes(bytes, header, 'a.f16').length).toBe(18);
  });

  it('reads a file laid out by another writer (unpadded header, unaligned data)', () => {
    const data = new Uint8Array(2 + 4);
    new DataView(data.buffer).setUint16(0, 0x3c00, true); // f16 1.0
    new DataView(data.buffer).setFloat32(2, 2.5, true);
    const file = handMade(
      { x: { dtype: 'F16', shape: [1], data_offsets: [0, 2] }, y: { dtype: 'F32', shape: [1], data_offsets: [2, 6] } },
      data,
    );
    const { tensors } = readSafetensors(file);
    expect(Array.from(tensors.get('x')!.data)).toEqual([1]);
    expect(Array.from(tensors.get('y')!.data)).toEqual([2.5]);
  });

  it('refuses a value count that does not match the shape', () => {
    expect(() => writeSafetensors(new Map([['w', { shape: [2, 2], data: [1, 2, 3] }]]))).toThrow(/\[2, 2\] needs 4 values/);
  });
});

describe('damaged files', () => {
  const good = writeSafetensors(new Map([['model.norm.weight', { shape: [4], data: [1, 2, 3, 4] }]]));

  it('truncated before or inside the header', () => {
    expect(() => readSafetensors(good.subarray(0, 5))).toThrow(TruncatedFileError);
    expect(() => readSafetensors(good.subarray(0, 20))).toThrow(TruncatedFileError);
  });

  it('truncated inside the data: offsets out of range, naming the tensor', () => {
    expect(() => readSafetensors(good.subarray(0, good.length - 1))).toThrow(OffsetOutOfRangeError);
    expect(() => readSafetensors(good.subarray(0, good.length - 1))).toThrow(/model\.norm\.weight/);
  });

  it('corrupt header: not JSON, not an object, absurd length, offsets that disagree with the shape', () => {
    const notJson = handMade({}, new Uint8Array(0));
    notJson.set(new TextEncoder().encode('{x'), 8);
    expect(() => readSafetensors(notJson)).toThrow(CorruptHeaderError);
    expect(() => readSafetensors(handMade([1, 2] as unknown as Record<string, unknown>, new Uint8Array(0)))).toThrow(CorruptHeaderError);
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
    expect(() => readSafetensors(huge)).toThrow(CorruptHeaderError);
    const mismatch = handMade({ w: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8));
    expect(() => readSafetensors(mismatch)).toThrow(/"w".*needs 12/);
    const badShape = handMade({ w: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } }, new Uint8Array(0));
    expect(() => readSafetensors(badShape)).toThrow(CorruptHeaderError);
  });

  it('unknown dtype, naming the tensor and the dtype', () => {
    const file = handMade({ 'model.embed_tokens.weight': { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, new Uint8Array(8));
    expect(() => readSafetensors(file)).toThrow(UnknownDtypeError);
    expect(() => readSafetensors(file)).toThrow(/model\.embed_tokens\.weight.*I64/);
  });
});
