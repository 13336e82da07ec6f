/**
 * Per-kernel GPU time through `timestamp-query`, for the benches: `installDispatchTimer(device)` wraps the device's
 * `createCommandEncoder` so that, while the timer is `enabled`, every compute dispatch runs in a compute pass of its
 * own whose beginning and end write GPU timestamps; at `finish()` the encoder resolves them into a buffer that is read
 * back after the next `queue.submit` (asynchronously: nothing waits for it until `drain()`). The duration of dispatch i is
 * end − begin of its pass, summed per kernel (the pipeline's label: `getKernel` labels it with the kernel's name).
 *
 * How to think about it: this measures what each kernel costs the GPU, not what the CPU spends recording and
 * submitting, nor the gaps between dispatches; `gpuSeconds / wall seconds` of a phase says how busy the GPU was.
 * One pass per dispatch adds pass boundaries, so a profiled phase runs somewhat slower than an unprofiled one: the
 * benches profile a step of its own and leave it out of their means.
 *
 * The device must have been created with the 'timestamp-query' feature (`requestTimestampFeature` patches
 * `GPUAdapter.prototype.requestDevice` to ask for it where the adapter offers it; the engine's device.ts asks only for
 * what it computes with). The wrapped pass supports what the engine's Recorder calls (setPipeline, setBindGroup,
 * dispatchWorkgroups, end); anything else throws, so a new use cannot be mis-timed silently. Copies are not timed.
 * Buffers: the timer creates a query set and two buffers per profiled encoder and destroys them once read.
 */
import { BufferUsage, MapMode } from '../../src/gpu/flags.ts';

/** Accumulated GPU time of one kernel. */
export interface KernelTime {
  kernel: string;
  dispatches: number;
  /** Sum of the dispatches' GPU durations, seconds. */
  seconds: number;
}

export interface DispatchTimer {
  /** While true, newly created command encoders are profiled. */
  enabled: boolean;
  /** Waits for every pending readback, then returns the per-kernel times since the last `reset`, slowest first. */
  drain(): Promise<KernelTime[]>;
  /** Forgets the accumulated times. */
  reset(): void;
  /** Command encoders profiled and dispatches timed since the last reset. */
  readonly counts: { encoders: number; dispatches: number };
}

/** What a profiled stretch of work cost the GPU, per kernel, beside its wall time. */
export interface KernelProfile {
  /** Steps profiled (decode steps, or training steps). */
  steps: number;
  /** Wall time of those steps, profiled (one compute pass per dispatch makes it somewhat slower than unprofiled). */
  wallSeconds: number;
  /** Dispatches timed: each one's pass wrote its own timestamps. */
  dispatches: number;
  /** Sum of the dispatches' GPU durations; gpuSeconds / wallSeconds is how busy the GPU was. */
  gpuSeconds: number;
  /** Slowest first. */
  kernels: KernelTime[];
}

