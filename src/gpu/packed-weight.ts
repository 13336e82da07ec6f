/**
 * A packed-f16 weight on the GPU: a (N, K) matrix in Hugging Face Linear layout stored as (N, K/2) u32 words, in
 * whole-row chunks that each fit one binding (split.ts). Kernels that read weights (matmul, the embedding gather)
 * take a `PackedWeight` and dispatch once per chunk.
 *
 * Ownership: `createPackedWeight` creates the chunk buffers; the caller (normally the memory plan's allocation)
 * destroys them with `destroyPackedWeight`.
 */
import { createStorage, writeBuffer } from './buffers.ts';
import type { GpuContext } from './device.ts';
import { GpuShapeError } from './errors.ts';
import { maxChunkBytes, splitRows } from './split.ts';

export interface WeightChunk {
  buffer: GPUBuffer;
  row0: number;
  rows: number;
}

export interface PackedWeight {
  label: string;
  /** N rows (output features; V for the embedding table). */
  rows: number;
  /** K columns (input features; C for the embedding table); even. */
  cols: number;
  chunks: WeightChunk[];
}

/** Empty chunk buffers for a (rows, cols) packed-f16 weight, split for this device. */
export function createPackedWeight(ctx: GpuContext, label: string, rows: number, cols: number, maxBytes = maxChunkBytes(ctx.limits)): PackedWeight {
  if (cols % 2 !== 0) throw new GpuShapeError(`weight ${label}`, `K = ${cols} must be even to pack f16 pairs`);
  const chunks = splitRows(rows, cols * 2, maxBytes, label).map((c, i, all) => ({
    buffer: createStorage(ctx, all.length > 1 ? `${label}[${i}]` : label, c.bytes),
    row0: c.row0,
    rows: c.rows,
  }));
  return { label, rows, cols, chunks };
}

/** Uploads packed words (rows, cols/2) into the weight's chunks. */
export function writePackedWeight(ctx: GpuContext, weight: PackedWeight, words: Uint32Array): void {
  const rowWords = weight.cols / 2;
  if (words.length !== weight.rows * rowWords) {
    throw new GpuShapeError(`weight ${weight.label}`, `expected ${weight.rows}×${rowWords} packed words, got ${words.length}`);
  }
  for (const chunk of weight.chunks) writeBuffer(ctx, chunk.buffer, words.subarray(chunk.row0 * rowWords, (chunk.row0 + chunk.rows) * rowWords));
}

export function destroyPackedWeight(weight: PackedWeight): void {
  for (const chunk of weight.chunks) chunk.buffer.destroy();
  weight.chunks = [];
}
