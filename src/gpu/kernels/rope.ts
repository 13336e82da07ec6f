/**
 * rope op (see rope.wgsl): rotates q or k (T, NH, D) in place by each token's position, from a float64-built
 * cos/sin table (rope-table.ts). `backward: true` applies the inverse rotation (the gradient).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { GpuShapeError } from '../errors.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './rope.wgsl?raw';

export const ROPE_PARAMS = defineUniforms('RopeParams', { T: 'u32', NH: 'u32', D: 'u32', P: 'u32' });

const CODE = composeWgsl(WGSL_GRID, ROPE_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'storage', name: 'x' },
  { binding: 2, kind: 'read-only-storage', name: 'positions' },
  { binding: 3, kind: 'read-only-storage', name: 'table' },
];

export interface RopeArgs {
  /** (T, NH, D) f32, rotated in place. */
  x: BufferArg;
  /** (T) u32 absolute positions, each < P. */
  positions: BufferArg;
  /** (P, D/2, 2) f32 from buildRopeTable. */
  table: BufferArg;
  T: number;
  NH: number;
  D: number;
  P: number;
  backward?: boolean;
}

export class RopeOp {
  private constructor(private readonly forward: Kernel, private readonly backward: Kernel) {}

  static async create(ctx: GpuContext): Promise<RopeOp> {
    const [forward, backward] = await Promise.all([
      getKernel(ctx, { name: 'rope.forward', code: CODE, entryPoint: 'rope_forward', bindings: BINDINGS }),
      getKernel(ctx, { name: 'rope.backward', code: CODE, entryPoint: 'rope_backward', bindings: BINDINGS }),
    ]);
    return new RopeOp(forward, backward);
  }

  encode(rec: Recorder, args: RopeArgs): void {
    const { T, NH, D, P } = args;
    if (D % 2 !== 0) throw new GpuShapeError('rope', `head size D = ${D} must be even`);
    requireBytes('rope', 'x', args.x, T * NH * D * 4);
    requireBytes('rope', 'positions', args.positions, T * 4);
    requireBytes('rope', 'table', args.table, P * D * 4);
    const kernel = args.backward ? this.backward : this.forward;
    rec.dispatch(kernel, ROPE_PARAMS.pack({ T, NH, D, P }), { x: args.x, positions: args.positions, table: args.table }, grid1d(Math.ceil((T * NH * D) / 2 / 64)));
  }
}
