/**
 * What a Spider import kept and skipped, and its rendering as plain-text tables (for the import script, the CLI and
 * the README). Pure and serialisable, so it can also travel to a browser; the importer itself is `spider.ts`.
 */
import { printable } from './printable.ts';
import type { ImportBudget } from './spider-budget.ts';
import { formatSplitMoves, type SplitMoves } from './split.ts';
import { DIFFICULTIES, SPLITS, type Difficulty, type Split } from './types.ts';

/**
 * Why a question was left out of the dataset: its db_id is not a plain name (a path, '..'); its database file is
 * missing or unreadable; its gold SQL fails, returns nothing or too much; its gold SQL ran past the per-query time
 * limit, or crashed the SQL engine (a WASM trap: the engine was replaced and the import went on); or the import's
 * overall time budget was spent before it ran.
 */
export type SkipReason =
  | 'bad-db-id'
  | 'missing-database'
  | 'unreadable-database'
  | 'sql-error'
  | 'empty-result'
  | 'too-large'
  | 'timeout'
  | 'engine-crash'
  | 'over-budget';
export const SKIP_REASONS: readonly SkipReason[] = [
  'bad-db-id',
  'missing-database',
  'unreadable-database',
  'sql-error',
  'empty-result',
  'too-large',
  'timeout',
  'engine-crash',
  'over-budget',
];

export interface SkippedQuestion {
  id: string;
  dbId: string;
  reason: SkipReason;
  /** The SQL error, or what was wrong, in words. */
  detail: string;
}

export interface ImportReport {
  /** Question files read, in order, with how many questions each holds. */
  sources: Array<{ file: string; questions: number }>;
  /** Questions read over all files. */
  questions: number;
  /** Questions in the dataset (`questions` minus every skip). */
  kept: number;
  /** Kept questions per split and difficulty. */
  bySplit: Record<Split, Record<Difficulty, number>>;
  /** Kept questions per database and split; only databases with a kept question. */
  byDatabase: Record<string, Record<Split, number>>;
  skipped: Record<SkipReason, number>;
  skippedQuestions: SkippedQuestion[];
  /** Curated databases that ended with no kept question (absent from the folder, or all skipped). */
  missingCurated: string[];
  /** Kept questions whose split differs from the SQL-only rule (split.ts), because their group shares a gold result. */
  splitMoves: SplitMoves;
  /** The time limits the import ran under. */
  budget: ImportBudget;
}

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

export function emptyReport(budget: ImportBudget): ImportReport {
  return {
    sources: [],
    questions: 0,
    kept: 0,
    bySplit: { train: zeros(DIFFICULTIES), eval: zeros(DIFFICULTIES), heldout: zeros(DIFFICULTIES) },
    byDatabase: {},
    skipped: zeros(SKIP_REASONS),
    skippedQuestions: [],
    missingCurated: [],
    splitMoves: { trainToEval: 0, evalToTrain: 0 },
    budget: { ...budget },
  };
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Left-aligned first column, right-aligned numbers, one space of gutter. */
function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  return cells.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * The report as text: a split × difficulty table, a database × split table, the split's moves, the skips by reason
 * and what the time budget stopped. Every name from the files (database ids, file names) passes through `printable`,
 * so a name holding a terminal escape prints as `\x1b[…` instead of steering the terminal.
 */
export function formatImportReport(report: ImportReport): string {
  const skippedTotal = sum(Object.values(report.skipped));
  const sources = report.sources.map((s) => `${printable(s.file)} ${s.questions}`).join(', ');
  const lines: string[] = [`Spider import: ${report.questions} questions read (${sources}); ${report.kept} kept, ${skippedTotal} skipped.`, ''];

  const splitRows = SPLITS.map((split) => [split, ...DIFFICULTIES.map((d) => report.bySplit[split][d]), sum(Object.values(report.bySplit[split]))]);
  const totals = DIFFICULTIES.map((d) => sum(SPLITS.map((s) => report.bySplit[s][d])));
  lines.push(table(['split', ...DIFFICULTIES, 'total'], [...splitRows, ['total', ...totals, sum(totals)]]), '');

  const dbIds = Object.keys(report.byDatabase).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const dbRows = dbIds.map((db) => [printable(db), ...SPLITS.map((s) => report.byDatabase[db][s]), sum(Object.values(report.byDatabase[db]))]);
  const splitTotals = SPLITS.map((s) => sum(dbIds.map((db) => report.byDatabase[db][s])));
  lines.push(table(['database', ...SPLITS, 'total'], [...dbRows, ['total', ...splitTotals, sum(splitTotals)]]), '');
  lines.push(formatSplitMoves(report.splitMoves));

  lines.push(`skipped: ${SKIP_REASONS.map((r) => `${r} ${report.skipped[r]}`).join(', ')}`);
  const dbsSkippedFor = (reason: SkipReason): string =>
    [...new Set(report.skippedQuestions.filter((q) => q.reason === reason).map((q) => printable(q.dbId, 60)))].join(', ');
  if (report.skipped['bad-db-id'] > 0) lines.push(`db_ids that are not plain names (a path, a leading '.', a control character): ${dbsSkippedFor('bad-db-id')}`);
  if (report.skipped['missing-database'] > 0) lines.push(`databases without a file: ${dbsSkippedFor('missing-database')}`);
  if (report.skipped['engine-crash'] > 0) lines.push(`gold queries that crashed the SQL engine (it was replaced): ${report.skipped['engine-crash']}`);
  if (report.skipped.timeout > 0) lines.push(`gold queries stopped at the ${seconds(report.budget.queryMs)} limit per query: ${report.skipped.timeout}`);
  if (report.skipped['over-budget'] > 0) lines.push(`the import's time budget of ${seconds(report.budget.totalMs)} ran out: ${report.skipped['over-budget']} questions were not run`);
  if (report.missingCurated.length > 0) lines.push(`curated databases with no question: ${report.missingCurated.map((db) => printable(db)).join(', ')}`);
  return lines.join('\n');
}
