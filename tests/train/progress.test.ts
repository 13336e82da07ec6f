/**
 * Progress reports (src/train/progress.ts) on a fake clock: an activity's first report and its completion always go
 * out, updates in between at most once per interval; the estimate is elapsed × remaining / done (null before any
 * unit is done, 0 when complete); `etaText` words it.
 */
import { describe, expect, it } from 'vitest';
import { etaText, ProgressReporter } from '../../src/train/progress.ts';
import type { TrainProgress } from '../../src/train/types.ts';

function clocked(intervalMs: number) {
  let now = 0;
  const out: TrainProgress[] = [];
  const reporter = new ProgressReporter((p) => out.push(p), () => now, intervalMs);
  return { reporter, out, advance: (ms: number) => (now += ms) };
}

describe('ProgressReporter', () => {
  it('reports the start at once, throttles updates, always reports the end', () => {
    const { reporter, out, advance } = clocked(100);
    const a = reporter.begin('evaluation', 0, 'Evaluating before training: 0 of 4 episodes done', 4);
    expect(out).toEqual([{ activity: 'evaluation', step: 0, text: 'Evaluating before training: 0 of 4 episodes done', done: 0, total: 4, elapsedSeconds: 0, etaSeconds: null }]);
    advance(50);
    a.update(1, 4, 'one', 10);
    expect(out).toHaveLength(1); // within the interval
    advance(50);
    a.update(1, 4, 'one', 12);
    expect(out.at(-1)).toEqual({ activity: 'evaluation', step: 0, text: 'one', done: 1, total: 4, tokens: 12, elapsedSeconds: 0.1, etaSeconds: 0.30000000000000004 });
    advance(10);
    a.finish('all');
    expect(out.at(-1)).toMatchObject({ text: 'all', done: 4, total: 4, etaSeconds: 0 });
    expect(out).toHaveLength(3);
  });

  it('clamps done to [0, total] and estimates from the measured rate', () => {
    const { reporter, out, advance } = clocked(0);
    const a = reporter.begin('update', 3, 'Step 3: update, micro-batch 0 of 5', 5);
    advance(2000);
    a.update(2, 5, 'Step 3: update, micro-batch 2 of 5');
    expect(out.at(-1)).toMatchObject({ done: 2, elapsedSeconds: 2, etaSeconds: 3 });
    a.update(9, 5, 'past the end');
    expect(out.at(-1)).toMatchObject({ done: 5, etaSeconds: 0 });
    a.update(-1, 5, 'before the start');
    expect(out.at(-1)).toMatchObject({ done: 0, etaSeconds: null });
  });
});

describe('ProgressReporter milestones', () => {
  it('sends every milestone, however close together, and an update after one still waits out the interval', () => {
    const { reporter, out, advance } = clocked(100);
    const a = reporter.begin('update', 1, 'Step 1: update, micro-batch 0 of 2', 2);
    advance(1);
    a.milestone(0, 2, 'forward 1');
    advance(1);
    a.milestone(0, 2, 'backward 1');
    advance(1);
    a.milestone(1, 2, 'done 1');
    expect(out.map((p) => p.text)).toEqual(['Step 1: update, micro-batch 0 of 2', 'forward 1', 'backward 1', 'done 1']);
    expect(out.at(-1)).toMatchObject({ done: 1, total: 2, elapsedSeconds: 0.003 });
    advance(50);
    a.update(1, 2, 'throttled');
    expect(out).toHaveLength(4);
    a.milestone(9, 2, 'clamped');
    expect(out.at(-1)).toMatchObject({ text: 'clamped', done: 2 });
  });
});

describe('etaText', () => {
  it.each([
    [null, ''],
    [0.2, 'less than a second left'],
    [42, 'about 42 s left'],
    [600, 'about 10 min left'],
    [7200, 'about 2.0 h left'],
  ])('%s s → "%s"', (seconds, text) => {
    expect(etaText(seconds)).toBe(text);
  });
});
