/**
 * Buffer helpers. Whoever calls `createStorage` owns the buffer and destroys it (the memory plan's allocation owns
 * every planned tensor; tests own their scratch buffers). `readBuffer` creates and destroys its own staging buffer.
 *
 * Sizes are bytes, rounded up to a multiple of 4 (WebGPU copies and bindings work in 4-byte units). Allocation is
 * wrapped in an out-of-memory error scope by `allocateChecked` so a failed allocation is a typed error, not a lost
 * device later.
 */
import type { GpuContext } from './device.ts';
import { GpuOutOfMemoryError, GpuShapeError } from './errors.ts';
import { BufferUsage, MapMode } from './flags.ts';

/** Usage of every storage buffer of the engine. */
export const STORAGE_USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

export function align4(bytes: number): number {
  return Math.max(4, Math.ceil(bytes / 4) * 4);
}

/** A storage buffer of at least `bytes` (rounded up to 4), owned by the caller. */
export function createStorage(ctx: GpuContext, label: string, bytes: number): GPUBuffer {
  ctx.assertReady();
  const size = align4(bytes);
  if (size > ctx.limits.maxBufferSize) {
    throw new GpuShapeError(`buffer ${label}`, `${size} bytes exceeds maxBufferSize ${ctx.limits.maxBufferSize}; split it (see split.ts)`);
  }
  return ctx.device.createBuffer({ label, size, usage: STORAGE_USAGE });
}

/** A storage buffer holding `data`, owned by the caller. */
export function createStorageWith(ctx: GpuContext, label: string, data: ArrayBufferView): GPUBuffer {
  const buffer = createStorage(ctx, label, data.byteLength);
  writeBuffer(ctx, buffer, data);
  return buffer;
}

/** Copies `data` into `buffer` at `offset` bytes (the byte count is padded to 4 with zeros when needed). */
export function writeBuffer(ctx: GpuContext, buffer: GPUBuffer, data: ArrayBufferView, offset = 0): void {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.byteLength % 4 === 0) {
    ctx.device.queue.writeBuffer(buffer, offset, bytes);
    return;
  }
  const padded = new Uint8Array(align4(bytes.byteLength));
  padded.set(bytes);
  ctx.device.queue.writeBuffer(buffer, offset, padded);
}

/** Reads `bytes` bytes of `buffer` from `offset` back to the CPU (after all submitted work). */
export async function readBuffer(ctx: GpuContext, buffer: GPUBuffer, bytes = buffer.size, offset = 0): Promise<ArrayBuffer> {
  const size = align4(bytes);
  const staging = ctx.device.createBuffer({ label: `${buffer.label}.readback`, size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  try {
    const encoder = ctx.device.createCommandEncoder({ label: 'readback' });
    encoder.copyBufferToBuffer(buffer, offset, staging, 0, size);
    ctx.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(MapMode.READ);
    return staging.getMappedRange().slice(0, bytes);
  } finally {
    staging.destroy();
  }
}

export async function readF32(ctx: GpuContext, buffer: GPUBuffer, count: number, offsetElements = 0): Promise<Float32Array> {
  return new Float32Array(await readBuffer(ctx, buffer, count * 4, offsetElements * 4));
}

/**
 * Runs `allocate` inside an out-of-memory error scope; if the GPU could not allocate, destroys what was created
 * (`created()` lists it) and throws a `GpuOutOfMemoryError` naming the allocation.
 */
export async function allocateChecked<T>(ctx: GpuContext, what: string, bytes: number, allocate: () => T, created: (value: T) => GPUBuffer[], suggestion: string): Promise<T> {
  ctx.device.pushErrorScope('out-of-memory');
  ctx.device.pushErrorScope('validation');
  const value = allocate();
  const validation = await ctx.device.popErrorScope();
  const oom = await ctx.device.popErrorScope();
  if (oom || validation) {
    for (const buffer of created(value)) buffer.destroy();
    if (oom) throw new GpuOutOfMemoryError(what, bytes, suggestion);
    throw new GpuShapeError(what, `allocation failed validation: ${validation?.message ?? ''}`);
  }
  return value;
}

/** Bytes visible through a binding argument (the whole buffer past `offset` when no size is given). */
export function bindingBytes(arg: GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number }): number {
  if (!('buffer' in arg)) return arg.size;
  return arg.size ?? arg.buffer.size - (arg.offset ?? 0);
}

/** Throws a `GpuShapeError` naming the kernel and argument when `arg` holds fewer than `bytes` bytes. */
export function requireBytes(kernel: string, name: string, arg: GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number }, bytes: number): void {
  const have = bindingBytes(arg);
  if (have < bytes) throw new GpuShapeError(kernel, `${name} holds ${have} bytes but the shape needs ${bytes}`);
}
