// Types of scripts/test-counts.mjs (plain JavaScript: `npm test` runs under node before anything is compiled).
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  notes: string[];
}
export function stepCounts(code: number | null): Counts;
export function vitestCounts(report: unknown, code: number | null, root?: string): Counts;
export function playwrightCounts(report: unknown, code: number | null): Counts;
export function unittestCounts(code: number | null, output: string): Counts;
export function counts(passed: number, failed: number, notes?: string[], skipped?: number): Counts;
