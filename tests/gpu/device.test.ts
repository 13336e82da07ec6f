/**
 * Device acquisition with injected fakes (Node has no WebGPU): limits requested at the adapter's maxima, typed
 * errors for a missing API, a missing adapter and a too-small adapter, and the lost → recover → destroyed life.
 * The same paths run on real SwiftShader in e2e/gpu/device.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { ENGINE_MIN_LIMITS, REQUESTED_LIMITS, acquireGpu, checkLimits } from '../../src/gpu/device.ts';
import { GpuDeviceLostError, GpuLimitError, GpuUnavailableError } from '../../src/gpu/errors.ts';

type Limits = Record<string, number>;

const BIG: Limits = { ...ENGINE_MIN_LIMITS, maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 31, maxStorageBuffersPerShaderStage: 10, maxComputeWorkgroupStorageSize: 32768 };

function fakeGpu(limits: Limits | null, features: string[] = []) {
  const requests: GPUDeviceDescriptor[] = [];
  const devices: Array<{ resolveLost: (info: { reason: string; message: string }) => void; destroyed: boolean }> = [];
  const gpu = {
    requestAdapter: () =>
      Promise.resolve(
        limits && {
          limits,
          features: new Set(features),
          info: { vendor: 'fake', architecture: 'test' },
          requestDevice: (descriptor: GPUDeviceDescriptor) => {
            requests.push(descriptor);
            let resolveLost!: (info: { reason: string; message: string }) => void;
            const lost = new Promise((resolve) => (resolveLost = resolve));
            const record = { resolveLost, destroyed: false };
            devices.push(record);
            return Promise.resolve({
              lost,
              onuncapturederror: null,
              destroy() {
                record.destroyed = true;
                resolveLost({ reason: 'destroyed', message: '' });
              },
            });
          },
        },
      ),
  } as unknown as GPU;
  return { gpu, requests, devices };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('acquireGpu', () => {
  it('requests every engine limit at the adapter maximum, and shader-f16 only when present', async () => {
    const { gpu, requests } = fakeGpu(BIG);
    const ctx = await acquireGpu({ gpu });
    expect(requests[0].requiredLimits).toEqual(Object.fromEntries(REQUESTED_LIMITS.map((n) => [n, BIG[n]])));
    expect(requests[0].requiredFeatures).toEqual([]);
    expect(ctx.features.shaderF16).toBe(false);
    const withF16 = fakeGpu(BIG, ['shader-f16']);
    expect((await acquireGpu({ gpu: withF16.gpu })).features.shaderF16).toBe(true);
    expect(withF16.requests[0].requiredFeatures).toEqual(['shader-f16']);
    expect((await acquireGpu({ gpu: withF16.gpu, disableShaderF16: true })).features.shaderF16).toBe(false);
  });

  it('requests subgroups only when the adapter has them, alongside shader-f16', async () => {
    const without = fakeGpu(BIG, ['shader-f16']);
    expect((await acquireGpu({ gpu: without.gpu })).features.subgroups).toBe(false);
    expect(without.requests[0].requiredFeatures).toEqual(['shader-f16']);
    const both = fakeGpu(BIG, ['subgroups', 'shader-f16']);
    expect((await acquireGpu({ gpu: both.gpu })).features).toMatchObject({ subgroups: true, shaderF16: true });
    expect(both.requests[0].requiredFeatures).toEqual(['shader-f16', 'subgroups']);
    expect((await acquireGpu({ gpu: both.gpu, disableSubgroups: true })).features.subgroups).toBe(false);
    expect(both.requests[1].requiredFeatures).toEqual(['shader-f16']);
  });

  it('gives typed errors when there is no WebGPU or no adapter', async () => {
    await expect(acquireGpu({ gpu: fakeGpu(null).gpu })).rejects.toMatchObject({ name: 'GpuUnavailableError', reason: 'no-adapter' });
    await expect(acquireGpu()).rejects.toBeInstanceOf(GpuUnavailableError);
  });

  it('names the limit that is too small, for the engine and for a plan', async () => {
    const small = { ...BIG, maxComputeInvocationsPerWorkgroup: 128 };
    await expect(acquireGpu({ gpu: fakeGpu(small).gpu })).rejects.toMatchObject({ name: 'GpuLimitError', limit: 'maxComputeInvocationsPerWorkgroup', required: 256, available: 128 });
    expect(() => checkLimits(BIG as unknown as GPUSupportedLimits, { maxBufferSize: 2 ** 32 })).toThrow(GpuLimitError);
    expect(() => checkLimits(BIG as unknown as GPUSupportedLimits, { maxBufferSize: 2 ** 31 })).not.toThrow();
  });

  it('moves to lost on a device loss, recovers with a new device, and is not "lost" when destroyed on purpose', async () => {
    const { gpu, devices } = fakeGpu(BIG);
    const ctx = await acquireGpu({ gpu });
    const events: string[] = [];
    ctx.onLost(() => events.push('lost'));
    ctx.onRecovered(() => events.push('recovered'));
    devices[0].resolveLost({ reason: 'unknown', message: 'driver reset' });
    await flush();
    expect(ctx.state).toBe('lost');
    expect(() => ctx.assertReady()).toThrow(GpuDeviceLostError);
    expect(ctx.lostError?.message).toContain('driver reset');
    await ctx.recover();
    expect(ctx.state).toBe('ready');
    expect(devices.length).toBe(2);
    // A late loss report from the old device changes nothing.
    devices[0].resolveLost({ reason: 'unknown', message: 'again' });
    ctx.destroy();
    await flush();
    expect(ctx.state).toBe('destroyed');
    expect(devices[1].destroyed).toBe(true);
    expect(events).toEqual(['lost', 'recovered']);
    await expect(ctx.recover()).rejects.toBeInstanceOf(GpuDeviceLostError);
  });
});
