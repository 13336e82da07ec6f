/**
 * Device acquisition and the device's life: one `GpuContext` per engine.
 *
 * - `acquireGpu()` asks `navigator.gpu` (or an injected `GPU`, for tests) for an adapter, checks the adapter's limits
 *   against what the kernels need plus what the caller's memory plan needs, and requests a device with those limits
 *   set EXPLICITLY to the adapter's maxima (a device otherwise gets the spec's small defaults, e.g. 128 MiB bindings).
 * - `shader-f16` is requested when the adapter has it and never required (SwiftShader lacks it); kernels read
 *   `ctx.features.shaderF16` to pick a variant. Weights are packed f16 either way (`unpack2x16float`).
 * - `subgroups` likewise: requested when the adapter has it (SwiftShader does), read as `ctx.features.subgroups`.
 * - Device loss (`device.lost`) moves the context to state 'lost' and notifies `onLost` listeners; `recover()` gets a
 *   fresh device with the same options and notifies `onRecovered`, after which owners re-create their buffers and
 *   pipelines (nothing from the old device survives). `destroy()` is the intentional end and is not a loss.
 */
import { GpuDeviceLostError, GpuLimitError, GpuUnavailableError } from './errors.ts';

/** Limits the engine reads; each is requested at the adapter's maximum. */
export const REQUESTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
] as const;

export type EngineLimitName = (typeof REQUESTED_LIMITS)[number];
export type EngineLimits = Record<EngineLimitName, number>;

/**
 * What every kernel of this engine needs at least (the WebGPU defaults, which every adapter offers, except that the
 * binding sizes are what a tiny model needs; a real model's plan adds its own needs through `need`).
 */
export const ENGINE_MIN_LIMITS: EngineLimits = {
  maxStorageBufferBindingSize: 16 * 1024 * 1024,
  maxBufferSize: 16 * 1024 * 1024,
  maxStorageBuffersPerShaderStage: 8,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 16,
  maxComputeWorkgroupsPerDimension: 65535,
};

export interface AcquireOptions {
  /** Extra minimum limits (from a memory plan: its largest buffer chunk, for instance). */
  need?: Partial<EngineLimits>;
  powerPreference?: GPUPowerPreference;
  /** Use this `GPU` instead of `navigator.gpu` (tests inject fakes). */
  gpu?: GPU;
  /** Never request `shader-f16` even when present (to test the f32-only path on a GPU that has it). */
  disableShaderF16?: boolean;
  /** Never request `subgroups` even when present (to test the path without them). */
  disableSubgroups?: boolean;
  label?: string;
}

export interface GpuFeatures {
  /** `shader-f16` was requested and granted (kernels may declare `enable f16;`). */
  shaderF16: boolean;
  /** `subgroups` was requested and granted (kernels may declare `enable subgroups;`). */
  subgroups: boolean;
  /** Every feature the adapter offers (requested or not), for diagnostics. */
  adapterFeatures: string[];
}

export type GpuState = 'ready' | 'lost' | 'destroyed';

function findGpu(options: AcquireOptions): GPU {
  if (options.gpu) return options.gpu;
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  if (!nav || !('gpu' in nav) || !nav.gpu) {
    const secure = (globalThis as { isSecureContext?: boolean }).isSecureContext;
    throw new GpuUnavailableError(secure === false ? 'insecure-context' : 'no-webgpu');
  }
  return nav.gpu;
}

/** Checks the adapter's limits against the engine's and the caller's needs; the first shortfall is thrown. */
export function checkLimits(adapterLimits: GPUSupportedLimits, need: Partial<EngineLimits> = {}): EngineLimits {
  const chosen = {} as EngineLimits;
  for (const name of REQUESTED_LIMITS) {
    const available = adapterLimits[name];
    const required = Math.max(ENGINE_MIN_LIMITS[name], need[name] ?? 0);
    if (available < required) {
      const suggestion =
        name === 'maxBufferSize' || name === 'maxStorageBufferBindingSize'
          ? 'Choose a smaller model, a shorter context or a smaller batch (the memory plan splits weights, not activations).'
          : 'This GPU cannot run the engine; try another browser or GPU.';
      throw new GpuLimitError(name, required, available, suggestion);
    }
    chosen[name] = available;
  }
  return chosen;
}

