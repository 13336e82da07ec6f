/**
 * The GPU test harness: a page script (bundled by e2e/gpu/harness.ts with Vite's build API and served on the app's
 * origin) that acquires one device and exposes `window.gpuHarness`, so Playwright specs can run each check of the
 * registry (registry.ts, the list the Node suite runs too) in real Chromium (SwiftShader in CI) and read back plain
 * JSON results.
 */
import { acquireGpu, type GpuContext } from '../gpu/device.ts';
import type { MatmulVariant } from '../gpu/kernels/matmul.ts';
import { timeMatmul } from './bench.ts';
import { checkDevice } from './checks/device.ts';
import { engineLogits, type EngineLogits } from './engine-logits.ts';
import { adapterLabel, CHECK_NAMES, runCheck, type CheckReport } from './registry.ts';

export type { Check, CheckReport } from './registry.ts';

let shared: Promise<GpuContext> | null = null;

function context(): Promise<GpuContext> {
  shared ??= acquireGpu({ label: 'gpu-harness' });
  return shared;
}

const harness = {
  checks: CHECK_NAMES,
  /** Runs the registered check `name` with `seed` on the page's shared device. */
  async run(name: string, seed = 1): Promise<CheckReport> {
    return runCheck(await context(), name, seed);
  },
  /** Times one matmul shape and variant (see bench.ts). */
  async timeMatmul(M: number, N: number, K: number, variant: MatmulVariant, reps = 3) {
    return timeMatmul(await context(), M, N, K, variant, reps);
  },
  /** The engine's logits on the seed's tiny model (engine-logits.ts), to compare with Node's. */
  async engineLogits(seed: number): Promise<EngineLogits> {
    const ctx = await context();
    return engineLogits(ctx, seed, adapterLabel(ctx));
  },
  /** Device acquisition, limits, typed errors and loss/recovery (its own devices, not the shared one). */
  device: () => checkDevice(navigator.gpu),
};

declare global {
  interface Window {
    gpuHarness?: typeof harness;
  }
}

window.gpuHarness = harness;
document.title = 'gpu-harness ready';
