/**
 * The GPU kit's correctness phase: the registered GPU checks (src/gpu-tests/registry.ts) on the adapter at hand,
 * against the float64 reference with the tolerances each check declares — the same `runCheck` the Node suite and the
 * Playwright specs call, so nothing here judges anything on its own. A check that throws is recorded as failed with
 * its error, and the next one runs (one broken kernel must not hide the others on a 15-minute machine).
 *
 * Seeded like the suite (GPU_CHECK_SEED or a fresh seed, printed, src/gpu-tests/seed.ts).
 */
import type { GpuContext } from '../../src/gpu/device.ts';
import { CHECK_NAMES, failingCases, reportLines, runCheck } from '../../src/gpu-tests/registry.ts';
import { describeSeed, runSeed } from '../../src/gpu-tests/seed.ts';

export interface CheckOutcome {
  check: string;
  pass: boolean;
  seconds: number;
  comparisons: number;
  /** The largest |gpu − ref| over the check's comparisons (each judged against its own tolerance). */
  maxAbs: number;
  failing: string[];
  notes: string[];
  error: string | null;
}

export interface ChecksReport {
  seed: number;
  adapter: string;
  outcomes: CheckOutcome[];
  passed: number;
  failed: number;
}

/**
 * The checks a run asked for by name (GPU_KIT_CHECKS, comma-separated: e.g. the learning runs too long for the
 * default list), or null when it asked for none; a name the registry does not hold is refused before the GPU is
 * touched, so a typo cannot spend a lent machine's minutes on nothing.
 */
export function requestedChecks(env: Readonly<Record<string, string | undefined>>): string[] | null {
  const raw = env.GPU_KIT_CHECKS?.trim();
  if (!raw) return null;
  const names = raw.split(',').map((n) => n.trim()).filter((n) => n.length > 0);
  const unknown = names.filter((n) => !CHECK_NAMES.includes(n));
  if (unknown.length > 0) throw new Error(`GPU_KIT_CHECKS names no registered check: ${unknown.join(', ')} (registered: ${CHECK_NAMES.join(', ')})`);
  return names;
}

export async function runKitChecks(ctx: GpuContext, names: readonly string[], log: (line: string) => void): Promise<ChecksReport> {
  const run = runSeed(process.env);
  log(describeSeed(run, 'GPU_CHECK_SEED=<seed> bash <kit>/run.sh'));
  const outcomes: CheckOutcome[] = [];
  let adapter = '';
  for (const check of names) {
    const t0 = performance.now();
    try {
      const report = await runCheck(ctx, check, run.seed);
      adapter = report.adapter;
      for (const line of reportLines(report)) log(line);
      outcomes.push({
        check,
        pass: report.pass,
        seconds: report.ms / 1000,
        comparisons: report.results.length,
        maxAbs: report.results.reduce((m, r) => Math.max(m, r.maxAbs), 0),
        failing: failingCases(report),
        notes: report.notes,
        error: null,
      });
    } catch (e) {
      const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      log(`${check}: ERROR ${error}`);
      outcomes.push({ check, pass: false, seconds: (performance.now() - t0) / 1000, comparisons: 0, maxAbs: 0, failing: [], notes: [], error });
    }
  }
  const passed = outcomes.filter((o) => o.pass).length;
  return { seed: run.seed, adapter, outcomes, passed, failed: outcomes.length - passed };
}
