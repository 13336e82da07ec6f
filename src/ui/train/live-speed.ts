/**
 * The Train view's first chart: generation speed while the run works, fed by the run's 'progress' events (which
 * carry the tokens an evaluation or a rollout has generated so far and the seconds since it began). The per-step
 * charts get their first point only when a step ends — minutes on a slow device — while this one gets a point within
 * seconds of the first tokens, so a person sees the run is alive and how fast it goes.
 *
 * A point: seconds since the run started on this page (x) and the activity's mean tokens per second so far (y).
 * At most one point per `MIN_GAP_SECONDS` of the same activity (events come up to 10 per second); a new activity
 * always gets one. The series stays bounded: past `MAX_POINTS` every other point is dropped (the first one kept, so
 * the chart is appended to, not restarted, until then).
 */
import type { TrainActivity, TrainProgress } from '../../train/types.ts';

export interface SpeedPoint {
  /** Seconds since the run started (on this page). */
  seconds: number;
  /** Mean tokens per second of the activity so far. */
  tokensPerSecond: number;
  activity: TrainActivity;
  step: number;
}

export const MIN_GAP_SECONDS = 1;
export const MAX_POINTS = 400;
/** Below this an activity's rate is mostly start-up noise (first forward, shader compilation). */
const MIN_ELAPSED_SECONDS = 0.25;

/** The series after one progress event seen `secondsSinceStart` into the run (the same array when nothing is added). */
export function nextSpeedPoints(points: readonly SpeedPoint[], progress: TrainProgress, secondsSinceStart: number): readonly SpeedPoint[] {
  const tokens = progress.tokens;
  if (tokens === undefined || tokens <= 0 || !(progress.elapsedSeconds >= MIN_ELAPSED_SECONDS) || !Number.isFinite(secondsSinceStart)) return points;
  const last = points.at(-1);
  const sameActivity = last !== undefined && last.activity === progress.activity && last.step === progress.step;
  if (sameActivity && secondsSinceStart - last.seconds < MIN_GAP_SECONDS) return points;
  const point: SpeedPoint = { seconds: secondsSinceStart, tokensPerSecond: tokens / progress.elapsedSeconds, activity: progress.activity, step: progress.step };
  const grown = [...points, point];
  return grown.length > MAX_POINTS ? grown.filter((_, i) => i % 2 === 0 || i === grown.length - 1) : grown;
}
