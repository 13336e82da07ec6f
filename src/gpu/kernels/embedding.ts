/**
 * embedding op (see embedding.wgsl): out (T, C) = table[ids], the table packed (f16, q8 or q4) in row chunks; one
 * dispatch per chunk, with the gather compiled for the table's format. Token ids are the caller's to check against V (the engine validates them before upload).
 */
import { requireBytes } from '../buffers.ts';
import type { GpuContext } from '../device.ts';
import { composeWgsl, getKernel, type BindingSpec, type Kernel } from '../kernel.ts';
import { GpuShapeError } from '../errors.ts';
import { formatOf, type PackedWeight } from '../packed-weight.ts';
import { wgslWeightReader, type WeightFormat } from '../quant.ts';
import type { BufferArg, Recorder } from '../recorder.ts';
import { defineUniforms } from '../uniforms.ts';
import { WGSL_GRID, grid1d } from '../wgsl/common.ts';
import source from './embedding.wgsl?raw';

export const EMBEDDING_PARAMS = defineUniforms('EmbeddingParams', { T: 'u32', C: 'u32', row0: 'u32', rows: 'u32' });

function code(format: WeightFormat): string {
  return composeWgsl(WGSL_GRID, EMBEDDING_PARAMS.wgsl, wgslWeightReader(format, 'table_pair', 'table', 'params.C'), source);
}

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
  /** (V, C) packed, any format the op was created for */
  table: PackedWeight;
  T: number;
}

export class EmbeddingOp {
  private constructor(private readonly kernels: Map<WeightFormat, Kernel>) {}

  /** Compiles the gather for each of `formats` (default f16 only). */
  static async create(ctx: GpuContext, formats: readonly WeightFormat[] = ['f16']): Promise<EmbeddingOp> {
    const kernels = new Map<WeightFormat, Kernel>();
    for (const format of new Set(formats)) {
      const name = format === 'f16' ? 'embedding.gather' : `embedding.gather.${format}`;
      kernels.set(format, await getKernel(ctx, { name, code: code(format), entryPoint: 'embedding_gather', bindings: BINDINGS }));
    }
    return new EmbeddingOp(kernels);
  }

  encode(rec: Recorder, args: EmbeddingArgs): void {
    const { T, table } = args;
    const C = table.cols;
    requireBytes('embedding', 'ids', args.ids, T * 4);
    requireBytes('embedding', 'out', args.out, T * C * 4);
    const kernel = this.kernels.get(formatOf(table));
    if (!kernel) throw new GpuShapeError(`embedding(${table.label})`, `table format ${formatOf(table)} was not compiled: create the op with EmbeddingOp.create(ctx, ['${formatOf(table)}'])`);
    for (const chunk of table.chunks) {
      rec.dispatch(kernel, EMBEDDING_PARAMS.pack({ T, C, row0: chunk.row0, rows: chunk.rows }), { ids: args.ids, table: chunk.buffer, out: args.out }, grid1d(Math.ceil((T * C) / 2 / 64)));
    }
  }
}
