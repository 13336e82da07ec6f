/** The outcome matrix of two runs: outcomes, counts, repeated episodes, questions only one run played, filters. */
import { describe, expect, it } from 'vitest';
import { compareRuns, countsOf, databasesOf, filterRows, isSolved, NO_FILTER, outcomeOf } from '../../../src/ui/compare/outcome-matrix.ts';
import { record } from './records.ts';

describe('outcomes', () => {
  it.each([
    [true, true, 'both'],
    [true, false, 'onlyA'],
    [false, true, 'onlyB'],
    [false, false, 'neither'],
  ] as const)('A solved %s, B solved %s → %s', (a, b, outcome) => expect(outcomeOf(a, b)).toBe(outcome));

  it.each([
    [0, 0, false],
    [0, 1, false],
    [1, 1, true],
    [1, 2, true],
    [1, 3, false],
    [2, 3, true],
  ])('%i successes of %i episodes: solved %s', (successes, episodes, solved) => expect(isSolved(successes, episodes)).toBe(solved));
});

describe('compareRuns', () => {
  const a = [record('q3', true), record('q1', false), record('q2', true), record('q4', false), record('only-a', true)];
  const b = [record('q1', true, { policy: 'oracle' }), record('q2', true), record('q3', false), record('q4', false), record('only-b', false), record('other', true, { dataset: 'spider' })];

  it('puts every question both runs played in one cell, counted, ordered by id', () => {
    const c = compareRuns(a, b);
    expect(c.rows.map((r) => [r.questionId, r.outcome])).toEqual([
      ['q1', 'onlyB'],
      ['q2', 'both'],
      ['q3', 'onlyA'],
      ['q4', 'neither'],
    ]);
    expect(c.counts).toEqual({ both: 1, onlyA: 1, onlyB: 1, neither: 1 });
    expect(c.onlyInA).toBe(1);
    expect(c.onlyInB).toBe(2);
    expect(c.rows[0]).toMatchObject({ key: 'demo/q1', dbId: 'library', question: 'Question q1?', a: { records: [1], successes: 0 }, b: { records: [0], successes: 1 } });
  });

  it('summarises repeated episodes of a question (solved when at least half succeed)', () => {
    const c = compareRuns(
      [record('q', true, { episodeReturn: 1, steps: 2 }), record('q', false, { episodeReturn: 0, steps: 4 }), record('r', false), record('r', false), record('r', true)],
      [record('q', false), record('r', true)],
    );
    expect(c.rows.find((r) => r.questionId === 'q')).toMatchObject({ outcome: 'onlyA', a: { records: [0, 1], successes: 1, solved: true, meanReturn: 0.5, meanSteps: 3 } });
    expect(c.rows.find((r) => r.questionId === 'r')).toMatchObject({ outcome: 'onlyB', a: { successes: 1, solved: false } });
  });

  it('shares nothing between runs on different datasets', () => {
    const c = compareRuns([record('q1', true)], [record('q1', true, { dataset: 'spider' })]);
    expect(c.rows).toEqual([]);
    expect([c.onlyInA, c.onlyInB]).toEqual([1, 1]);
  });

  it('handles empty runs', () => {
    expect(compareRuns([], [])).toEqual({ rows: [], counts: { both: 0, onlyA: 0, onlyB: 0, neither: 0 }, onlyInA: 0, onlyInB: 0 });
  });
});

describe('filters', () => {
  const rows = compareRuns(
    [record('a1', true, { dbId: 'shop', difficulty: 'hard' }), record('a2', false, { dbId: 'shop' }), record('a3', false, { dbId: 'school', difficulty: 'hard' }), record('a4', true)],
    [record('a1', true), record('a2', true), record('a3', false), record('a4', false)],
  ).rows;

  it('by outcome, difficulty, database and words, together', () => {
    expect(filterRows(rows, NO_FILTER)).toHaveLength(4);
    expect(filterRows(rows, { ...NO_FILTER, outcome: 'onlyB' }).map((r) => r.questionId)).toEqual(['a2']);
    expect(filterRows(rows, { ...NO_FILTER, difficulty: 'hard' }).map((r) => r.questionId)).toEqual(['a1', 'a3']);
    expect(filterRows(rows, { ...NO_FILTER, dbId: 'shop', outcome: 'both' }).map((r) => r.questionId)).toEqual(['a1']);
    expect(filterRows(rows, { ...NO_FILTER, text: '  QUESTION   a4 ' }).map((r) => r.questionId)).toEqual(['a4']);
    expect(filterRows(rows, { ...NO_FILTER, text: 'nothing-like-this' })).toEqual([]);
  });

  it('counts per outcome under the other filters', () => {
    expect(countsOf(rows, NO_FILTER)).toEqual({ both: 1, onlyA: 1, onlyB: 1, neither: 1 });
    expect(countsOf(rows, { ...NO_FILTER, outcome: 'both', difficulty: 'hard' })).toEqual({ both: 1, onlyA: 0, onlyB: 0, neither: 1 });
    expect(databasesOf(rows)).toEqual(['library', 'school', 'shop']);
  });
});
