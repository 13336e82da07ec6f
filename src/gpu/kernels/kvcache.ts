/**
 * kvcache op (see kvcache.wgsl): scatters the new tokens' k and v (T, KVH, D) into one layer's cache
 * (B, S, KVH, D) at each token's (slot, position).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './kvcache.wgsl?raw';

export const KV_WRITE_PARAMS = defineUniforms('KvWriteParams', { T: 'u32', KVH: 'u32', D: 'u32', S: 'u32' });

const CODE = composeWgsl(WGSL_GRID, KV_WRITE_PARAMS.wgsl, source);

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
  /** (B, S, KVH, D) f32 */
  kCache: BufferArg;
  vCache: BufferArg;
  T: number;
  KVH: number;
  D: number;
  S: number;
  B: number;
}

export class KvCacheOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<KvCacheOp> {
    return new KvCacheOp(await getKernel(ctx, { name: 'kvcache.write', code: CODE, entryPoint: 'kv_write', bindings: BINDINGS }));
  }

  write(rec: Recorder, args: KvWriteArgs): void {
    const { T, KVH, D, S, B } = args;
    requireBytes('kvcache.write', 'k', args.k, T * KVH * D * 4);
    requireBytes('kvcache.write', 'v', args.v, T * KVH * D * 4);
    requireBytes('kvcache.write', 'slots', args.slots, T * 4);
    requireBytes('kvcache.write', 'positions', args.positions, T * 4);
    requireBytes('kvcache.write', 'kCache', args.kCache, B * S * KVH * D * 4);
    requireBytes('kvcache.write', 'vCache', args.vCache, B * S * KVH * D * 4);
    const { k, v, slots, positions, kCache, vCache } = args;
    rec.dispatch(this.kernel, KV_WRITE_PARAMS.pack({ T, KVH, D, S }), { k, v, slots, positions, kCache, vCache }, grid1d(Math.ceil((T * KVH * D) / 64)));
  }
}
