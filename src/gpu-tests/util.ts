/**
 * Helpers of the GPU kernel checks: seeded inputs as the GPU will see them (f32-rounded activations, f16-rounded
 * weights) in float64 for the reference, and upload/readback shorthands. The checks own every buffer they create
 * and destroy them through `Scope.destroy()`.
 */
import type { Rng } from '../data/rng.ts';
import { createStorage, createStorageWith, readF32 } from '../gpu/buffers.ts';
import type { GpuContext } from '../gpu/device.ts';
import { packF16Matrix, roundToF16 } from '../gpu/f16.ts';
import { createPackedWeight, destroyPackedWeight, writePackedWeight, type PackedWeight } from '../gpu/packed-weight.ts';
import { randomArray } from '../model/reference/ops.ts';

/** n uniform values in ±scale, rounded to f32 (what an f32 GPU buffer holds). */
export function randomF32(rng: Rng, n: number, scale: number): Float64Array {
  return Float64Array.from(Float32Array.from(randomArray(rng, n, scale)));
}

/** n uniform values in ±scale, rounded to f16 (what a packed weight holds). */
export function randomF16(rng: Rng, n: number, scale: number): Float64Array {
  return roundToF16(randomArray(rng, n, scale));
}

/** Buffers created by one check, destroyed together. */
export class Scope {
  private readonly buffers: GPUBuffer[] = [];
  private readonly weights: PackedWeight[] = [];
  constructor(readonly ctx: GpuContext) {}

  f32(label: string, values: ArrayLike<number>): GPUBuffer {
    const buffer = createStorageWith(this.ctx, label, Float32Array.from(values));
    this.buffers.push(buffer);
    return buffer;
  }

  u32(label: string, values: ArrayLike<number>): GPUBuffer {
    const buffer = createStorageWith(this.ctx, label, Uint32Array.from(values));
    this.buffers.push(buffer);
    return buffer;
  }

  empty(label: string, elements: number): GPUBuffer {
    const buffer = createStorage(this.ctx, label, elements * 4);
    this.buffers.push(buffer);
    return buffer;
  }

  weight(label: string, values: ArrayLike<number>, rows: number, cols: number, maxBytes?: number): PackedWeight {
    const weight = createPackedWeight(this.ctx, label, rows, cols, maxBytes);
    writePackedWeight(this.ctx, weight, packF16Matrix(values, rows, cols, label));
    this.weights.push(weight);
    return weight;
  }

  read(buffer: GPUBuffer, count: number): Promise<Float32Array> {
    return readF32(this.ctx, buffer, count);
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
    for (const w of this.weights) destroyPackedWeight(w);
  }
}
