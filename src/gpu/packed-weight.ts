/**
 * A packed weight on the GPU: a (N, K) matrix in Hugging Face Linear layout stored as u32 words in one of the
 * formats of quant.ts (f16 pairs, or q8/q4 groups with their scales at the end of each row), in whole-row chunks
 * that each fit one binding (split.ts). Kernels that read weights (matmul, the embedding gather) take a
 * `PackedWeight`, pick the kernel compiled for its format, and dispatch once per chunk.
 *
 * Ownership: `createPackedWeight` creates the chunk buffers; the caller (normally the memory plan's allocation)
 * destroys them with `destroyPackedWeight`.
 */
import { createStorage, writeBuffer } from './buffers.ts';
import type { GpuContext } from './device.ts';
import { GpuShapeError } from './errors.ts';
import { checkWeightShape, weightRowWords, type WeightFormat } from './quant.ts';
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
  /** K columns (input features; C for the embedding table); even (f16) or a multiple of QUANT_GROUP (q8, q4). */
  cols: number;
  /** Storage format; absent means 'f16'. */
  format?: WeightFormat;
  chunks: WeightChunk[];
}

/** The weight's storage format ('f16' when unset). */
export function formatOf(weight: PackedWeight): WeightFormat {
  return weight.format ?? 'f16';
}

/** Empty chunk buffers for a (rows, cols) weight in `format`, split for this device. */
export function createPackedWeight(ctx: GpuContext, label: string, rows: number, cols: number, maxBytes = maxChunkBytes(ctx.limits), format: WeightFormat = 'f16'): PackedWeight {
  checkWeightShape(format, rows, cols, `weight ${label}`);
  const chunks = splitRows(rows, weightRowWords(format, cols) * 4, maxBytes, label).map((c, i, all) => ({
    buffer: createStorage(ctx, all.length > 1 ? `${label}[${i}]` : label, c.bytes),
    row0: c.row0,
    rows: c.rows,
  }));
  return { label, rows, cols, format, chunks };
}

/** Uploads packed words (rows, weightRowWords) into the weight's chunks. */
export function writePackedWeight(ctx: GpuContext, weight: PackedWeight, words: Uint32Array): void {
  const rowWords = weightRowWords(formatOf(weight), weight.cols);
  if (words.length !== weight.rows * rowWords) {
    throw new GpuShapeError(`weight ${weight.label}`, `expected ${weight.rows}×${rowWords} ${formatOf(weight)} words, got ${words.length}`);
  }
  for (const chunk of weight.chunks) writeBuffer(ctx, chunk.buffer, words.subarray(chunk.row0 * rowWords, (chunk.row0 + chunk.rows) * rowWords));
}

export function destroyPackedWeight(weight: PackedWeight): void {
  for (const chunk of weight.chunks) chunk.buffer.destroy();
  weight.chunks = [];
}
