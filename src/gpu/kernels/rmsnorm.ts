/**
 * rmsnorm op (see rmsnorm.wgsl): out (M, C) = x / rms(x) · weight. Two variants (the .wgsl says why): 'workgroup',
 * one workgroup of 64 per row, for C > 64, and 'row', one invocation per row, for C ≤ 64 (the default picks by C,
 * with the backward's threshold).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_WORKGROUP_SUM, grid1d } from '../wgsl/common.ts';
import source from './rmsnorm.wgsl?raw';

export const RMSNORM_PARAMS = defineUniforms('RmsnormParams', { M: 'u32', C: 'u32', eps: 'f32' });

const CODE = composeWgsl(WGSL_GRID, WGSL_WORKGROUP_SUM, RMSNORM_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'x' },
  { binding: 2, kind: 'read-only-storage', name: 'weight' },
  { binding: 3, kind: 'storage', name: 'out' },
];

export interface RmsnormArgs {
  /** (M, C) f32 */
  out: BufferArg;
  /** (M, C) f32 */
  x: BufferArg;
  /** (C) f32 */
  weight: BufferArg;
  M: number;
  C: number;
  eps: number;
  /** Default: 'row' for C ≤ RMSNORM_ROW_MAX_C, else 'workgroup'. Both give the same bits. */
  variant?: RmsnormVariant;
}

export type RmsnormVariant = 'workgroup' | 'row';

/** Rows of at most this many elements use the 'row' variant by default (64 = the workgroup variant's width; the
 * backward's ROW_VARIANT_MAX_C is the same). */
export const RMSNORM_ROW_MAX_C = 64;

export class RmsnormOp {
  private constructor(private readonly kernels: Record<RmsnormVariant, Kernel>) {}

  static async create(ctx: GpuContext): Promise<RmsnormOp> {
    const [workgroup, row] = await Promise.all([
      getKernel(ctx, { name: 'rmsnorm', code: CODE, entryPoint: 'rmsnorm', bindings: BINDINGS }),
      getKernel(ctx, { name: 'rmsnorm.row', code: CODE, entryPoint: 'rmsnorm_row', bindings: BINDINGS }),
    ]);
    return new RmsnormOp({ workgroup, row });
  }

  encode(rec: Recorder, args: RmsnormArgs): void {
    const { M, C } = args;
    if (M <= 0 || C <= 0) throw new GpuShapeError('rmsnorm', `M = ${M}, C = ${C} must be positive`);
    requireBytes('rmsnorm', 'x', args.x, M * C * 4);
    requireBytes('rmsnorm', 'out', args.out, M * C * 4);
    requireBytes('rmsnorm', 'weight', args.weight, C * 4);
    const variant = args.variant ?? (C <= RMSNORM_ROW_MAX_C ? 'row' : 'workgroup');
    rec.dispatch(
      this.kernels[variant],
      RMSNORM_PARAMS.pack({ M, C, eps: args.eps }),
      { x: args.x, weight: args.weight, out: args.out },
      grid1d(variant === 'row' ? Math.ceil(M / 64) : M),
    );
  }
}
