/**
 * residual op (see residual.wgsl): out = a + b, or acc += b in place.
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './residual.wgsl?raw';

export const RESIDUAL_PARAMS = defineUniforms('ResidualParams', { n: 'u32' });

const CODE = composeWgsl(WGSL_GRID, RESIDUAL_PARAMS.wgsl, source);

const ADD_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'a' },
  { binding: 2, kind: 'read-only-storage', name: 'b' },
  { binding: 3, kind: 'storage', name: 'out' },
];

const ADD_INPLACE_BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 2, kind: 'read-only-storage', name: 'b' },
  { binding: 4, kind: 'storage', name: 'acc' },
];

export class ResidualOp {
  private constructor(private readonly addKernel: Kernel, private readonly addInplaceKernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<ResidualOp> {
    const [add, addInplace] = await Promise.all([
      getKernel(ctx, { name: 'residual.add', code: CODE, entryPoint: 'add', bindings: ADD_BINDINGS }),
      getKernel(ctx, { name: 'residual.add_inplace', code: CODE, entryPoint: 'add_inplace', bindings: ADD_INPLACE_BINDINGS }),
    ]);
    return new ResidualOp(add, addInplace);
  }

  /** out (n) = a + b */
  add(rec: Recorder, args: { out: BufferArg; a: BufferArg; b: BufferArg; n: number }): void {
    for (const name of ['out', 'a', 'b'] as const) requireBytes('residual.add', name, args[name], args.n * 4);
    rec.dispatch(this.addKernel, RESIDUAL_PARAMS.pack({ n: args.n }), { a: args.a, b: args.b, out: args.out }, grid1d(Math.ceil(args.n / 256)));
  }

  /** acc (n) += b */
  addInPlace(rec: Recorder, args: { acc: BufferArg; b: BufferArg; n: number }): void {
    for (const name of ['acc', 'b'] as const) requireBytes('residual.add_inplace', name, args[name], args.n * 4);
    rec.dispatch(this.addInplaceKernel, RESIDUAL_PARAMS.pack({ n: args.n }), { acc: args.acc, b: args.b }, grid1d(Math.ceil(args.n / 256)));
  }
}
