/**
 * Typed errors of the WebGPU engine. Each names the thing at fault (adapter, limit, kernel, tensor) and says what to
 * do about it, so a worker can send it across as name + message and the UI can show it unchanged.
 */

/** Base class: every engine error is a `GpuError`, so callers can tell engine failures from their own bugs. */
export class GpuError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuError';
  }
}

/** Why no device could be had at all. */
export type GpuUnavailableReason = 'no-webgpu' | 'insecure-context' | 'no-adapter' | 'request-device-failed' | 'node-no-adapter';

/** There is no WebGPU, no adapter, or the adapter refused to give a device. */
export class GpuUnavailableError extends GpuError {
  readonly reason: GpuUnavailableReason;
  constructor(reason: GpuUnavailableReason, detail = '') {
    const advice: Record<GpuUnavailableReason, string> = {
      'no-webgpu': 'This browser exposes no navigator.gpu. Use a recent Chrome or Edge (or Chromium with --enable-unsafe-webgpu).',
      'insecure-context': 'WebGPU needs a secure context: open the page over https or from http://127.0.0.1 / localhost.',
      'no-adapter': 'navigator.gpu.requestAdapter() returned no adapter. Check that hardware acceleration is on (chrome://gpu).',
      'request-device-failed': 'The adapter refused to create a device.',
      'node-no-adapter':
        "Dawn (the npm package 'webgpu') found no usable Vulkan, Metal or D3D12 adapter. On Linux without a GPU: install the Vulkan loader and SwiftShader (Debian: apt-get install libvulkan1 chromium), or point VK_ICD_FILENAMES at a Vulkan driver's ICD file.",
    };
    super(`WebGPU unavailable (${reason}): ${advice[reason]}${detail ? ` ${detail}` : ''}`);
    this.name = 'GpuUnavailableError';
    this.reason = reason;
  }
}

/** The adapter's limit is below what the engine (or a planned tensor) needs. */
export class GpuLimitError extends GpuError {
  readonly limit: string;
  readonly required: number;
  readonly available: number;
  constructor(limit: string, required: number, available: number, suggestion: string) {
    super(`GPU too small: ${limit} is ${available} on this adapter but ${required} is needed. ${suggestion}`);
    this.name = 'GpuLimitError';
    this.limit = limit;
    this.required = required;
    this.available = available;
  }
}

/** The device was lost (driver reset, tab in background too long, out of memory). Recoverable by re-acquiring. */
export class GpuDeviceLostError extends GpuError {
  readonly reason: string;
  constructor(reason: string, detail: string) {
    super(`GPU device lost (${reason}): ${detail || 'no detail given'}. Call recover() to get a new device; every buffer must be re-created.`);
    this.name = 'GpuDeviceLostError';
    this.reason = reason;
  }
}

/** A tensor handed to a kernel does not have the shape or size the kernel (or the memory plan) expects. */
export class GpuShapeError extends GpuError {
  readonly where: string;
  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.name = 'GpuShapeError';
    this.where = where;
  }
}

/** WGSL did not compile, a pipeline failed validation, or a validation/out-of-memory error scope fired. */
export class GpuKernelError extends GpuError {
  readonly kernel: string;
  constructor(kernel: string, message: string) {
    super(`kernel ${kernel}: ${message}`);
    this.name = 'GpuKernelError';
    this.kernel = kernel;
  }
}

/** A buffer allocation failed (out of GPU memory). Suggests a smaller setting. */
export class GpuOutOfMemoryError extends GpuError {
  readonly tensor: string;
  readonly bytes: number;
  constructor(tensor: string, bytes: number, suggestion: string) {
    super(`out of GPU memory allocating ${tensor} (${bytes} bytes). ${suggestion}`);
    this.name = 'GpuOutOfMemoryError';
    this.tensor = tensor;
    this.bytes = bytes;
  }
}
