/**
 * rmsnorm backward op (see rmsnorm-backward.wgsl): dx (M, C) (+)= d rmsnorm / dx · dy, the weight frozen. Serves the
 * layer norms and Qwen3's per-head q/k norms (rows T·H, C = D). One workgroup of 64 per row.
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

export class RmsnormBackwardOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<RmsnormBackwardOp> {
    return new RmsnormBackwardOp(await getKernel(ctx, { name: 'rmsnorm_backward', code: CODE, entryPoint: 'rmsnorm_backward', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: RmsnormBackwardArgs): void {
    const { M, C } = args;
    if (M <= 0 || C <= 0) throw new GpuShapeError('rmsnorm_backward', `M = ${M}, C = ${C} must be positive`);
    for (const name of ['dx', 'dy', 'x'] as const) requireBytes('rmsnorm_backward', name, args[name], M * C * 4);
    requireBytes('rmsnorm_backward', 'weight', args.weight, C * 4);
    rec.dispatch(
      this.kernel,
      RMSNORM_BACKWARD_PARAMS.pack({ M, C, eps: args.eps, accumulate: args.accumulate ? 1 : 0 }),
      { dy: args.dy, x: args.x, weight: args.weight, dx: args.dx },
      grid1d(M),
    );
  }
}
