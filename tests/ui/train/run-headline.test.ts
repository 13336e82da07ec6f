/**
 * The run card's words (src/ui/train/run-headline.ts): the headline counts the step in progress ("step 2 of 2" while
 * step 2 runs), says steps done between steps and the last step done once ended; the activity's clock ticks between
 * reports while the run works (and only then), its estimate counting down and saying nothing once run out; the ETA
 * figure of a stopped or failed run is no time at all.
 */
import { describe, expect, it } from 'vitest';
import type { StepMetrics, TrainProgress } from '../../../src/train/types.ts';
import { activityClock, clockTicks, runEtaText, runHeadline, stepInProgress } from '../../../src/ui/train/run-headline.ts';
import type { TrainRunView } from '../../../src/ui/store/train-slice.ts';

const progress = (p: Partial<TrainProgress>): TrainProgress => ({ activity: 'update', step: 1, text: '', done: 0, total: 1, elapsedSeconds: 0, etaSeconds: null, ...p });
const stepsDone = (n: number): StepMetrics[] => Array.from({ length: n }, (_, i) => ({ step: i + 1 }) as StepMetrics);

type HeadlineRun = Parameters<typeof runHeadline>[0];
const run = (r: Partial<HeadlineRun>): HeadlineRun => ({ phase: 'running', phaseMessage: null, pending: null, loaded: null, metrics: [], progress: null, totalSteps: 2, ...r });

describe('runHeadline', () => {
  it.each<[string, Partial<HeadlineRun>, string]>([
    ['step 1 update', { progress: progress({ activity: 'update', step: 1 }) }, 'Running: step 1 of 2'],
    ['step 2 update after step 1', { metrics: stepsDone(1), progress: progress({ activity: 'update', step: 2 }) }, 'Running: step 2 of 2'],
    ['step 2 rollouts', { metrics: stepsDone(1), progress: progress({ activity: 'rollout', step: 2 }) }, 'Running: step 2 of 2'],
    ['baseline evaluation', { progress: progress({ activity: 'evaluation', step: 0 }) }, 'Running: 0 of 2 steps done'],
    ['evaluation after step 1', { metrics: stepsDone(1), progress: progress({ activity: 'evaluation', step: 1 }) }, 'Running: 1 of 2 steps done'],
    ['update of step 1 reported after it was done', { metrics: stepsDone(1), progress: progress({ activity: 'update', step: 1 }) }, 'Running: 1 of 2 steps done'],
    ['paused in step 2', { phase: 'paused', phaseMessage: 'note', metrics: stepsDone(1), progress: progress({ step: 2 }) }, 'Paused: step 2 of 2 — note'],
    ['pausing in step 1', { pending: 'pause', progress: progress({ step: 1 }) }, 'Pausing… step 1 of 2'],
    ['stopped in step 2', { phase: 'stopped', metrics: stepsDone(1), progress: progress({ step: 2 }) }, 'Stopped: step 1 of 2'],
    ['finished', { phase: 'finished', metrics: stepsDone(2), progress: progress({ activity: 'evaluation', step: 2 }) }, 'Finished: step 2 of 2'],
    ['loading', { phase: 'loading', loaded: { loaded: 1, total: 4 } }, 'Loading (25%): step 0 of 2'],
    ['baseline evaluation of a 1-step run', { totalSteps: 1, progress: progress({ activity: 'evaluation', step: 0 }) }, 'Running: 0 of 1 step done'],
  ])('%s → %s', (_, r, text) => {
    expect(runHeadline(run(r))).toBe(text);
  });

  it('names no step in progress once the run has ended', () => {
    const r = run({ phase: 'failed', progress: progress({ step: 1 }) }) as Pick<TrainRunView, 'phase' | 'metrics' | 'progress'>;
    expect(stepInProgress(r)).toBeNull();
  });
});

describe('activity clock', () => {
  const report = progress({ elapsedSeconds: 3, etaSeconds: 10, done: 1, total: 4 });

  it('ticks while the run works and the activity is not done', () => {
    expect(clockTicks('running', report)).toBe(true);
    expect(clockTicks('loading', report)).toBe(true);
    expect(clockTicks('paused', report)).toBe(false);
    expect(clockTicks('stopped', report)).toBe(false);
    expect(clockTicks('running', { ...report, done: 4 })).toBe(false);
    expect(clockTicks('running', null)).toBe(false);
  });

  it('adds the time since the report to the elapsed seconds and takes it from the estimate', () => {
    expect(activityClock(report, 1_000, 5_000, true)).toEqual({ elapsedSeconds: 7, etaSeconds: 6 });
    expect(activityClock(report, 1_000, 5_000, false)).toEqual({ elapsedSeconds: 3, etaSeconds: 10 });
    // A render before the report's arrival adds nothing.
    expect(activityClock(report, 5_000, 1_000, true)).toEqual({ elapsedSeconds: 3, etaSeconds: 10 });
    // An estimate that has run out says nothing.
    expect(activityClock(report, 0, 12_000, true)).toEqual({ elapsedSeconds: 15, etaSeconds: null });
    expect(activityClock({ ...report, etaSeconds: null }, 0, 2_000, true)).toEqual({ elapsedSeconds: 5, etaSeconds: null });
  });
});

describe('runEtaText', () => {
  it.each<[number, Parameters<typeof runEtaText>[3], string]>([
    [1, 'running', '2 min 00 s'],
    [1, 'paused', '2 min 00 s'],
    [1, 'stopped', 'none: stopped'],
    [1, 'failed', 'none: failed'],
    [3, 'running', 'done'],
    [3, 'stopped', 'done'],
  ])('step %s of 3, %s → %s', (step, phase, text) => {
    expect(runEtaText(step, 120, 3, phase)).toBe(text);
  });
});
