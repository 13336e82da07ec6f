/**
 * Device checks, run in the browser (on `navigator.gpu`) and in Node (on Dawn's `GPU`, src/gpu/node/node-gpu.ts):
 * limits are requested at the adapter's maxima, a too-small adapter and a missing adapter give typed errors, a lost
 * device moves the context to 'lost' and `recover()` gives a working device, and an intentional `destroy()` is not
 * reported as a loss. Each case acquires (and destroys) its own device on the `gpu` it is given.
 */
import { createStorageWith, readBuffer } from '../../gpu/buffers.ts';
import { REQUESTED_LIMITS, acquireGpu } from '../../gpu/device.ts';
import { GpuDeviceLostError, GpuLimitError, GpuUnavailableError } from '../../gpu/errors.ts';

export interface DeviceReport {
  limitsMatchAdapter: boolean;
  limits: Record<string, number>;
  shaderF16: boolean;
  tooSmall: { name: string; limit: string; message: string } | null;
  noAdapter: { name: string; reason: string; message: string } | null;
  lost: { state: string; listenerCalled: boolean; assertError: string; reason: string } | null;
  recovered: { state: string; listenerCalled: boolean; roundTrip: number[] } | null;
  destroyed: { state: string; lostListenerCalled: boolean } | null;
}

/** What a correct device layer reports, for `expect(report).toMatchObject(DEVICE_EXPECTED)` in Vitest and Playwright. */
export const DEVICE_EXPECTED = {
  limitsMatchAdapter: true,
  tooSmall: { name: 'GpuLimitError', limit: 'maxStorageBufferBindingSize' },
  noAdapter: { name: 'GpuUnavailableError', reason: 'no-adapter' },
  lost: { state: 'lost', listenerCalled: true, assertError: 'GpuDeviceLostError', reason: 'destroyed' },
  recovered: { state: 'ready', listenerCalled: true, roundTrip: [1.5, -2, 3.25] },
  destroyed: { state: 'destroyed', lostListenerCalled: false },
} as const;

export async function checkDevice(gpu: GPU): Promise<DeviceReport> {
  const report: DeviceReport = { limitsMatchAdapter: false, limits: {}, shaderF16: false, tooSmall: null, noAdapter: null, lost: null, recovered: null, destroyed: null };

  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  const ctx = await acquireGpu({ gpu, label: 'device-check' });
  report.limitsMatchAdapter = REQUESTED_LIMITS.every((name) => ctx.device.limits[name] === adapter?.limits[name]);
  for (const name of REQUESTED_LIMITS) report.limits[name] = ctx.device.limits[name];
  report.shaderF16 = ctx.features.shaderF16;

  try {
    await acquireGpu({ gpu, need: { maxStorageBufferBindingSize: 2 ** 50 } });
  } catch (error) {
    if (error instanceof GpuLimitError) report.tooSmall = { name: error.name, limit: error.limit, message: error.message };
  }

  const noAdapterGpu = { requestAdapter: () => Promise.resolve(null) } as unknown as GPU;
  try {
    await acquireGpu({ gpu: noAdapterGpu });
  } catch (error) {
    if (error instanceof GpuUnavailableError) report.noAdapter = { name: error.name, reason: error.reason, message: error.message };
  }

  // Loss: destroy the device behind the context's back, as a driver reset would take it away.
  let lostCalled = false;
  let recoveredCalled = false;
  ctx.onLost(() => (lostCalled = true));
  ctx.onRecovered(() => (recoveredCalled = true));
  const lostDevice = ctx.device;
  lostDevice.destroy();
  await lostDevice.lost;
  await Promise.resolve();
  let assertError = '';
  try {
    ctx.assertReady();
  } catch (error) {
    if (error instanceof GpuDeviceLostError) assertError = error.name;
  }
  report.lost = { state: ctx.state, listenerCalled: lostCalled, assertError, reason: ctx.lostError?.reason ?? '' };

  await ctx.recover();
  const buffer = createStorageWith(ctx, 'roundtrip', new Float32Array([1.5, -2, 3.25]));
  const back = new Float32Array(await readBuffer(ctx, buffer, 12));
  buffer.destroy();
  report.recovered = { state: ctx.state, listenerCalled: recoveredCalled, roundTrip: [...back] };

  // The context's own `lost` handler was attached first, so it has run once this device's `lost` has settled.
  lostCalled = false;
  const destroyedDevice = ctx.device;
  ctx.destroy();
  await destroyedDevice.lost;
  await Promise.resolve();
  report.destroyed = { state: ctx.state, lostListenerCalled: lostCalled };
  return report;
}
