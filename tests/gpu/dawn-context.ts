/**
 * A Dawn device for one test file (Node; SwiftShader here): acquired before its tests, destroyed after them, with the
 * adapter printed beside `note` (a file's drawn seed, so a failure can be replayed).
 */
import { afterAll, beforeAll } from 'vitest';
import { acquireGpu, type GpuContext } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';

/** Registers the hooks; the returned getter gives the device inside a test. */
export function useDawnContext(label: string, note: string): () => GpuContext {
  let ctx: GpuContext | null = null;
  beforeAll(async () => {
    const { gpu, adapter, driver } = await nodeGpu();
    ctx = await acquireGpu({ gpu, label });
    console.log(`${note} (adapter: ${adapter} via ${driver})`);
  });
  afterAll(() => ctx?.destroy());
  return () => {
    if (!ctx) throw new Error(`${label}: the Dawn device was not acquired`);
    return ctx;
  };
}
