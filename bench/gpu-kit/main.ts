/**
 * The Node side of the GPU kit, one phase per process (the kit's run.sh starts each under its own time limit, so a
 * hang in one phase still leaves the others' figures):
 *
 *   node kit.mjs device|checks|full --mode gpu|reduced --work DIR
 *
 * Bundled by scripts/gpu-kit/build.ts into the kit's kit.mjs (with its WGSL inlined, Dawn's binding beside it); it
 * runs only bundled, since the check registry imports a `?url` asset (src/gpu-tests/toy-gpu.ts) that tsx's hooks do
 * not resolve. Each phase writes DIR/<phase>.json; `full` reads DIR/device.json for the copy bandwidth of its
 * roofline (measuring it again when the device phase did not run). The GPU is Dawn's (src/gpu/node/node-gpu.ts):
 * run.sh sets SQLENV_GPU=system for a real GPU (no silent fall back to SwiftShader) and SQLENV_GPU=swiftshader for
 * the reduced run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isSoftwareAdapter } from '../../src/gpu/adapter-probe.ts';
import { acquireGpu } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { requestedChecks, runKitChecks, type ChecksReport } from './checks.ts';
import { deviceReport, measureCopyBandwidth, type DeviceReport } from './device-info.ts';
import { withTimestampFeature } from '../train/gpu-timer.ts';
import { runFull } from './full.ts';
import { isKitMode, KIT_MODES, KIT_SETTINGS } from './settings.ts';

const PHASES = ['device', 'checks', 'full'] as const;
type Phase = (typeof PHASES)[number];
const USAGE = `usage: node kit.mjs ${PHASES.join('|')} --mode ${KIT_MODES.join('|')} --work DIR`;

class KitUsageError extends Error {
  override name = 'KitUsageError';
}

function parse(argv: string[]): { phase: Phase; mode: keyof typeof KIT_SETTINGS; work: string } {
  const { values, positionals } = parseArgs({ args: argv, options: { mode: { type: 'string' }, work: { type: 'string' } }, allowPositionals: true });
  const [phase, ...rest] = positionals;
  if (!PHASES.includes(phase as Phase) || rest.length > 0) throw new KitUsageError(`one phase of ${PHASES.join(', ')} is needed, not '${positionals.join(' ')}'`);
  const mode = values.mode ?? '';
  if (!isKitMode(mode)) throw new KitUsageError(`--mode must be one of ${KIT_MODES.join(', ')}, not '${mode}'`);
  if (!values.work) throw new KitUsageError('--work DIR is required (where the phase writes its JSON)');
  return { phase: phase as Phase, mode, work: values.work };
}

const began = performance.now();
/** A line of the kit's log, with the seconds since this phase began. */
const log = (line: string) => console.log(`[${((performance.now() - began) / 1000).toFixed(1).padStart(6)} s] ${line}`);

async function readBandwidth(work: string): Promise<number | null> {
  try {
    const device = JSON.parse(await readFile(`${work}/device.json`, 'utf8')) as DeviceReport;
    return device.copy.bytesPerSecond;
  } catch {
    return null;
  }
}

/** Runs the phase; its exit code: 0, or 3 when checks ran and some failed (run.sh reports either). */
async function main(): Promise<number> {
  const { phase, mode, work } = parse(process.argv.slice(2));
  const settings = KIT_SETTINGS[mode];
  const checks = phase === 'checks' ? (requestedChecks(process.env) ?? settings.checks) : settings.checks;
  const { gpu, driver, adapter } = await nodeGpu();
  log(`gpu-kit ${phase} (${mode}): ${adapter} via ${driver}`);
  // The model phase times its kernels where the adapter offers timestamps (the engine asks only for what it computes with).
  const ctx = await acquireGpu({ gpu: phase === 'full' ? withTimestampFeature(gpu) : gpu, label: `gpu-kit-${phase}` });
  try {
    // A GPU run on a CPU rasteriser (lavapipe, SwiftShader) would time out with figures that mean nothing.
    if (mode === 'gpu' && isSoftwareAdapter(ctx.adapterInfo)) {
      throw new Error(`the only adapter is a software one (${adapter}): the machine's Vulkan driver was not found; set VK_ICD_FILENAMES to its ICD file, or run with --reduced`);
    }
    let result: unknown;
    if (phase === 'device') {
      result = await deviceReport(gpu, ctx, `${adapter} via ${driver}`, settings.copyBytes);
      const d = result as DeviceReport;
      log(`features: ${d.features.join(', ')}`);
      log(`copy bandwidth: ${(d.copy.bytesPerSecond / 1e9).toFixed(1)} GB/s (read + write)`);
    } else if (phase === 'checks') {
      result = await runKitChecks(ctx, checks, log);
    } else {
      const bandwidth = (await readBandwidth(work)) ?? (await measureCopyBandwidth(ctx, Math.min(settings.copyBytes, ctx.limits.maxBufferSize), 8)).bytesPerSecond;
      result = await runFull(ctx, settings, work, bandwidth, log, (file, values) => writeFile(file, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)));
    }
    await writeFile(`${work}/${phase}.json`, JSON.stringify(result, null, 2) + '\n');
    log(`gpu-kit ${phase}: wrote ${work}/${phase}.json`);
    return phase === 'checks' && (result as ChecksReport).failed > 0 ? 3 : 0;
  } finally {
    ctx.destroy();
  }
}

main().then(
  // Dawn's handles would keep the process alive.
  (code) => process.exit(code),
  (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    console.error(`gpu-kit: ${err.name}: ${err.message}`);
    if (err instanceof KitUsageError) console.error(USAGE);
    process.exit(err instanceof KitUsageError ? 2 : 1);
  },
);
