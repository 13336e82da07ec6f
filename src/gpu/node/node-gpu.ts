/**
 * WebGPU in Node: the `GPU` object of Dawn's Node binding (the npm package `webgpu`, the WebGPU implementation
 * inside Chrome), for the CLI, the benchmarks and the Node run of the GPU checks. The engine runs on it unchanged:
 * pass `gpu` to `acquireGpu({ gpu })`.
 *
 * Which driver: Dawn first looks for the machine's own (Vulkan on Linux, Metal on macOS, D3D12 on Windows). When it
 * finds no usable adapter and the user set no `VK_ICD_FILENAMES`, the provider points the Vulkan loader at a
 * SwiftShader ICD (Chromium ships one; a CPU implementation, f32 only, ~1 GFLOP/s) and asks again. The Vulkan loader
 * reads `VK_ICD_FILENAMES` each time Dawn creates an instance, so setting it in this process is enough.
 *
 * Environment:
 * - `VK_ICD_FILENAMES`: set by the user, it is honoured as it is and nothing falls back.
 * - `SQLENV_SWIFTSHADER_ICD`: the SwiftShader ICD file to fall back to (default: the first of SWIFTSHADER_ICDS found).
 * - `SQLENV_GPU=swiftshader` skips the system's drivers (reproducible CPU figures on a machine with a GPU);
 *   `SQLENV_GPU=system` never falls back.
 * - `XDG_RUNTIME_DIR` is set to the temporary folder when missing (the Vulkan loader warns without it).
 *
 * When SwiftShader can follow, the system's drivers are first asked in a child process (system-probe.ts), so that
 * Dawn's native warnings about a driver it rejects stay off the terminal; they appear in the error when no driver
 * gives an adapter.
 *
 * This module imports Node built-ins and a native addon: only Node entry points (src/cli, bench, scripts, tests)
 * import it, never code that the page bundles.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { GpuUnavailableError } from '../errors.ts';
import { probeSystemAdapter } from './system-probe.ts';

/** Where SwiftShader's Vulkan ICD usually is (Debian's chromium first). */
export const SWIFTSHADER_ICDS = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib/chromium-browser/vk_swiftshader_icd.json', '/opt/google/chrome/vk_swiftshader_icd.json'];

export type NodeGpuDriver = 'system' | 'swiftshader' | 'user-icd';

export interface NodeGpu {
  gpu: GPU;
  /** How the adapter was found: the machine's drivers, the SwiftShader fallback, or the user's VK_ICD_FILENAMES. */
  driver: NodeGpuDriver;
  /** The ICD file in use when the provider or the user chose one. */
  icd: string | null;
  /** The adapter Dawn offers, as "vendor/architecture (description)". */
  adapter: string;
}

type Env = Record<string, string | undefined>;

interface DawnModule {
  create(this: void, flags: string[]): GPU;
  globals: object;
}

let dawn: Promise<DawnModule> | null = null;

function loadDawn(): Promise<DawnModule> {
  dawn ??= import('webgpu').then((m) => m as unknown as DawnModule);
  return dawn;
}

/** The SwiftShader ICD to fall back to: SQLENV_SWIFTSHADER_ICD, else the first known path that exists. */
export function findSwiftShaderIcd(env: Env = process.env, exists: (path: string) => boolean = existsSync): string | null {
  const chosen = env.SQLENV_SWIFTSHADER_ICD;
  if (chosen) return exists(chosen) ? chosen : null;
  return SWIFTSHADER_ICDS.find((path) => exists(path)) ?? null;
}

/** The order in which the provider tries drivers, from the environment alone (pure, for tests). */
export function driverPlan(env: Env, swiftShaderIcd: string | null): { driver: NodeGpuDriver; icd: string | null }[] {
  if (env.VK_ICD_FILENAMES) return [{ driver: 'user-icd', icd: env.VK_ICD_FILENAMES }];
  const fallback = swiftShaderIcd ? [{ driver: 'swiftshader' as const, icd: swiftShaderIcd }] : [];
  if (env.SQLENV_GPU === 'swiftshader') return fallback;
  if (env.SQLENV_GPU === 'system') return [{ driver: 'system', icd: null }];
  return [{ driver: 'system', icd: null }, ...fallback];
}

function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  const name = [info.vendor, info.architecture].filter(Boolean).join('/') || 'unknown';
  return info.description ? `${name} (${info.description})` : name;
}

let cached: Promise<NodeGpu> | null = null;

/**
 * The process's `GPU` (made once; later calls share it). Throws GpuUnavailableError('node-no-adapter') naming what
 * was tried when no driver gives an adapter.
 */
export function nodeGpu(env: Env = process.env): Promise<NodeGpu> {
  cached ??= createNodeGpu(env).catch((error: unknown) => {
    cached = null;
    throw error;
  });
  return cached;
}

async function createNodeGpu(env: Env): Promise<NodeGpu> {
  const { create, globals } = await loadDawn();
  // GPUBufferUsage and friends, for code that reads them as globals (the engine itself uses src/gpu/flags.ts).
  for (const [name, value] of Object.entries(globals)) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  if (!env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = tmpdir();
  const plan = driverPlan(env, findSwiftShaderIcd(env));
  const tried: string[] = [];
  for (const [index, { driver, icd }] of plan.entries()) {
    if (driver === 'system' && index < plan.length - 1) {
      // A fallback follows: ask in a child first, so that a driver Dawn rejects does not print Dawn's native
      // warnings on every run (src/gpu/node/system-probe.ts). Its reasons go into the error if nothing works.
      const probe = await probeSystemAdapter();
      if (probe && !probe.found) {
        tried.push(probe.messages.length > 0 ? `system (${probe.messages.join('; ')})` : 'system');
        continue;
      }
    }
    if (driver === 'swiftshader' && icd) process.env.VK_ICD_FILENAMES = icd;
    const gpu = create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (adapter) return { gpu, driver, icd, adapter: describeAdapter(adapter) };
    tried.push(icd ? `${driver} (${icd})` : driver);
    if (driver === 'swiftshader') delete process.env.VK_ICD_FILENAMES;
  }
  if (plan.length === 0 || !plan.some((p) => p.driver === 'swiftshader' || p.driver === 'user-icd')) {
    tried.push(`no SwiftShader ICD found (looked for ${env.SQLENV_SWIFTSHADER_ICD ?? SWIFTSHADER_ICDS.join(', ')})`);
  }
  throw new GpuUnavailableError('node-no-adapter', `Tried: ${tried.join('; ')}.`);
}
