/**
 * The per-question outcome matrix of two evaluation runs, A and B: for every question both runs played, whether
 * both solved it, only A, only B, or neither; with counts, and filters. Pure (no React, no storage), so every case
 * is unit-tested (tests/ui/compare/outcome-matrix.test.ts).
 *
 * How to think about it: a question is identified by dataset and question id, so runs on different datasets share
 * nothing. A run may play a question more than once (more episodes than questions, or two seeds); it "solved" the
 * question when at least half of its episodes on it succeeded — with one episode each, simply when it succeeded.
 * Questions only one run played are counted apart and left out of the matrix.
 */
import type { Difficulty, Split } from '../../data/types.ts';
import { isSolved, questionKey } from '../../eval/paired-stats.ts';
import type { EpisodeRecord } from '../../eval/transcript.ts';

export type Outcome = 'both' | 'onlyA' | 'onlyB' | 'neither';

export const OUTCOME_LABELS: Record<Outcome, string> = { both: 'Both solved', onlyA: 'Only A solved', onlyB: 'Only B solved', neither: 'Neither solved' };

/** How one run did on one question. */
export interface SideResult {
  /** Indices of the run's records on this question, in run order. */
  records: number[];
  successes: number;
  solved: boolean;
  meanReturn: number;
  meanSteps: number;
}

export interface QuestionComparison {
  /** `dataset/questionId`: unique across datasets. */
  key: string;
  dataset: string;
  questionId: string;
  dbId: string;
  question: string;
  difficulty: Difficulty;
  split: Split;
  a: SideResult;
  b: SideResult;
  outcome: Outcome;
}

export interface Comparison {
  /** Questions both runs played, ordered by dataset then question id. */
  rows: QuestionComparison[];
  counts: Record<Outcome, number>;
  /** Questions only one run played (not in `rows`). */
  onlyInA: number;
  onlyInB: number;
}

// One rule for "solved" and one question key, shared with the statistics (src/eval/paired-stats.ts).
export { isSolved, questionKey } from '../../eval/paired-stats.ts';

export function outcomeOf(aSolved: boolean, bSolved: boolean): Outcome {
  return aSolved ? (bSolved ? 'both' : 'onlyA') : bSolved ? 'onlyB' : 'neither';
}

function groupRecords(records: readonly EpisodeRecord[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  records.forEach((r, i) => {
    const key = questionKey(r);
    const list = groups.get(key);
    if (list) list.push(i);
    else groups.set(key, [i]);
  });
  return groups;
}

function sideResult(records: readonly EpisodeRecord[], indices: number[]): SideResult {
  const picked = indices.map((i) => records[i]);
  const successes = picked.filter((r) => r.success).length;
  const mean = (f: (r: EpisodeRecord) => number): number => picked.reduce((s, r) => s + f(r), 0) / picked.length;
  return { records: indices, successes, solved: isSolved(successes, picked.length), meanReturn: mean((r) => r.episodeReturn), meanSteps: mean((r) => r.steps) };
}

export function emptyCounts(): Record<Outcome, number> {
  return { both: 0, onlyA: 0, onlyB: 0, neither: 0 };
}

export function compareRuns(a: readonly EpisodeRecord[], b: readonly EpisodeRecord[]): Comparison {
  const groupsA = groupRecords(a);
  const groupsB = groupRecords(b);
  const rows: QuestionComparison[] = [];
  const counts = emptyCounts();
  for (const [key, indicesA] of groupsA) {
    const indicesB = groupsB.get(key);
    if (!indicesB) continue;
    const first = a[indicesA[0]];
    const sideA = sideResult(a, indicesA);
    const sideB = sideResult(b, indicesB);
    const outcome = outcomeOf(sideA.solved, sideB.solved);
    counts[outcome]++;
    rows.push({ key, dataset: first.dataset, questionId: first.questionId, dbId: first.dbId, question: first.question, difficulty: first.difficulty, split: first.split, a: sideA, b: sideB, outcome });
  }
  rows.sort((x, y) => (x.dataset === y.dataset ? (x.questionId < y.questionId ? -1 : x.questionId > y.questionId ? 1 : 0) : x.dataset < y.dataset ? -1 : 1));
  return { rows, counts, onlyInA: groupsA.size - rows.length, onlyInB: groupsB.size - rows.length };
}

export interface CompareFilter {
  outcome: Outcome | 'all';
  difficulty: Difficulty | 'all';
  dbId: string;
  /** Words the question text or id must contain (case-insensitive); '' for any. */
  text: string;
}

export const NO_FILTER: CompareFilter = { outcome: 'all', difficulty: 'all', dbId: 'all', text: '' };

/** Rows the filter keeps, in order. The outcome filter applies last, so `countsOf` can show counts per outcome. */
export function filterRows(rows: readonly QuestionComparison[], filter: CompareFilter): QuestionComparison[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter(
    (r) =>
      (filter.difficulty === 'all' || r.difficulty === filter.difficulty) &&
      (filter.dbId === 'all' || r.dbId === filter.dbId) &&
      words.every((w) => r.question.toLowerCase().includes(w) || r.questionId.toLowerCase().includes(w)) &&
      (filter.outcome === 'all' || r.outcome === filter.outcome),
  );
}

/** Counts per outcome among the rows the other filters keep (what the matrix shows while filtering). */
export function countsOf(rows: readonly QuestionComparison[], filter: CompareFilter): Record<Outcome, number> {
  const counts = emptyCounts();
  for (const r of filterRows(rows, { ...filter, outcome: 'all' })) counts[r.outcome]++;
  return counts;
}

/** Databases among the rows, sorted, for the database filter. */
export function databasesOf(rows: readonly QuestionComparison[]): string[] {
  return [...new Set(rows.map((r) => r.dbId))].sort();
}
