/**
 * Progress of a run's activities (loading, evaluation, rollouts, update, checkpoint) as `TrainProgress` reports:
 * `begin` starts an activity's clock, `update(done, total, text)` reports it with the seconds left estimated from the
 * rate measured so far (elapsed × remaining / done), and `finish` reports it complete.
 *
 * Reports are throttled to one per `minIntervalMs` (a fast GPU decodes hundreds of tokens a second, each a report
 * crossing postMessage), except the first of an activity, its completion and its `milestone`s, which always go out:
 * so the page hears of every activity as soon as it starts, and of each part of a long one (a forward pass, a
 * backward pass) as it begins, whatever its length.
 */
import type { TrainActivity, TrainProgress } from './types.ts';

export interface ActivityProgress {
  /** `done` of `total` units (clamped to [0, total]); `tokens` generated so far where it applies. */
  update(done: number, total: number, text: string, tokens?: number): void;
  /** As `update`, never throttled: for a few reports each of which starts a part that may take long. */
  milestone(done: number, total: number, text: string): void;
  /** The activity is complete (reported as done = total). */
  finish(text?: string): void;
}

export class ProgressReporter {
  constructor(
    private readonly emit: (progress: TrainProgress) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly minIntervalMs = 100,
  ) {}

  begin(activity: TrainActivity, step: number, text: string, total = 1): ActivityProgress {
    const start = this.now();
    let last = -Infinity;
    let latest = { done: 0, total, text, tokens: undefined as number | undefined };
    const send = (force: boolean) => {
      const t = this.now();
      if (!force && t - last < this.minIntervalMs) return;
      last = t;
      const elapsedSeconds = (t - start) / 1000;
      const { done, total: n } = latest;
      const etaSeconds = done > 0 && n > 0 ? (elapsedSeconds * (n - done)) / done : done >= n ? 0 : null;
      this.emit({ activity, step, text: latest.text, done, total: n, elapsedSeconds, etaSeconds, ...(latest.tokens !== undefined && { tokens: latest.tokens }) });
    };
    send(true);
    return {
      update: (done, n, updatedText, tokens) => {
        latest = { done: Math.max(0, Math.min(done, n)), total: n, text: updatedText, tokens };
        send(false);
      },
      milestone: (done, n, updatedText) => {
        latest = { done: Math.max(0, Math.min(done, n)), total: n, text: updatedText, tokens: undefined };
        send(true);
      },
      finish: (finalText) => {
        latest = { ...latest, done: latest.total, text: finalText ?? latest.text };
        send(true);
      },
    };
  }
}

/** "45 s", "12 min", "3.5 h": a time as people say it (at least "1 s"). */
export function roughDuration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** "about 3 min left" / "about 40 s left"; '' when unknown. */
export function etaText(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '';
  if (seconds < 1) return 'less than a second left';
  return `about ${roughDuration(seconds)} left`;
}
