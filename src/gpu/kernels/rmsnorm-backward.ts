/**
 * rmsnorm backward op (see rmsnorm-backward.wgsl): dx (M, C) (+)= d rmsnorm / dx · dy, the weight frozen. Serves the
 * layer norms and Qwen3's per-head q/k norms (rows T·H, C = D). Two variants (the .wgsl says why): 'workgroup', one
 * workgroup of 64 per row, for C > 64, and 'row', one invocation per row, for C ≤ 64 (the default picks by C).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { RmsnormBackwardArgs } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './rmsnorm-backward.wgsl?raw';

export const RMSNORM_BACKWARD_PARAMS = defineUniforms('RmsnormBackwardParams', { M: 'u32', C: 'u32', eps: 'f32', accumulate: 'u32' });

const CODE = composeWgsl(WGSL_GRID, RMSNORM_BACKWARD_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'dy' },
  { binding: 2, kind: 'read-only-storage', name: 'x' },
  { binding: 3, kind: 'read-only-storage', name: 'weight' },
  { binding: 4, kind: 'storage', name: 'dx' },
];

export type RmsnormBackwardVariant = 'workgroup' | 'row';

/** Rows of at most this many elements use the 'row' variant by default (64 = the workgroup variant's width). */
export const ROW_VARIANT_MAX_C = 64;

export interface RmsnormBackwardOptions extends RmsnormBackwardArgs {
  /** Default: 'row' for C ≤ ROW_VARIANT_MAX_C, else 'workgroup'. */
  variant?: RmsnormBackwardVariant;
}

export class RmsnormBackwardOp {
  private constructor(private readonly kernels: Record<RmsnormBackwardVariant, Kernel>) {}

  static async create(ctx: GpuContext): Promise<RmsnormBackwardOp> {
    const [workgroup, row] = await Promise.all([
      getKernel(ctx, { name: 'rmsnorm_backward', code: CODE, entryPoint: 'rmsnorm_backward', bindings: BINDINGS }),
      getKernel(ctx, { name: 'rmsnorm_backward.row', code: CODE, entryPoint: 'rmsnorm_backward_row', bindings: BINDINGS }),
    ]);
    return new RmsnormBackwardOp({ workgroup, row });
  }

  encode(rec: Recorder, args: RmsnormBackwardOptions): void {
    const { M, C } = args;
    if (M <= 0 || C <= 0) throw new GpuShapeError('rmsnorm_backward', `M = ${M}, C = ${C} must be positive`);
    for (const name of ['dx', 'dy', 'x'] as const) requireBytes('rmsnorm_backward', name, args[name], M * C * 4);
    requireBytes('rmsnorm_backward', 'weight', args.weight, C * 4);
    const variant = args.variant ?? (C <= ROW_VARIANT_MAX_C ? 'row' : 'workgroup');
    rec.dispatch(
      this.kernels[variant],
      RMSNORM_BACKWARD_PARAMS.pack({ M, C, eps: args.eps, accumulate: args.accumulate ? 1 : 0 }),
      { dy: args.dy, x: args.x, weight: args.weight, dx: args.dx },
      grid1d(variant === 'row' ? Math.ceil(M / 64) : M),
    );
  }
}