type Listener = (ctx: GpuContext) => void;

/** The engine's device and its state. Owners of GPU objects subscribe to loss and recovery. */
export class GpuContext {
  device: GPUDevice;
  adapterInfo: GPUAdapterInfo;
  features: GpuFeatures;
  limits: EngineLimits;
  state: GpuState = 'ready';
  /** Set while `state === 'lost'`. */
  lostError: GpuDeviceLostError | null = null;
  /** The last error no error scope caught (validation or out-of-memory), for diagnostics. */
  lastUncapturedError: string | null = null;
  private readonly options: AcquireOptions;
  private readonly lostListeners = new Set<Listener>();
  private readonly recoveredListeners = new Set<Listener>();
  private destroying = false;

  private constructor(options: AcquireOptions, parts: Acquired) {
    this.options = options;
    this.device = parts.device;
    this.adapterInfo = parts.adapterInfo;
    this.features = parts.features;
    this.limits = parts.limits;
    this.watch(parts.device);
  }

  static async acquire(options: AcquireOptions = {}): Promise<GpuContext> {
    return new GpuContext(options, await requestParts(options));
  }

  /** Throws the loss (or a destroyed-state error) unless the device is usable. */
  assertReady(): void {
    if (this.state === 'lost') throw this.lostError ?? new GpuDeviceLostError('unknown', '');
    if (this.state === 'destroyed') throw new GpuDeviceLostError('destroyed', 'the engine was shut down');
  }

  onLost(listener: Listener): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  onRecovered(listener: Listener): () => void {
    this.recoveredListeners.add(listener);
    return () => this.recoveredListeners.delete(listener);
  }

  /** After a loss: a new device with the same options. Buffers and pipelines of the old one are gone. */
  async recover(): Promise<void> {
    if (this.state === 'destroyed') throw new GpuDeviceLostError('destroyed', 'the engine was shut down; acquire a new context');
    const parts = await requestParts(this.options);
    this.device = parts.device;
    this.adapterInfo = parts.adapterInfo;
    this.features = parts.features;
    this.limits = parts.limits;
    this.state = 'ready';
    this.lostError = null;
    this.watch(parts.device);
    for (const listener of this.recoveredListeners) listener(this);
  }

  /** The intentional end: destroys the device (and with it every buffer on it). */
  destroy(): void {
    this.destroying = true;
    this.state = 'destroyed';
    this.device.destroy();
  }

  private watch(device: GPUDevice): void {
    device.onuncapturederror = (event) => {
      this.lastUncapturedError = event.error.message;
    };
    void device.lost.then((info) => {
      if (this.device !== device || this.destroying) return;
      this.state = 'lost';
      this.lostError = new GpuDeviceLostError(info.reason, info.message);
      for (const listener of this.lostListeners) listener(this);
    });
  }
}

interface Acquired {
  device: GPUDevice;
  adapterInfo: GPUAdapterInfo;
  features: GpuFeatures;
  limits: EngineLimits;
}

async function requestParts(options: AcquireOptions): Promise<Acquired> {
  const gpu = findGpu(options);
  const adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
  if (!adapter) throw new GpuUnavailableError('no-adapter');
  const limits = checkLimits(adapter.limits, options.need);
  const shaderF16 = adapter.features.has('shader-f16') && !options.disableShaderF16;
  const subgroups = adapter.features.has('subgroups') && !options.disableSubgroups;
  const requiredFeatures = [...(shaderF16 ? ['shader-f16'] : []), ...(subgroups ? ['subgroups'] : [])] as GPUFeatureName[];
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ label: options.label ?? 'sqlenv-engine', requiredFeatures, requiredLimits: { ...limits } });
  } catch (error) {
    throw new GpuUnavailableError('request-device-failed', error instanceof Error ? error.message : String(error));
  }
  return {
    device,
    adapterInfo: adapter.info,
    features: { shaderF16, subgroups, adapterFeatures: [...adapter.features].sort() },
    limits,
  };
}

/** Shorthand for `GpuContext.acquire`. */
export function acquireGpu(options: AcquireOptions = {}): Promise<GpuContext> {
  return GpuContext.acquire(options);
}
