/** The live generation-speed series of the Train view (src/ui/train/live-speed.ts). */
import { describe, expect, it } from 'vitest';
import type { TrainProgress } from '../../../src/train/types.ts';
import { MAX_POINTS, MIN_GAP_SECONDS, nextSpeedPoints, type SpeedPoint } from '../../../src/ui/train/live-speed.ts';

const progress = (patch: Partial<TrainProgress>): TrainProgress => ({
  activity: 'evaluation',
  step: 0,
  text: 'Evaluating before training',
  done: 0,
  total: 4,
  tokens: 30,
  elapsedSeconds: 3,
  etaSeconds: null,
  ...patch,
});

describe('nextSpeedPoints', () => {
  it('adds the activity mean rate at the run time it was seen', () => {
    const points = nextSpeedPoints([], progress({ tokens: 30, elapsedSeconds: 3 }), 5.5);
    expect(points).toEqual([{ seconds: 5.5, tokensPerSecond: 10, activity: 'evaluation', step: 0 }]);
  });

  it('adds nothing without generated tokens or before the activity has run long enough to measure', () => {
    expect(nextSpeedPoints([], progress({ tokens: undefined }), 2)).toEqual([]);
    expect(nextSpeedPoints([], progress({ tokens: 0 }), 2)).toEqual([]);
    expect(nextSpeedPoints([], progress({ elapsedSeconds: 0.1 }), 2)).toEqual([]);
    expect(nextSpeedPoints([], progress({}), Number.NaN)).toEqual([]);
  });

  it('keeps at most one point per gap of one activity, but always one for a new activity', () => {
    let points: readonly SpeedPoint[] = nextSpeedPoints([], progress({}), 10);
    const same = nextSpeedPoints(points, progress({ tokens: 40, elapsedSeconds: 3.5 }), 10 + MIN_GAP_SECONDS / 2);
    expect(same).toBe(points);
    points = nextSpeedPoints(points, progress({ activity: 'rollout', step: 1, tokens: 8, elapsedSeconds: 0.5 }), 10.2);
    expect(points.map((p) => [p.activity, p.tokensPerSecond])).toEqual([
      ['evaluation', 10],
      ['rollout', 16],
    ]);
    points = nextSpeedPoints(points, progress({ activity: 'rollout', step: 1, tokens: 30, elapsedSeconds: 1.5 }), 10.2 + MIN_GAP_SECONDS);
    expect(points).toHaveLength(3);
    expect(points[2].tokensPerSecond).toBe(20);
  });

  it('stays bounded, keeping the first and the newest point', () => {
    let points: readonly SpeedPoint[] = [];
    for (let i = 0; i < 3 * MAX_POINTS; i++) points = nextSpeedPoints(points, progress({ tokens: i + 1, elapsedSeconds: 1 }), i * MIN_GAP_SECONDS);
    expect(points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(points.length).toBeGreaterThan(MAX_POINTS / 2);
    expect(points[0].seconds).toBe(0);
    expect(points.at(-1)?.seconds).toBe((3 * MAX_POINTS - 1) * MIN_GAP_SECONDS);
    for (let i = 1; i < points.length; i++) expect(points[i].seconds).toBeGreaterThan(points[i - 1].seconds);
  });
});
