/**
 * Splitting tensors that exceed one binding. WebGPU binds at most `maxStorageBufferBindingSize` bytes of a buffer
 * (128 MiB by default, often 1–4 GiB when requested) and a buffer holds at most `maxBufferSize`; Qwen3-0.6B's tied
 * embedding (151936 × 1024 f16 = 297 MiB) exceeds common limits. A row-major (rows, cols) tensor is therefore
 * stored as whole-row chunks, each its own buffer, of nearly equal size; kernels dispatch once per chunk with the
 * chunk's first row (matmul's n0, the embedding gather's row range). Pure TS: tested in Node.
 */
import { GpuLimitError, GpuShapeError } from './errors.ts';

export interface RowChunk {
  /** First row of the chunk in the whole tensor. */
  row0: number;
  rows: number;
  /** Offset of the chunk in the unsplit tensor's bytes. */
  byteOffset: number;
  bytes: number;
}

/**
 * Splits `rows` rows of `rowBytes` bytes each into the fewest whole-row chunks of at most `maxBytes` bytes, sized
 * as evenly as possible (chunk sizes differ by at most one row).
 */
export function splitRows(rows: number, rowBytes: number, maxBytes: number, what = 'tensor'): RowChunk[] {
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(rowBytes) || rowBytes <= 0) {
    throw new GpuShapeError(`splitRows(${what})`, `rows = ${rows}, rowBytes = ${rowBytes} must be integers, rowBytes > 0`);
  }
  if (rowBytes > maxBytes) {
    throw new GpuLimitError('maxStorageBufferBindingSize', rowBytes, maxBytes, `One row of ${what} does not fit a binding.`);
  }
  if (rows === 0) return [];
  const perChunkMax = Math.floor(maxBytes / rowBytes);
  const count = Math.ceil(rows / perChunkMax);
  const base = Math.floor(rows / count);
  const extra = rows % count;
  const chunks: RowChunk[] = [];
  let row0 = 0;
  for (let i = 0; i < count; i++) {
    const n = base + (i < extra ? 1 : 0);
    chunks.push({ row0, rows: n, byteOffset: row0 * rowBytes, bytes: n * rowBytes });
    row0 += n;
  }
  return chunks;
}

/** The largest chunk a tensor may have on a device: one binding, and one buffer. */
export function maxChunkBytes(limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): number {
  return Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
}
