/**
 * Compiled kernels. A `KernelSpec` names one WGSL entry point and its bindings (number, kind, name); `getKernel`
 * compiles it once per device (cached), with an EXPLICIT bind-group layout built from the spec, so a binding the
 * entry point does not use is still part of its interface and a wrong buffer kind fails at bind time with the
 * binding's name. WGSL compile errors become a `GpuKernelError` with the compiler's messages and line numbers.
 *
 * Every kernel uses bind group 0 only; binding 0 is its uniform struct by convention.
 */
import type { GpuContext } from './device.ts';
import { GpuKernelError } from './errors.ts';
import { ShaderStage } from './flags.ts';

export type BindingKind = 'uniform' | 'storage' | 'read-only-storage';

export interface BindingSpec {
  binding: number;
  kind: BindingKind;
  /** The argument name a dispatch passes the buffer under. */
  name: string;
}

export interface KernelSpec {
  /** Op name + entry point, e.g. 'matmul.tiled'; names the kernel in errors and in dispatch counts. */
  name: string;
  /** Full WGSL source (helpers + uniform struct + op source, see `composeWgsl`). */
  code: string;
  entryPoint: string;
  bindings: readonly BindingSpec[];
}

export interface Kernel {
  readonly spec: KernelSpec;
  readonly device: GPUDevice;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
}

const caches = new WeakMap<GPUDevice, Map<string, Promise<Kernel>>>();

/** The compiled kernel for `spec` on the context's current device (compiled on first use). */
export function getKernel(ctx: GpuContext, spec: KernelSpec): Promise<Kernel> {
  ctx.assertReady();
  const device = ctx.device;
  let cache = caches.get(device);
  if (!cache) {
    cache = new Map<string, Promise<Kernel>>();
    caches.set(device, cache);
  }
  const key = `${spec.name}\n${spec.entryPoint}\n${spec.code}`;
  let kernel = cache.get(key);
  if (!kernel) {
    kernel = compile(device, spec);
    cache.set(key, kernel);
    kernel.catch(() => cache.delete(key));
  }
  return kernel;
}

async function compile(device: GPUDevice, spec: KernelSpec): Promise<Kernel> {
  const module = device.createShaderModule({ label: spec.name, code: spec.code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length > 0) {
    const lines = spec.code.split('\n');
    const text = errors.map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}\n    ${lines[m.lineNum - 1] ?? ''}`).join('\n');
    throw new GpuKernelError(spec.name, `WGSL does not compile:\n${text}`);
  }
  const layout = device.createBindGroupLayout({
    label: `${spec.name}.layout`,
    entries: spec.bindings.map((b) => ({
      binding: b.binding,
      visibility: ShaderStage.COMPUTE,
      buffer: { type: b.kind },
    })),
  });
  try {
    const pipeline = await device.createComputePipelineAsync({
      label: spec.name,
      layout: device.createPipelineLayout({ label: `${spec.name}.pipeline-layout`, bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: spec.entryPoint },
    });
    return { spec, device, pipeline, layout };
  } catch (error) {
    throw new GpuKernelError(spec.name, `pipeline creation failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Concatenates WGSL parts in order: shared helpers first, then uniform structs, then the op's source. */
export function composeWgsl(...parts: string[]): string {
  return parts.join('\n');
}
