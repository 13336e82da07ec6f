/**
 * rmsnorm op (see rmsnorm.wgsl): out (M, C) = x / rms(x) · weight. One workgroup of 64 per row.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './rmsnorm.wgsl?raw';

export const RMSNORM_PARAMS = defineUniforms('RmsnormParams', { M: 'u32', C: 'u32', eps: 'f32' });

const CODE = composeWgsl(WGSL_GRID, RMSNORM_PARAMS.wgsl, source);

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
}

export class RmsnormOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<RmsnormOp> {
    return new RmsnormOp(await getKernel(ctx, { name: 'rmsnorm', code: CODE, entryPoint: 'rmsnorm', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: RmsnormArgs): void {
    const { M, C } = args;
    if (M <= 0 || C <= 0) throw new GpuShapeError('rmsnorm', `M = ${M}, C = ${C} must be positive`);
    requireBytes('rmsnorm', 'x', args.x, M * C * 4);
    requireBytes('rmsnorm', 'out', args.out, M * C * 4);
    requireBytes('rmsnorm', 'weight', args.weight, C * 4);
    rec.dispatch(this.kernel, RMSNORM_PARAMS.pack({ M, C, eps: args.eps }), { x: args.x, weight: args.weight, out: args.out }, grid1d(M));
  }
}
