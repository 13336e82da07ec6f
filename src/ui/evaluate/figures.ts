/**
 * Pure helpers that turn a run into what the Evaluate view shows: the return histogram's bins, rows of the
 * by-difficulty and by-database charts, and number formats. No React and no DOM, so tests run them in Node.
 */
import type { GroupSummary } from '../../eval/evaluate.ts';

export interface HistogramBin {
  /** Inclusive lower edge. */
  from: number;
  /** Exclusive upper edge (inclusive for the last bin). */
  to: number;
  count: number;
}

/**
 * Counts of `values` in equal-width bins. The width is a "nice" step (1, 2 or 5 × 10^k) chosen so there are at
 * most `maxBins` bins; edges are multiples of the width, so bins read as 0.0–0.1, 0.1–0.2, … A value on an edge
 * goes to the bin that starts there; the largest value goes to the last bin. No values: no bins. `minWidth` keeps
 * bins from getting finer than the values mean (returns are sums of rewards in hundredths).
 */
export function histogram(values: readonly number[], maxBins = 20, minWidth = 0): HistogramBin[] {
  if (values.length === 0) return [];
  const min = Math.min(...values);
  const max = Math.max(...values);
  const width = niceWidth(Math.max((max - min) / maxBins, minWidth));
  // Rounding guards: 0.3 / 0.1 is 2.9999999999999996 in floating point.
  const first = Math.floor(min / width + 1e-9);
  const last = Math.max(first + 1, Math.floor(max / width + 1e-9) + 1);
  const bins: HistogramBin[] = [];
  for (let k = first; k < last; k++) bins.push({ from: round(k * width), to: round((k + 1) * width), count: 0 });
  for (const v of values) bins[Math.min(bins.length - 1, Math.floor(v / width + 1e-9) - first)].count++;
  return bins;
}

/** Decimals that tell the bins' edges apart: 1 for a width of 0.1 or 0.5, 2 for 0.02, 3 for 0.005. */
export function binDigits(bins: readonly HistogramBin[]): number {
  if (bins.length === 0) return 2;
  return Math.max(0, -Math.floor(Math.log10(bins[0].to - bins[0].from) + 1e-9));
}

/** The smallest of 1, 2, 5 × 10^k that is at least `raw` (0.1 when raw is 0: all values equal). */
function niceWidth(raw: number): number {
  if (!(raw > 0)) return 0.1;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw * (1 - 1e-9)) return round(m * power);
  return round(10 * power);
}

function round(x: number): number {
  return Number(x.toPrecision(12));
}

export interface GroupRow extends GroupSummary {
  name: string;
}

/** A `by_…` record of a report as rows, in the report's order. */
export function groupRows(groups: Record<string, GroupSummary>): GroupRow[] {
  return Object.entries(groups).map(([name, g]) => ({ name, ...g }));
}

export function percent(rate: number): string {
  return `${(rate * 100).toFixed(rate === 0 || rate === 1 ? 0 : 1)}%`;
}

export function fixed(x: number, digits = 3): string {
  return x.toFixed(digits);
}

/** A duration in milliseconds as people say it: "850 ms", "12.3 s", "4 min 05 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * Time left in a run, in milliseconds, from the pace so far: (elapsed at the last report / episodes done) × episodes
 * left, less the time since that report. Null before the first episode ends (no pace yet).
 */
export function remainingMs(done: number, total: number, startedAt: number, updatedAt: number, now: number): number | null {
  if (done <= 0 || total <= done) return done >= total && total > 0 ? 0 : null;
  const perEpisode = (updatedAt - startedAt) / done;
  return Math.max(0, perEpisode * (total - done) - (now - updatedAt));
}

/** How a run is named on screen: "Oracle · demo/eval · 20 episodes". */
export function runTitle(run: { policy: string; dataset: string; split: string; episodes: number }, policyLabel: (name: string) => string): string {
  return `${policyLabel(run.policy)} · ${run.dataset}/${run.split} · ${run.episodes} episode${run.episodes === 1 ? '' : 's'}`;
}
