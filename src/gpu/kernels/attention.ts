/**
 * attention op (see attention.wgsl): causal GQA attention of T query tokens — each with its own sequence slot and
 * absolute position — over one layer's KV cache, online softmax, one workgroup of 64 per (token, head). Writes the
 * output (T, H, D) and the log-sum-exp (T, H) that the backward pass will use to recompute probabilities. The cache
 * is read in its storage format (kv-format.ts): one kernel per format, both compiled by `create` unless fewer are asked.
 * A second variant, 'row' (one invocation per (token, head), no barriers; the .wgsl says why), is the default on a
 * CPU adapter (adapter-probe.ts) for D ≤ ATTENTION_ROW_MAX_D and at least ATTENTION_ROW_MIN_JOBS (token, head) pairs:
 * fewer (a small decode batch) would leave most of the CPU's threads idle.
 */
import { isSoftwareAdapter } from '../adapter-probe.ts';
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { DEFAULT_KV_CACHE, KV_CACHE_FORMATS, kvCacheBytes, kvCacheWgsl, type KvCacheFormat } from '../kv-format.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import source from './attention.wgsl?raw';

export const ATTENTION_PARAMS = defineUniforms('AttentionParams', { T: 'u32', H: 'u32', KVH: 'u32', D: 'u32', S: 'u32', scale: 'f32' });

/** Largest head size the kernel accumulates (2 pairs of dims per invocation × 64 invocations). */
export const ATTENTION_MAX_D = 256;

/** Largest head size of the 'row' variant (ROW_MAX_D in the .wgsl). */
export const ATTENTION_ROW_MAX_D = 64;

/** Invocations per workgroup of the 'row' variant (ROW_WG in the .wgsl). */
export const ATTENTION_ROW_WG = 16;

/** Fewest (token, head) pairs for which a CPU adapter uses the 'row' variant by default (4 workgroups). */
export const ATTENTION_ROW_MIN_JOBS = 64;

export type AttentionVariant = 'workgroup' | 'row';

/** The variant used when none is named: 'row' on a CPU adapter for small heads and enough (token, head) pairs. */
export function defaultAttentionVariant(cpu: boolean, T: number, H: number, D: number): AttentionVariant {
  return cpu && D <= ATTENTION_ROW_MAX_D && T * H >= ATTENTION_ROW_MIN_JOBS ? 'row' : 'workgroup';
}

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
  /** (B, S, KVH, D) in `format`, holding every position up to each query's own */
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
  /** Storage of kCache and vCache; default DEFAULT_KV_CACHE ('f16'). Pass the memory plan's `kvCache`. */
  format?: KvCacheFormat;
  /** Default: defaultAttentionVariant. Both give the same bits. */
  variant?: AttentionVariant;
}

export class AttentionOp {
  private constructor(
    /** Keyed `${format}.${variant}`. */
    private readonly kernels: ReadonlyMap<string, Kernel>,
    /** The adapter is a CPU rasteriser (SwiftShader): the 'row' variant is the default where it fits. */
    private readonly cpu: boolean,
  ) {}

  static async create(ctx: GpuContext, formats: readonly KvCacheFormat[] = KV_CACHE_FORMATS): Promise<AttentionOp> {
    const entries = formats.flatMap((f) => [
      [f, 'workgroup', 'attention_forward', `attention.forward.${f}`],
      [f, 'row', 'attention_forward_row', `attention.forward_row.${f}`],
    ] as const);
    const kernels = await Promise.all(
      entries.map(([f, , entryPoint, name]) =>
        getKernel(ctx, { name, code: composeWgsl(WGSL_GRID, WGSL_MATH, ATTENTION_PARAMS.wgsl, kvCacheWgsl(f), source), entryPoint, bindings: BINDINGS }),
      ),
    );
    return new AttentionOp(new Map(entries.map(([f, variant], i) => [`${f}.${variant}`, kernels[i]])), isSoftwareAdapter(ctx.adapterInfo));
  }

  encode(rec: Recorder, args: AttentionArgs): void {
    const { T, H, KVH, D, S, B } = args;
    const format = args.format ?? DEFAULT_KV_CACHE;
    const variant = args.variant ?? defaultAttentionVariant(this.cpu, T, H, D);
    const kernel = this.kernels.get(`${format}.${variant}`);
    if (!kernel) throw new GpuShapeError('attention', `the op was created without the ${format} cache kernel`);
    if (variant === 'row' && D > ATTENTION_ROW_MAX_D) throw new GpuShapeError('attention', `variant 'row' holds D ≤ ${ATTENTION_ROW_MAX_D} in registers; D = ${D} needs 'workgroup'`);
    if (KVH <= 0 || H % KVH !== 0) throw new GpuShapeError('attention', `H = ${H} must be a multiple of KVH = ${KVH}`);
    if (D > ATTENTION_MAX_D || D % 2 !== 0) throw new GpuShapeError('attention', `head size D = ${D} must be even and at most ${ATTENTION_MAX_D}`);
    requireBytes('attention', 'q', args.q, T * H * D * 4);
    requireBytes('attention', 'out', args.out, T * H * D * 4);
    requireBytes('attention', 'lse', args.lse, T * H * 4);
    requireBytes('attention', 'kCache', args.kCache, kvCacheBytes(format, B * S * KVH * D));
    requireBytes('attention', 'vCache', args.vCache, kvCacheBytes(format, B * S * KVH * D));
    requireBytes('attention', 'slots', args.slots, T * 4);
    requireBytes('attention', 'positions', args.positions, T * 4);
    const { out, lse, q, kCache, vCache, slots, positions } = args;
    rec.dispatch(kernel, ATTENTION_PARAMS.pack({ T, H, KVH, D, S, scale: 1 / Math.sqrt(D) }), { q, kCache, vCache, slots, positions, out, lse }, grid1d(variant === 'row' ? Math.ceil((T * H) / ATTENTION_ROW_WG) : T * H));
  }
}
