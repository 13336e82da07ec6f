/**
 * kvcache op (see kvcache.wgsl): scatters the new tokens' k and v (T, KVH, D) into one layer's cache
 * (B, S, KVH, D) at each token's (slot, position), stored in the cache's format (kv-format.ts: packed f16 by
 * default, or f32). One kernel per format, both compiled by `create` unless fewer are asked for.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { DEFAULT_KV_CACHE, KV_CACHE_FORMATS, kvCacheBytes, kvCacheWgsl, type KvCacheFormat } from '../kv-format.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './kvcache.wgsl?raw';

export const KV_WRITE_PARAMS = defineUniforms('KvWriteParams', { T: 'u32', KVH: 'u32', D: 'u32', S: 'u32' });

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'k' },
  { binding: 2, kind: 'read-only-storage', name: 'v' },
  { binding: 3, kind: 'read-only-storage', name: 'slots' },
  { binding: 4, kind: 'read-only-storage', name: 'positions' },
  { binding: 5, kind: 'storage', name: 'kCache' },
  { binding: 6, kind: 'storage', name: 'vCache' },
];

export interface KvWriteArgs {
  /** (T, KVH, D) f32, keys after RoPE */
  k: BufferArg;
  /** (T, KVH, D) f32 */
  v: BufferArg;
  /** (T) u32 sequence slot of each token, < B */
  slots: BufferArg;
  /** (T) u32 absolute position of each token, < S */
  positions: BufferArg;
  /** (B, S, KVH, D) in `format` */
  kCache: BufferArg;
  vCache: BufferArg;
  T: number;
  KVH: number;
  /** even */
  D: number;
  S: number;
  B: number;
  /** Storage of kCache and vCache; default DEFAULT_KV_CACHE ('f16'). Pass the memory plan's `kvCache`. */
  format?: KvCacheFormat;
}

export class KvCacheOp {
  private constructor(private readonly kernels: ReadonlyMap<KvCacheFormat, Kernel>) {}

  static async create(ctx: GpuContext, formats: readonly KvCacheFormat[] = KV_CACHE_FORMATS): Promise<KvCacheOp> {
    const kernels = await Promise.all(
      formats.map((f) => getKernel(ctx, { name: `kvcache.write.${f}`, code: composeWgsl(WGSL_GRID, KV_WRITE_PARAMS.wgsl, kvCacheWgsl(f), source), entryPoint: 'kv_write', bindings: BINDINGS })),
    );
    return new KvCacheOp(new Map(formats.map((f, i) => [f, kernels[i]])));
  }

  write(rec: Recorder, args: KvWriteArgs): void {
    const { T, KVH, D, S, B } = args;
    const format = args.format ?? DEFAULT_KV_CACHE;
    const kernel = this.kernels.get(format);
    if (!kernel) throw new GpuShapeError('kvcache.write', `the op was created without the ${format} cache kernel`);
    if (D % 2 !== 0) throw new GpuShapeError('kvcache.write', `head size D = ${D} must be even (the cache is stored in pairs)`);
    requireBytes('kvcache.write', 'k', args.k, T * KVH * D * 4);
    requireBytes('kvcache.write', 'v', args.v, T * KVH * D * 4);
    requireBytes('kvcache.write', 'slots', args.slots, T * 4);
    requireBytes('kvcache.write', 'positions', args.positions, T * 4);
    requireBytes('kvcache.write', 'kCache', args.kCache, kvCacheBytes(format, B * S * KVH * D));
    requireBytes('kvcache.write', 'vCache', args.vCache, kvCacheBytes(format, B * S * KVH * D));
    const { k, v, slots, positions, kCache, vCache } = args;
    rec.dispatch(kernel, KV_WRITE_PARAMS.pack({ T, KVH, D, S }), { k, v, slots, positions, kCache, vCache }, grid1d(Math.ceil((T * KVH * D) / 2 / 64)));
  }
}