/** Runs `work` with the timer on and returns the per-kernel profile of it (the timer is reset first). */
export async function profileWork(timer: DispatchTimer, steps: number, work: () => Promise<void>): Promise<KernelProfile> {
  timer.reset();
  timer.enabled = true;
  const t0 = performance.now();
  try {
    await work();
  } finally {
    timer.enabled = false;
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const kernels = await timer.drain();
  return { steps, wallSeconds, dispatches: timer.counts.dispatches, gpuSeconds: kernels.reduce((a, k) => a + k.seconds, 0), kernels };
}

/**
 * `gpu` with every adapter it gives asking for 'timestamp-query' in `requestDevice` where the adapter offers it: for
 * Node, where `GPUAdapter` is no global that `requestTimestampFeature` could patch (the GPU kit's model phase).
 */
export function withTimestampFeature(gpu: GPU): GPU {
  const requestAdapter = async (options?: GPURequestAdapterOptions): Promise<GPUAdapter | null> => {
    const adapter = await gpu.requestAdapter(options);
    if (!adapter || !adapter.features.has('timestamp-query')) return adapter;
    const requestDevice = adapter.requestDevice.bind(adapter);
    return overriding(adapter, {
      requestDevice: (descriptor?: GPUDeviceDescriptor) => {
        const features = [...(descriptor?.requiredFeatures ?? [])];
        if (!features.includes('timestamp-query')) features.push('timestamp-query');
        return requestDevice({ ...descriptor, requiredFeatures: features });
      },
    });
  };
  return overriding(gpu, { requestAdapter });
}

/**
 * `target` with the members of `overrides` in place of its own; every other member is the target's, methods bound to
 * it (native WebGPU objects refuse a proxy as `this`).
 */
function overriding<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value: unknown = Reflect.get(t, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** The most timestamps one query set holds (WebGPU's limit on a query set's count). */
const QUERY_CAPACITY = 4096;

/**
 * Asks for 'timestamp-query' in every later `requestDevice` whose adapter offers it (bench pages only: call it before
 * the engine acquires its device). Returns false where `GPUAdapter` is not a global (then nothing is patched).
 */
export function requestTimestampFeature(): boolean {
  if (typeof GPUAdapter === 'undefined') return false;
  const proto = GPUAdapter.prototype;
  // Reflect.get: the original method itself, called below with the adapter as `this`.
  const original = Reflect.get(proto, 'requestDevice');
  proto.requestDevice = function (this: GPUAdapter, descriptor?: GPUDeviceDescriptor) {
    const features = [...(descriptor?.requiredFeatures ?? [])];
    if (this.features.has('timestamp-query') && !features.includes('timestamp-query')) features.push('timestamp-query');
    return original.call(this, { ...descriptor, requiredFeatures: features });
  };
  return true;
}

interface Pending {
  labels: string[];
  querySet: GPUQuerySet;
  resolve: GPUBuffer;
  read: GPUBuffer;
}

/** Installs the timer on `device` (once per device; a second call returns the same timer), or null without timestamps. */
export function installDispatchTimer(device: GPUDevice): DispatchTimer | null {
  if (!device.features.has('timestamp-query')) return null;
  const known = installed.get(device);
  if (known) return known;
  const times = new Map<string, KernelTime>();
  const reads: Promise<void>[] = [];
  const counts = { encoders: 0, dispatches: 0 };
  /** Resolved in a finished command buffer, read back after the next submit (a buffer must not be mapped before). */
  const finished: Pending[] = [];
  const original = device.createCommandEncoder.bind(device);
  const submit = device.queue.submit.bind(device.queue);
  device.queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
    submit(buffers);
    for (const p of finished.splice(0)) reads.push(collect(p));
  };

  const collect = async (p: Pending): Promise<void> => {
    await p.read.mapAsync(MapMode.READ);
    const stamps = new BigUint64Array(p.read.getMappedRange().slice(0));
    p.read.unmap();
    p.labels.forEach((kernel, i) => {
      const t = times.get(kernel) ?? { kernel, dispatches: 0, seconds: 0 };
      const ns = stamps[2 * i + 1] - stamps[2 * i];
      t.seconds += ns > 0n ? Number(ns) * 1e-9 : 0;
      t.dispatches++;
      times.set(kernel, t);
    });
    for (const b of [p.querySet, p.resolve, p.read]) b.destroy();
  };

  const timer: DispatchTimer = {
    enabled: false,
    counts,
    async drain() {
      while (reads.length > 0) await Promise.all(reads.splice(0));
      return [...times.values()].sort((a, b) => b.seconds - a.seconds);
    },
    reset() {
      times.clear();
      counts.encoders = 0;
      counts.dispatches = 0;
    },
  };

  device.createCommandEncoder = (descriptor?: GPUCommandEncoderDescriptor): GPUCommandEncoder => {
    const encoder = original(descriptor);
    if (!timer.enabled) return encoder;
    counts.encoders++;
    const sets: Pending[] = [];
    const slot = (label: string): { querySet: GPUQuerySet; index: number } => {
      let p = sets[sets.length - 1];
      if (!p || p.labels.length * 2 >= QUERY_CAPACITY) {
        const bytes = QUERY_CAPACITY * 8;
        p = {
          labels: [],
          querySet: device.createQuerySet({ type: 'timestamp', count: QUERY_CAPACITY }),
          resolve: device.createBuffer({ size: bytes, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC }),
          read: device.createBuffer({ size: bytes, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST }),
        };
        sets.push(p);
      }
      p.labels.push(label);
      counts.dispatches++;
      return { querySet: p.querySet, index: 2 * (p.labels.length - 1) };
    };
    const beginComputePass = (passDescriptor?: GPUComputePassDescriptor): GPUComputePassEncoder => {
      let pipeline: GPUComputePipeline | null = null;
      const groups = new Map<number, GPUBindGroup>();
      const unsupported = (what: string) => () => {
        throw new Error(`installDispatchTimer: the profiled compute pass does not support ${what}`);
      };
      const pass = {
        label: passDescriptor?.label ?? '',
        setPipeline(p: GPUComputePipeline) {
          pipeline = p;
        },
        setBindGroup(index: number, group: GPUBindGroup | null) {
          if (group) groups.set(index, group);
        },
        dispatchWorkgroups(x: number, y = 1, z = 1) {
          if (!pipeline) throw new Error('installDispatchTimer: dispatch without a pipeline');
          const { querySet, index } = slot(pipeline.label);
          const real = encoder.beginComputePass({ label: passDescriptor?.label, timestampWrites: { querySet, beginningOfPassWriteIndex: index, endOfPassWriteIndex: index + 1 } });
          real.setPipeline(pipeline);
          for (const [i, g] of groups) real.setBindGroup(i, g);
          real.dispatchWorkgroups(x, y, z);
          real.end();
        },
        end() {},
        dispatchWorkgroupsIndirect: unsupported('dispatchWorkgroupsIndirect'),
        pushDebugGroup: unsupported('pushDebugGroup'),
        popDebugGroup: unsupported('popDebugGroup'),
        insertDebugMarker: unsupported('insertDebugMarker'),
      };
      return pass as unknown as GPUComputePassEncoder;
    };
    const finish = (finishDescriptor?: GPUCommandBufferDescriptor): GPUCommandBuffer => {
      for (const p of sets) {
        const n = p.labels.length * 2;
        encoder.resolveQuerySet(p.querySet, 0, n, p.resolve, 0);
        encoder.copyBufferToBuffer(p.resolve, 0, p.read, 0, n * 8);
        finished.push(p);
      }
      return encoder.finish(finishDescriptor);
    };
    return overriding(encoder, { beginComputePass, finish });
  };
  installed.set(device, timer);
  return timer;
}

const installed = new WeakMap<GPUDevice, DispatchTimer>();
