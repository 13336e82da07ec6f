/**
 * A check's report (registry.ts runs the check and fills it) and how both runners print and judge it: one line per
 * comparison with its largest differences and the tolerance it is held to, the seed, the notes; and the failing
 * cases by name. Plain data and string formatting only, so the Playwright process (e2e/gpu/harness.ts) imports it
 * without loading the checks and their WGSL.
 */
import type { Comparison } from './compare.ts';

/** One check's outcome as plain JSON (it crosses `page.evaluate`). */
export interface CheckReport {
  check: string;
  seed: number;
  adapter: string;
  results: Comparison[];
  notes: string[];
  /** At least one comparison, and every one within its tolerance. */
  pass: boolean;
  ms: number;
}

/** A report as printed lines: one per comparison (largest differences against the tolerance held to), then notes. */
export function reportLines(report: CheckReport): string[] {
  const lines = report.results.map(
    (r) =>
      `[${report.adapter}] ${r.label.padEnd(40)} ${r.shape.padEnd(44)} maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} tol=abs ${r.tol.abs.toPrecision(3)} + rel ${r.tol.rel.toPrecision(3)} ${r.pass ? 'ok' : 'FAIL'}`,
  );
  lines.push(`${report.check}: seed ${report.seed}, ${(report.ms / 1000).toFixed(1)} s on ${report.adapter}`);
  return [...lines, ...report.notes.map((n) => `note: ${n}`)];
}

/** The comparisons out of tolerance, as "label [shape]: maxAbs …" lines (empty when the check passed). */
export function failingCases(report: CheckReport): string[] {
  const failing = report.results.filter((r) => !r.pass).map((r) => `${r.label} [${r.shape}]: maxAbs=${r.maxAbs.toExponential(2)} maxRel=${r.maxRel.toExponential(2)} worst index ${r.worst}`);
  if (report.results.length === 0) failing.push(`${report.check} returned no comparisons`);
  return failing;
}
