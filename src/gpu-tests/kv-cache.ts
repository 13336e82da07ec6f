/**
 * KV-cache helpers of the GPU checks, for either storage format (src/gpu/kv-format.ts): what the cache holds for
 * given values (the reference's K/V rounded to f16 for the f16 cache, so kernel comparisons measure arithmetic, not
 * storage), a cache buffer pre-filled with given values, and a readback decoded from the format's own words
 * (`unpackF16`, the CPU twin of `unpack2x16float`), which pins the documented layout: element 2i in the low half.
 */
import { packF16, roundToF16, unpackF16 } from '../gpu/f16.ts';
import type { KvCacheFormat } from '../gpu/kv-format.ts';
import type { Scope } from './util.ts';

/** `values` as the cache stores them: f16-rounded, or f32-rounded. */
export function kvStored(format: KvCacheFormat, values: ArrayLike<number>): Float64Array {
  return format === 'f16' ? roundToF16(values) : Float64Array.from(Float32Array.from(values));
}

/** A cache buffer of `values.length` (even) elements holding `values` in `format`; owned by `scope`. */
export function kvCacheBuffer(scope: Scope, format: KvCacheFormat, label: string, values: ArrayLike<number>): GPUBuffer {
  return format === 'f16' ? scope.u32(label, packF16(values)) : scope.f32(label, values);
}

/** The `elements` values of a cache buffer, decoded from its words. */
export async function readKvCache(scope: Scope, format: KvCacheFormat, buffer: GPUBuffer, elements: number): Promise<Float64Array> {
  if (format === 'f32') return Float64Array.from(await scope.read(buffer, elements));
  const words = await scope.read(buffer, elements / 2);
  return unpackF16(new Uint32Array(words.buffer, words.byteOffset, words.length), elements);
}
