/**
 * The run on screen: what it trains, its phase (loading, running, paused, stopped, finished, failed) with the
 * step in progress (run-headline.ts), what it is doing now (loading, evaluation, rollouts, update — down to the
 * forward or backward pass of a micro-batch — checkpoint) with a progress bar, the activity's clock (ticking between
 * reports) and estimate of the time left, and the run's time since Start; Pause / Resume / Stop — a click says
 * "Stopping…" / "Pausing…" at once and disables the buttons that no longer apply until the worker has done it — and
 * a failure said plainly — with, when the device ran out of memory, the smaller setting the worker suggests as a
 * one-click "apply" (it goes into the form; Start runs again with it).
 * A run started on this page is scrolled into view (the form above it can be long with Advanced settings open).
 */
import { useEffect, useRef, useState } from 'react';
import { etaText } from '../../train/progress.ts';
import type { TrainConfig, TrainProgress } from '../../train/types.ts';
import type { TrainPhase } from '../../workers/train-protocol.ts';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { useStore } from '../store/store.ts';
import { settingLabel } from './config-fields.ts';
import { activityClock, activityPercent, clockTicks, progressFigures, runHeadline } from './run-headline.ts';

/** `Date.now()`, read again every second while `ticking` (so a clock on screen moves between events). */
function useNowWhile(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now; // a stale value only means no time added yet (activityClock counts from the report's arrival)
}

/**
 * The activity in progress: its sentence, a bar, and its time spent and left (ticking between reports), then the
 * run's time since Start, which ticks on while the run lasts (paused too) and never restarts between activities.
 */
function ProgressLine({ progress, receivedAtMs, phase, startedAtMs }: { progress: TrainProgress; receivedAtMs: number; phase: TrainPhase; startedAtMs: number }) {
  const ticking = clockTicks(phase, progress);
  const now = useNowWhile(phase === 'running' || phase === 'loading' || phase === 'paused');
  const clock = activityClock(progress, receivedAtMs, now, ticking);
  const percent = activityPercent(progress);
  const eta = etaText(clock.etaSeconds);
  return (
    <div className="run-progress">
      <p role="status" aria-live="off" aria-label="Run activity" className="run-activity">
        {progress.text}
      </p>
      <progress aria-label="Run progress" max={Math.max(progress.total, 1e-9)} value={progress.done} aria-valuetext={`${percent}%${eta ? `, ${eta}` : ''}`} />
      <p className="meta">{progressFigures(progress, clock, Math.max(0, (now - startedAtMs) / 1000))}</p>
    </div>
  );
}

/** "Micro-batch tokens 512, Steps 10" for a suggested patch. */
function suggestionText(suggestion: Partial<TrainConfig>): string {
  return Object.entries(suggestion)
    .map(([key, value]) => `${settingLabel(key)} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(', ');
}

export function RunControls() {
  const run = useStore((s) => s.trainRun);
  const pause = useStore((s) => s.pauseTrainingRun);
  const resume = useStore((s) => s.resumeTrainingRun);
  const stop = useStore((s) => s.stopTrainingRun);
  const apply = useStore((s) => s.applyTrainSuggestion);
  const section = useRef<HTMLElement>(null);
  const key = run?.key;
  // A new run on screen: bring its card into view (Start sits at the bottom of a form that can be long).
  useEffect(() => {
    if (key !== undefined) section.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [key]);
  if (!run) return null;
  const { phase, error, pending, progress } = run;
  const live = phase === 'running' || phase === 'paused' || phase === 'loading' || phase === 'idle';
  const activityDone = progress !== null && progress.done >= progress.total;
  return (
    <section className="panel run-controls" aria-label="Training run" ref={section}>
      <h3>
        {run.algo === 'grpo' ? 'GRPO' : 'SFT'} on {run.dataset}
        {run.runId !== null && <span className="meta"> · {run.runId}</span>}
      </h3>
      <p role="status" aria-label="Training status" className={`train-status phase-${phase}`}>
        {runHeadline(run)}
      </p>
      {phase === 'loading' && run.loaded && progress === null && <progress aria-label="Loading progress" max={Math.max(run.loaded.total, 1)} value={run.loaded.loaded} />}
      {live && progress && !(phase === 'paused' && activityDone) && <ProgressLine progress={progress} receivedAtMs={run.progressAtMs} phase={phase} startedAtMs={run.startedAtMs} />}
      {live && (
        <div className="button-row">
          {phase === 'paused' ? (
            <button type="button" onClick={() => void resume()} disabled={pending !== null}>
              Resume
            </button>
          ) : (
            // The toy run (task 'reads') can be stopped, not paused (src/workers/train-reads-session.ts).
            <button type="button" onClick={() => void pause()} disabled={pending !== null || run.task === 'reads' || (phase !== 'running' && phase !== 'loading')}>
              Pause
            </button>
          )}
          <button type="button" onClick={() => void stop()} disabled={pending === 'stop'}>
            Stop
          </button>
        </div>
      )}
      {error && (
        <ErrorBox title="The training run failed" message={error.message}>
          {error.suggestion && (
            <p>
              <button type="button" onClick={apply}>
                Apply {suggestionText(error.suggestion)}
              </button>{' '}
              then start again.
            </p>
          )}
        </ErrorBox>
      )}
    </section>
  );
}
