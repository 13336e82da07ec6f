/**
 * Where transformers.js runs: WebGPU when the browser gives an adapter, WASM (onnxruntime-web's CPU backend)
 * otherwise — a browser without WebGPU, or with it blocked, still plays. The person may force WASM (to compare,
 * or when a GPU driver misbehaves); WebGPU cannot be forced where there is none.
 */
import type { TjsDevice } from './tjs-layout.ts';

/** What the page's WebGPU offers: absent (no `navigator.gpu`, or no adapter), or an adapter with its f16 support. */
export interface WebGpuProbe {
  available: boolean;
  shaderF16: boolean;
}

/** 'auto' picks; 'wasm' forces the CPU. */
export type TjsDeviceChoice = 'auto' | TjsDevice;

export class TjsBackendError extends Error {
  override name = 'TjsBackendError';
}

/** The device transformers.js gets: WebGPU where present and not declined, WASM otherwise. */
export function chooseDevice(probe: WebGpuProbe, choice: TjsDeviceChoice = 'auto'): TjsDevice {
  if (choice === 'wasm') return 'wasm';
  if (choice === 'webgpu' && !probe.available) throw new TjsBackendError('WebGPU was asked for, but this browser gives no WebGPU adapter: choose Automatic or WASM.');
  return probe.available ? 'webgpu' : 'wasm';
}

interface GpuLike {
  requestAdapter(): Promise<{ features: { has(name: string): boolean } } | null>;
}

/** Asks the browser (page or worker) for a WebGPU adapter; never throws. */
export async function probeWebGpu(nav: { gpu?: unknown } | undefined = globalThis.navigator): Promise<WebGpuProbe> {
  const gpu = nav?.gpu as GpuLike | undefined;
  if (!gpu) return { available: false, shaderF16: false };
  try {
    const adapter = await gpu.requestAdapter();
    return adapter ? { available: true, shaderF16: adapter.features.has('shader-f16') } : { available: false, shaderF16: false };
  } catch {
    return { available: false, shaderF16: false };
  }
}
