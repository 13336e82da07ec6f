/**
 * embedding op (see embedding.wgsl): out (T, C) = table[ids], the table packed f16 in row chunks; one dispatch per
 * chunk. Token ids are the caller's to check against V (the engine validates them before upload).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import type { PackedWeight } from '../packed-weight.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './embedding.wgsl?raw';

export const EMBEDDING_PARAMS = defineUniforms('EmbeddingParams', { T: 'u32', C: 'u32', row0: 'u32', rows: 'u32' });

const CODE = composeWgsl(WGSL_GRID, EMBEDDING_PARAMS.wgsl, source);

const BINDINGS: BindingSpec[] = [
  { binding: 0, kind: 'uniform', name: 'params' },
  { binding: 1, kind: 'read-only-storage', name: 'ids' },
  { binding: 2, kind: 'read-only-storage', name: 'table' },
  { binding: 3, kind: 'storage', name: 'out' },
];

export interface EmbeddingArgs {
  /** (T, C) f32 */
  out: BufferArg;
  /** (T) u32, each < V */
  ids: BufferArg;
  /** (V, C) packed f16 */
  table: PackedWeight;
  T: number;
}

export class EmbeddingOp {
  private constructor(private readonly kernel: Kernel) {}

  static async create(ctx: GpuContext): Promise<EmbeddingOp> {
    return new EmbeddingOp(await getKernel(ctx, { name: 'embedding.gather', code: CODE, entryPoint: 'embedding_gather', bindings: BINDINGS }));
  }

  encode(rec: Recorder, args: EmbeddingArgs): void {
    const { T, table } = args;
    const C = table.cols;
    requireBytes('embedding', 'ids', args.ids, T * 4);
    requireBytes('embedding', 'out', args.out, T * C * 4);
    for (const chunk of table.chunks) {
      rec.dispatch(this.kernel, EMBEDDING_PARAMS.pack({ T, C, row0: chunk.row0, rows: chunk.rows }), { ids: args.ids, table: chunk.buffer, out: args.out }, grid1d(Math.ceil((T * C) / 2 / 64)));
    }
  }
}
