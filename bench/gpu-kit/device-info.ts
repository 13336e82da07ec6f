/**
 * The GPU kit's device phase: the adapter as Dawn sees it (info, every limit, every feature, and the three that
 * decide kernel paths — `subgroups` (matmul v3), `shader-f16` (matmul v2h), `timestamp-query` (per-kernel times)),
 * and a copy bandwidth measured through WebGPU itself: the denominator of the decode roofline (full.ts).
 *
 * Bandwidth: `copyBufferToBuffer` of `bytes` between two storage buffers, repeated `repeats` times in one submit after
 * one warm-up submit; counted as bytes read + bytes written per second (as a device-to-device copy is usually
 * quoted). Wall time around `onSubmittedWorkDone`, so the figure is a lower bound on the memory's speed.
 */
import type { GpuContext } from '../../src/gpu/device.ts';
import { BufferUsage } from '../../src/gpu/flags.ts';

export const KEY_FEATURES = ['subgroups', 'shader-f16', 'timestamp-query'] as const;

export interface DeviceReport {
  info: { vendor: string; architecture: string; device: string; description: string };
  /** Dawn's driver choice (src/gpu/node/node-gpu.ts) and the adapter line it printed. */
  driver: string;
  features: string[];
  keyFeatures: Record<(typeof KEY_FEATURES)[number], boolean>;
  limits: Record<string, number>;
  /** Features the engine's device was granted (device.ts requests shader-f16 and subgroups when offered). */
  engineFeatures: { shaderF16: boolean; subgroups: boolean };
  copy: { bytes: number; repeats: number; seconds: number; bytesPerSecond: number };
}

/** Every numeric limit of a GPUSupportedLimits (its properties live on the prototype, so Object.keys misses them). */
export function limitsRecord(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  for (let proto: object | null = limits; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = (limits as unknown as Record<string, unknown>)[name];
      if (typeof value === 'number' && !(name in out)) out[name] = value;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

export async function measureCopyBandwidth(ctx: GpuContext, bytes: number, repeats: number): Promise<DeviceReport['copy']> {
  const device = ctx.device;
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
  // Created here and destroyed below.
  const src = device.createBuffer({ label: 'gpu-kit.copy-src', size: bytes, usage });
  const dst = device.createBuffer({ label: 'gpu-kit.copy-dst', size: bytes, usage });
  try {
    const submit = (n: number) => {
      const encoder = device.createCommandEncoder({ label: 'gpu-kit.copy' });
      for (let i = 0; i < n; i++) encoder.copyBufferToBuffer(i % 2 === 0 ? src : dst, 0, i % 2 === 0 ? dst : src, 0, bytes);
      device.queue.submit([encoder.finish()]);
      return device.queue.onSubmittedWorkDone();
    };
    await submit(1);
    const t0 = performance.now();
    await submit(repeats);
    const seconds = (performance.now() - t0) / 1000;
    return { bytes, repeats, seconds, bytesPerSecond: (2 * bytes * repeats) / seconds };
  } finally {
    src.destroy();
    dst.destroy();
  }
}

export async function deviceReport(gpu: GPU, ctx: GpuContext, driver: string, copyBytes: number): Promise<DeviceReport> {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('gpu-kit: the adapter went away between the engine device and the report');
  const features = [...adapter.features].map(String).sort();
  const info = adapter.info;
  return {
    info: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
    driver,
    features,
    keyFeatures: { subgroups: features.includes('subgroups'), 'shader-f16': features.includes('shader-f16'), 'timestamp-query': features.includes('timestamp-query') },
    limits: limitsRecord(adapter.limits),
    engineFeatures: { shaderF16: ctx.features.shaderF16, subgroups: ctx.features.subgroups },
    // Within the device's maxBufferSize (the engine's device asks for the adapter's maxima), a multiple of 4 bytes.
    copy: await measureCopyBandwidth(ctx, Math.floor(Math.min(copyBytes, ctx.limits.maxBufferSize) / 4) * 4, 8),
  };
}
