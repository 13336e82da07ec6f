/**
 * attention op (see attention.wgsl): causal GQA attention of T query tokens — each with its own sequence slot and
 * absolute position — over one layer's KV cache, online softmax, one workgroup of 64 per (token, head). Writes the
 * output (T, H, D) and the log-sum-exp (T, H) that the backward pass will use to recompute probabilities.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import source from './attention.wgsl?raw';

export const ATTENTION_PARAMS = defineUniforms('AttentionParams', { T: 'u32', H: 'u32', KVH: 'u32', D: 'u32', S: 'u32', scale: 'f32' });

/** Largest head size the kernel accumulates (4 dims per invocation × 64 invocations). */
export const ATTENTION_MAX_D = 256;

const CODE = composeWgsl(WGSL_GRID, WGSL_MATH, ATTENTION_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'q' },
  { binding: 2, kind: 'read-only-storage', name: 'kCache' },
  { binding: 3, kind: 'read-only-storage', name: 'vCache' },
  { binding: 4, kind: 'read-only-storage', name: 'slots' },
  { binding: 5, kind: 'read-only-storage', name: 'positions' },
  { binding: 6, kind: 'storage', name: 'out' },
  { binding: 7, kind: 'storage', name: 'lse' },
];

export interface AttentionArgs {
  /** (T, H, D) f32 */
  out: BufferArg;
  /** (T, H) f32 log-sum-exp of the scaled scores */
  lse: BufferArg;
  /** (T, H, D) f32, after RoPE */
  q: BufferArg;
  /** (B, S, KVH, D) f32, holding every position up to each query's own */
  kCache: BufferArg;
  vCache: BufferArg;
  /** (T) u32 */
  slots: BufferArg;
  /** (T) u32, each < S */
  positions: BufferArg;
  T: number;
  H: number;
  KVH: number;
  D: number;
  S: number;
  B: number;
}

export class AttentionOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<AttentionOp> {
    return new AttentionOp(await getKernel(ctx, { name: 'attention.forward', code: CODE, entryPoint: 'attention_forward', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: AttentionArgs): void {
    const { T, H, KVH, D, S, B } = args;
    if (KVH <= 0 || H % KVH !== 0) throw new GpuShapeError('attention', `H = ${H} must be a multiple of KVH = ${KVH}`);
    if (D > ATTENTION_MAX_D) throw new GpuShapeError('attention', `head size D = ${D} exceeds ${ATTENTION_MAX_D}`);
    requireBytes('attention', 'q', args.q, T * H * D * 4);
    requireBytes('attention', 'out', args.out, T * H * D * 4);
    requireBytes('attention', 'lse', args.lse, T * H * 4);
    requireBytes('attention', 'kCache', args.kCache, B * S * KVH * D * 4);
    requireBytes('attention', 'vCache', args.vCache, B * S * KVH * D * 4);
    requireBytes('attention', 'slots', args.slots, T * 4);
    requireBytes('attention', 'positions', args.positions, T * 4);
    const { out, lse, q, kCache, vCache, slots, positions } = args;
    rec.dispatch(this.kernel, ATTENTION_PARAMS.pack({ T, H, KVH, D, S, scale: 1 / Math.sqrt(D) }), { q, kCache, vCache, slots, positions, out, lse }, grid1d(T * H));
  }
}
