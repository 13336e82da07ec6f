/**
 * Storage format of the KV cache (issue 14): 'f16' (the default) halves the cache's memory and the bytes decode
 * reads; 'f32' is kept as a plan option so both paths stay checked against the float64 reference.
 *
 * 'f16' words hold two consecutive values of one cache row (element 2i in the LOW 16 bits, 2i+1 in the high bits),
 * written with WGSL's `pack2x16float` and read with `unpack2x16float`, exactly as packed f16 weights are (f16.ts):
 * no `shader-f16` needed. Computation stays f32: only storage is rounded.
 *
 * Kernels index the cache in pairs of values: `kvCacheWgsl(format)` declares `KvPair` (the storage element holding
 * one pair: `u32` for f16, `vec2<f32>` for f32), `kv_load(w) -> vec2<f32>` and `kv_store(x: vec2<f32>) -> KvPair`.
 * A pair never straddles two rows because the head size D is even (the memory plan checks it, RoPE needs it too).
 */

export type KvCacheFormat = 'f16' | 'f32';

export const KV_CACHE_FORMATS: readonly KvCacheFormat[] = ['f16', 'f32'];

export const DEFAULT_KV_CACHE: KvCacheFormat = 'f16';

/** Bytes of `elements` cache values (an even count) stored in `format`. */
export function kvCacheBytes(format: KvCacheFormat, elements: number): number {
  return elements * (format === 'f16' ? 2 : 4);
}

/** The largest finite f16: values beyond it are clamped before packing (`pack2x16float` of them is indeterminate). */
const F16_MAX = 65504;

/** WGSL declaring `KvPair`, `kv_load` and `kv_store` for `format` (see the header). */
export function kvCacheWgsl(format: KvCacheFormat): string {
  switch (format) {
    case 'f16':
      return /* wgsl */ `
alias KvPair = u32;
fn kv_load(w: KvPair) -> vec2<f32> {
  return unpack2x16float(w);
}
fn kv_store(x: vec2<f32>) -> KvPair {
  return pack2x16float(clamp(x, vec2<f32>(-${F16_MAX}.0), vec2<f32>(${F16_MAX}.0)));
}
`;
    case 'f32':
      return /* wgsl */ `
alias KvPair = vec2<f32>;
fn kv_load(w: KvPair) -> vec2<f32> {
  return w;
}
fn kv_store(x: vec2<f32>) -> KvPair {
  return x;
}
`;
    default:
      throw new Error(`unknown KV cache format ${format satisfies never}`);
  }
}
