/**
 * qk-norm-rope op (see qk-norm-rope.wgsl): Qwen3's q/k RMSNorms and RoPE on q and k in one dispatch, in place; for
 * Qwen2 the q/k/v biases instead of the norms (the fused q/k/v projection leaves them out). The unfused forward
 * records rmsnorm ×2 and rope ×2 (and the biases in the matmul) for the same result.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_WORKGROUP_SUM, grid1d } from '../wgsl/common.ts';
import source from './qk-norm-rope.wgsl?raw';

export const QK_NORM_ROPE_PARAMS = defineUniforms('QkNormRopeParams', { T: 'u32', H: 'u32', KVH: 'u32', D: 'u32', P: 'u32', mode: 'u32', eps: 'f32' });

const CODE = composeWgsl(WGSL_GRID, WGSL_WORKGROUP_SUM, QK_NORM_ROPE_PARAMS.wgsl, source);
const MAX_D = 512;

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'storage', name: 'q' },
  { binding: 2, kind: 'storage', name: 'k' },
  { binding: 3, kind: 'storage', name: 'v' },
  { binding: 4, kind: 'read-only-storage', name: 'positions' },
  { binding: 5, kind: 'read-only-storage', name: 'table' },
  { binding: 6, kind: 'read-only-storage', name: 'auxQ' },
  { binding: 7, kind: 'read-only-storage', name: 'auxK' },
  { binding: 8, kind: 'read-only-storage', name: 'auxV' },
];

/** What is applied before the rotation: nothing, Qwen3's per-head norms, or Qwen2's biases. */
export type QkPrologue = { kind: 'none' } | { kind: 'norm'; q: BufferArg; k: BufferArg; eps: number } | { kind: 'bias'; q: BufferArg; k: BufferArg; v: BufferArg };

export interface QkNormRopeArgs {
  /** (T, H, D), (T, KVH, D), (T, KVH, D) f32, in place. */
  q: BufferArg;
  k: BufferArg;
  v: BufferArg;
  /** (T) u32, each < P. */
  positions: BufferArg;
  /** (P, D/2, 2) f32 from buildRopeTable. */
  table: BufferArg;
  prologue: QkPrologue;
  T: number;
  H: number;
  KVH: number;
  D: number;
  P: number;
}

export class QkNormRopeOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<QkNormRopeOp> {
    return new QkNormRopeOp(await getKernel(ctx, { name: 'qk-norm-rope', code: CODE, entryPoint: 'qk_norm_rope', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: QkNormRopeArgs): void {
    const { T, H, KVH, D, P, prologue } = args;
    const name = 'qk-norm-rope';
    if (![T, H, KVH, D, P].every((n) => Number.isInteger(n) && n > 0)) throw new GpuShapeError(name, `T, H, KVH, D, P = ${[T, H, KVH, D, P].join(', ')} must be positive integers`);
    if (D % 2 !== 0 || D > MAX_D) throw new GpuShapeError(name, `head size D = ${D} must be even and at most ${MAX_D}`);
    requireBytes(name, 'q', args.q, T * H * D * 4);
    requireBytes(name, 'k', args.k, T * KVH * D * 4);
    requireBytes(name, 'v', args.v, T * KVH * D * 4);
    requireBytes(name, 'positions', args.positions, T * 4);
    requireBytes(name, 'table', args.table, P * D * 4);
    let aux = { auxQ: rec.dummy as BufferArg, auxK: rec.dummy as BufferArg, auxV: rec.dummy as BufferArg };
    let mode = 0;
    let eps = 0;
    if (prologue.kind === 'norm') {
      requireBytes(name, 'q_norm', prologue.q, D * 4);
      requireBytes(name, 'k_norm', prologue.k, D * 4);
      aux = { auxQ: prologue.q, auxK: prologue.k, auxV: rec.dummy };
      mode = 1;
      eps = prologue.eps;
    } else if (prologue.kind === 'bias') {
      requireBytes(name, 'q bias', prologue.q, H * D * 4);
      requireBytes(name, 'k bias', prologue.k, KVH * D * 4);
      requireBytes(name, 'v bias', prologue.v, KVH * D * 4);
      aux = { auxQ: prologue.q, auxK: prologue.k, auxV: prologue.v };
      mode = 2;
    }
    const heads = H + KVH + (mode === 2 ? KVH : 0);
    const uniforms = QK_NORM_ROPE_PARAMS.pack({ T, H, KVH, D, P, mode, eps });
    rec.dispatch(this.kernel, uniforms, { q: args.q, k: args.k, v: args.v, positions: args.positions, table: args.table, ...aux }, grid1d(T * heads));
  }
}
