/**
 * f16 on the CPU: weights are stored on the GPU as IEEE half floats, two per u32 (element 2i in the LOW 16 bits,
 * 2i+1 in the high 16 bits), which is exactly what WGSL's `unpack2x16float(word)` returns as `vec2<f32>(lo, hi)`.
 * Every kernel computes in f32; only storage is f16, so the engine runs on adapters without `shader-f16`.
 *
 * Rounding is to nearest, ties to even, overflow to ±Inf, with subnormals (as `Float16Array` and the GPU do).
 * Inputs that are f64 are first rounded to f32, then to f16 (the engine never sees f64 weights; tests feed the
 * reference the values `roundToF16` returns, so kernel comparisons measure arithmetic, not storage rounding).
 */
import { GpuShapeError } from './errors.ts';

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** The f16 bit pattern nearest to `value` (rounded to f32 first). */
export function f32ToF16Bits(value: number): number {
  scratchF32[0] = value;
  const x = scratchU32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0); // Inf, NaN (quiet)
  const e = exp - 127 + 15; // biased f16 exponent
  if (e >= 0x1f) return sign | 0x7c00; // overflow
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal: ±0
    const full = mant | 0x800000; // value = full * 2^(e - 14 - 24 + 24) in units of 2^-24
    const shift = 14 - e;
    const rem = full & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    let r = full >>> shift;
    if (rem > half || (rem === half && (r & 1) === 1)) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1) === 1)) r++; // a carry into the exponent is correct (even to Inf)
  return sign | r;
}

/** The value of an f16 bit pattern. */
export function f16BitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant !== 0 ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

type Float16ArrayCtor = new (source: ArrayLike<number>) => { buffer: ArrayBuffer; length: number };
/** Native `Float16Array` (Chromium 135+, Node 24+) when present: the same rounding, much faster. */
const NativeFloat16Array = (globalThis as { Float16Array?: Float16ArrayCtor }).Float16Array;

/** f16 bit patterns of `values`, one per element. */
export function toF16Bits(values: ArrayLike<number>): Uint16Array {
  if (NativeFloat16Array && values instanceof Float32Array) {
    return new Uint16Array(new NativeFloat16Array(values).buffer);
  }
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f32ToF16Bits(values[i]);
  return out;
}

/**
 * Packs `values` as f16 pairs into u32 words: word i = bits(2i) | bits(2i+1) << 16. An odd count is padded with a
 * zero half. For a weight matrix (N, K) row-major, K must be even so that no word straddles two rows: use
 * `packF16Matrix`, which checks.
 */
export function packF16(values: ArrayLike<number>): Uint32Array {
  const bits = toF16Bits(values);
  const out = new Uint32Array(Math.ceil(bits.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = bits[2 * i] | ((bits[2 * i + 1] ?? 0) << 16);
  return out;
}

/** A row-major (rows, cols) matrix packed to (rows, cols/2) words; `cols` must be even. */
export function packF16Matrix(values: ArrayLike<number>, rows: number, cols: number, name = 'matrix'): Uint32Array {
  if (cols % 2 !== 0) throw new GpuShapeError(`packF16Matrix(${name})`, `cols = ${cols} is odd; f16 pairs would straddle rows. Pad K to even.`);
  if (values.length !== rows * cols) throw new GpuShapeError(`packF16Matrix(${name})`, `expected ${rows}×${cols} = ${rows * cols} values, got ${values.length}`);
  return packF16(values);
}

/** Unpacks words written by `packF16` back to numbers (`count` elements). */
export function unpackF16(words: Uint32Array, count = words.length * 2): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const word = words[i >>> 1];
    out[i] = f16BitsToNumber(i & 1 ? word >>> 16 : word & 0xffff);
  }
  return out;
}

/** `values` rounded to f16 and back: what the GPU computes with when it reads them from packed storage. */
export function roundToF16(values: ArrayLike<number>): Float64Array {
  const bits = toF16Bits(values);
  const out = new Float64Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f16BitsToNumber(bits[i]);
  return out;
}
