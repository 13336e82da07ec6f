/**
 * swiglu op (see swiglu.wgsl): out (M, I) = silu(gate) · up, elementwise.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, WGSL_MATH, grid1d } from '../wgsl/common.ts';
import source from './swiglu.wgsl?raw';

export const SWIGLU_PARAMS = defineUniforms('SwigluParams', { n: 'u32' });

const CODE = composeWgsl(WGSL_GRID, WGSL_MATH, SWIGLU_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'gate' },
  { binding: 2, kind: 'read-only-storage', name: 'up' },
  { binding: 3, kind: 'storage', name: 'out' },
];

export interface SwigluArgs {
  /** (M, I) f32 */
  out: BufferArg;
  gate: BufferArg;
  up: BufferArg;
  /** M · I */
  n: number;
}

export class SwigluOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<SwigluOp> {
    return new SwigluOp(await getKernel(ctx, { name: 'swiglu', code: CODE, entryPoint: 'swiglu', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: SwigluArgs): void {
    for (const name of ['out', 'gate', 'up'] as const) requireBytes('swiglu', name, args[name], args.n * 4);
    rec.dispatch(this.kernel, SWIGLU_PARAMS.pack({ n: args.n }), { gate: args.gate, up: args.up, out: args.out }, grid1d(Math.ceil(args.n / 256)));
  }
}
