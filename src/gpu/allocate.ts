/**
 * Allocation from the memory plan: `allocatePlan` creates one buffer per plan entry (one per chunk for split
 * weights) inside an out-of-memory error scope, and hands them out by name. Shapes are checked on every access and
 * write against the plan: a mismatch is a `GpuShapeError`, never a reallocation.
 *
 * Ownership: the `AllocatedPlan` owns every buffer it created and destroys them all in `destroy()`.
 */
import { allocateChecked, createStorage, writeBuffer } from './buffers.ts';
import type { GpuContext } from './device.ts';
import { GpuLimitError, GpuShapeError } from './errors.ts';
import { formatBytes, matrixFormat, type MemoryPlan, type PlanEntry } from './memory-plan.ts';
import { destroyPackedWeight, formatOf, type PackedWeight } from './packed-weight.ts';
import { weightRowWords } from './quant.ts';
import { maxChunkBytes } from './split.ts';

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class AllocatedPlan {
  readonly plan: MemoryPlan;
  private readonly ctx: GpuContext;
  private readonly entries: Map<string, PlanEntry>;
  private readonly buffers: Map<string, GPUBuffer>;
  private readonly weights: Map<string, PackedWeight>;

  constructor(ctx: GpuContext, plan: MemoryPlan, buffers: Map<string, GPUBuffer>, weights: Map<string, PackedWeight>) {
    this.ctx = ctx;
    this.plan = plan;
    this.entries = new Map(plan.entries.map((e) => [e.name, e]));
    this.buffers = buffers;
    this.weights = weights;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  entry(name: string, shape?: readonly number[]): PlanEntry {
    const entry = this.entries.get(name);
    if (!entry) throw new GpuShapeError(`memory plan`, `no tensor named ${name} in the plan`);
    if (shape && !sameShape(shape, entry.shape)) throw new GpuShapeError(`tensor ${name}`, `shape (${shape.join(', ')}) differs from the plan's (${entry.shape.join(', ')})`);
    return entry;
  }

  /** The buffer of an f32/u32 entry. */
  buffer(name: string, shape?: readonly number[]): GPUBuffer {
    this.entry(name, shape);
    const buffer = this.buffers.get(name);
    if (!buffer) throw new GpuShapeError(`tensor ${name}`, 'is a packed weight: use weight()');
    return buffer;
  }

  /** A packed weight, f16 or quantised (possibly in chunks). */
  weight(name: string, shape?: readonly number[]): PackedWeight {
    this.entry(name, shape);
    const weight = this.weights.get(name);
    if (!weight) throw new GpuShapeError(`tensor ${name}`, 'is not a packed weight: use buffer()');
    return weight;
  }

  /** Uploads f32 or u32 values of an entry with the given shape (checked against the plan). */
  write(name: string, shape: readonly number[], values: Float32Array | Uint32Array): void {
    const entry = this.entry(name, shape);
    const expected = entry.dtype === 'u32' ? Uint32Array : Float32Array;
    if (!(values instanceof expected)) throw new GpuShapeError(`tensor ${name}`, `expected ${expected.name} data for dtype ${entry.dtype}`);
    if (values.byteLength !== entry.bytes) throw new GpuShapeError(`tensor ${name}`, `${values.byteLength} bytes given, the plan holds ${entry.bytes}`);
    writeBuffer(this.ctx, this.buffer(name), values);
  }

  /** Uploads the first `values.length` elements of an f32/u32 entry (e.g. this step's T of the planned tokens). */
  writeRange(name: string, values: Float32Array | Uint32Array): void {
    const entry = this.entry(name);
    const expected = entry.dtype === 'u32' ? Uint32Array : Float32Array;
    if (!(values instanceof expected)) throw new GpuShapeError(`tensor ${name}`, `expected ${expected.name} data for dtype ${entry.dtype}`);
    if (values.byteLength > entry.bytes) throw new GpuShapeError(`tensor ${name}`, `${values.byteLength} bytes given, the plan holds ${entry.bytes}`);
    writeBuffer(this.ctx, this.buffer(name), values);
  }

  /** Uploads packed words (rows, weightRowWords) of a weight with the given shape, encoded in the plan's format. */
  writePacked(name: string, shape: readonly number[], words: Uint32Array): void {
    const weight = this.weight(name, shape);
    const rowWords = weightRowWords(formatOf(weight), weight.cols);
    if (words.length !== weight.rows * rowWords) throw new GpuShapeError(`tensor ${name}`, `${words.length} words given, the plan holds ${weight.rows * rowWords}`);
    for (const chunk of weight.chunks) writeBuffer(this.ctx, chunk.buffer, words.subarray(chunk.row0 * rowWords, (chunk.row0 + chunk.rows) * rowWords));
  }

  destroy(): void {
    for (const buffer of this.buffers.values()) buffer.destroy();
    for (const weight of this.weights.values()) destroyPackedWeight(weight);
    this.buffers.clear();
    this.weights.clear();
  }
}

/** Creates every buffer of the plan on the context's device. */
export async function allocatePlan(ctx: GpuContext, plan: MemoryPlan): Promise<AllocatedPlan> {
  const deviceMax = maxChunkBytes(ctx.limits);
  if (plan.options.maxBindingBytes > deviceMax) {
    throw new GpuLimitError('maxStorageBufferBindingSize', plan.options.maxBindingBytes, deviceMax, 'Plan with maxBindingBytes = maxChunkBytes(ctx.limits).');
  }
  for (const e of plan.entries) {
    if (!e.chunks && e.bytes > deviceMax) {
      throw new GpuLimitError('maxStorageBufferBindingSize', e.bytes, deviceMax, `Tensor ${e.name} (${formatBytes(e.bytes)}) needs one binding: lower the batch, context or tokens per forward.`);
    }
  }
  const allocate = () => {
    const buffers = new Map<string, GPUBuffer>();
    const weights = new Map<string, PackedWeight>();
    for (const e of plan.entries) {
      const format = matrixFormat(e.dtype);
      if (format) {
        const [rows, cols] = e.shape;
        const chunks = e.chunks ?? [{ row0: 0, rows, byteOffset: 0, bytes: e.bytes }];
        weights.set(e.name, {
          label: e.name,
          rows,
          cols,
          format,
          chunks: chunks.map((c, i) => ({ buffer: createStorage(ctx, chunks.length > 1 ? `${e.name}[${i}]` : e.name, c.bytes), row0: c.row0, rows: c.rows })),
        });
      } else {
        buffers.set(e.name, createStorage(ctx, e.name, e.bytes));
      }
    }
    return { buffers, weights };
  };
  const created = ({ buffers, weights }: ReturnType<typeof allocate>) => [...buffers.values(), ...[...weights.values()].flatMap((w) => w.chunks.map((c) => c.buffer))];
  const suggestion = 'Lower the batch (sequence slots), the context length or the LoRA rank, or pick a smaller model.';
  const { buffers, weights } = await allocateChecked(ctx, `memory plan (${formatBytes(plan.totalBytes)})`, plan.totalBytes, allocate, created, suggestion);
  return new AllocatedPlan(ctx, plan, buffers, weights);
}
