/**
 * swiglu backward op (see swiglu-backward.wgsl): dgate, dup (M, I) = the gradients of silu(gate) · up given dact,
 * written (not accumulated), elementwise.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import type { SwigluBackwardArgs } from '../engine/train-ops.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import source from './swiglu-backward.wgsl?raw';

export const SWIGLU_BACKWARD_PARAMS = defineUniforms('SwigluBackwardParams', { n: 'u32' });

const CODE = composeWgsl(WGSL_GRID, WGSL_MATH, SWIGLU_BACKWARD_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'dact' },
  { binding: 2, kind: 'read-only-storage', name: 'gate' },
  { binding: 3, kind: 'read-only-storage', name: 'up' },
  { binding: 4, kind: 'storage', name: 'dgate' },
  { binding: 5, kind: 'storage', name: 'dup' },
];

export class SwigluBackwardOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<SwigluBackwardOp> {
    return new SwigluBackwardOp(await getKernel(ctx, { name: 'swiglu_backward', code: CODE, entryPoint: 'swiglu_backward', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: SwigluBackwardArgs): void {
    const { n } = args;
    if (!Number.isInteger(n) || n <= 0) throw new GpuShapeError('swiglu_backward', `n = ${n} must be a positive integer`);
    for (const name of ['dgate', 'dup', 'dact', 'gate', 'up'] as const) requireBytes('swiglu_backward', name, args[name], n * 4);
    rec.dispatch(
      this.kernel,
      SWIGLU_BACKWARD_PARAMS.pack({ n }),
      { dact: args.dact, gate: args.gate, up: args.up, dgate: args.dgate, dup: args.dup },
      grid1d(Math.ceil(n / 256)),
    );
  }
}
