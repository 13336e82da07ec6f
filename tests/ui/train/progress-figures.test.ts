/**
 * The figures under the Train run's progress bar (src/ui/train/run-headline.ts, progressFigures): they name the
 * activity whose percentage, clock and estimate they are, and add the run's time since Start, which goes on across
 * activities (loading → a step's sampling → its update) where each activity's own clock starts again at 0.
 * Expected strings are written out by hand.
 */
import { describe, expect, it } from 'vitest';
import type { TrainProgress } from '../../../src/train/types.ts';
import { activityPercent, clockText, progressFigures } from '../../../src/ui/train/run-headline.ts';

const progress = (p: Partial<TrainProgress>): TrainProgress => ({ activity: 'update', step: 1, text: '', done: 0, total: 1, elapsedSeconds: 0, etaSeconds: null, ...p });

describe('clockText', () => {
  it.each<[number, string]>([
    [0, '0 s'],
    [0.4, '0 s'],
    [59.4, '59 s'],
    [59.6, '1 min 00 s'],
    [65, '1 min 05 s'],
    [3599, '59 min 59 s'],
    [3600, '1 h 00 min'],
    [2 * 3600 + 7 * 60 + 30, '2 h 07 min'],
    [-3, '0 s'],
  ])('%s s → %s', (seconds, text) => expect(clockText(seconds)).toBe(text));
});

describe('progressFigures', () => {
  it('names the activity, its share and clock, and the run time since Start', () => {
    const p = progress({ activity: 'update', done: 1 / 3, total: 1 });
    expect(progressFigures(p, { elapsedSeconds: 12, etaSeconds: 24 }, 112)).toBe('Update: 33% · 12 s so far · about 24 s left · 1 min 52 s since the run started');
  });

  it('says no estimate while there is none', () => {
    expect(progressFigures(progress({ activity: 'rollout', done: 0, total: 8 }), { elapsedSeconds: 3, etaSeconds: null }, 40)).toBe('Sampling: 0% · 3 s so far · 40 s since the run started');
  });

  it('keeps the run time going from loading to the first step, where the activity clock starts again', () => {
    const loading = progressFigures(progress({ activity: 'loading', done: 1, total: 1 }), { elapsedSeconds: 95, etaSeconds: 0 }, 95);
    const sampling = progressFigures(progress({ activity: 'rollout', step: 1, done: 0, total: 4 }), { elapsedSeconds: 0, etaSeconds: null }, 96);
    expect(loading).toBe('Loading: 100% · 1 min 35 s so far · less than a second left · 1 min 35 s since the run started');
    expect(sampling).toBe('Sampling: 0% · 0 s so far · 1 min 36 s since the run started');
  });

  it.each<[TrainProgress['activity'], string]>([
    ['evaluation', 'Evaluation'],
    ['demonstrations', 'Demonstrations'],
    ['trace', 'Trace'],
    ['checkpoint', 'Checkpoint'],
  ])('names %s as %s', (activity, name) => {
    expect(progressFigures(progress({ activity }), { elapsedSeconds: 1, etaSeconds: null }, 1)).toBe(`${name}: 0% · 1 s so far · 1 s since the run started`);
  });
});

describe('activityPercent', () => {
  it.each<[number, number, number]>([
    [0, 1, 0],
    [1 / 3, 1, 33],
    [2, 4, 50],
    [4, 4, 100],
    [3, 0, 0],
  ])('%s of %s → %s%%', (done, total, percent) => expect(activityPercent({ done, total })).toBe(percent));
});
