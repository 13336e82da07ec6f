/**
 * Question counts a dataset card shows: by split and difficulty (with totals), and by database and split. Pure, over
 * the question summaries the worker sends (no gold rows), so it works for every dataset alike.
 */
import { DIFFICULTIES, SPLITS, type Difficulty, type Split } from '../../data/types.ts';
import type { DatasetSummary, QuestionSummary } from '../../workers/env-protocol.ts';

/** What the counts read of a dataset: each question's database, split and difficulty, and the databases. */
type Counted = { questions: ReadonlyArray<Pick<QuestionSummary, 'dbId' | 'split' | 'difficulty'>> };

export interface SplitRow {
  split: Split | 'all';
  byDifficulty: Record<Difficulty, number>;
  total: number;
}

export interface DatabaseRow {
  id: string;
  tables: number;
  bySplit: Record<Split, number>;
  total: number;
}

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

/** One row per split that has questions, then an `all` row. */
export function countBySplit(summary: Counted): SplitRow[] {
  const rows = new Map<Split, SplitRow>(SPLITS.map((split) => [split, { split, byDifficulty: zeros(DIFFICULTIES), total: 0 }]));
  const all: SplitRow = { split: 'all', byDifficulty: zeros(DIFFICULTIES), total: 0 };
  for (const q of summary.questions) {
    const row = rows.get(q.split);
    if (!row) continue;
    row.byDifficulty[q.difficulty]++;
    row.total++;
    all.byDifficulty[q.difficulty]++;
    all.total++;
  }
  return [...[...rows.values()].filter((r) => r.total > 0), all];
}

/** One row per database, in the dataset's order, with its questions per split. */
export function countByDatabase(summary: Counted & Pick<DatasetSummary, 'databases'>): DatabaseRow[] {
  const rows = new Map<string, DatabaseRow>(summary.databases.map((d) => [d.id, { id: d.id, tables: d.tables.length, bySplit: zeros(SPLITS), total: 0 }]));
  for (const q of summary.questions) {
    const row = rows.get(q.dbId);
    if (!row) continue;
    row.bySplit[q.split]++;
    row.total++;
  }
  return [...rows.values()];
}

/** Splits that hold at least one question (so a card shows no empty columns). */
export function splitsPresent(summary: Counted): Split[] {
  return SPLITS.filter((s) => summary.questions.some((q) => q.split === s));
}

/** Bytes in words: 1.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
