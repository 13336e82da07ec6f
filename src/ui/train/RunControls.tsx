/**
 * The run on screen: what it trains, its phase (loading, running, paused, stopped, finished, failed) with the
 * step reached, what it is doing now (loading, evaluation, rollouts, update, checkpoint) with a progress bar and an
 * estimate of the time left, Pause / Resume / Stop — a click says "Stopping…" / "Pausing…" at once and disables the
 * buttons that no longer apply until the worker has done it — and a failure said plainly — with, when the device ran out of memory, the
 * smaller setting the worker suggests as a one-click "apply" (it goes into the form; Start runs again with it).
 */
import { etaText } from '../../train/progress.ts';
import type { TrainConfig, TrainProgress } from '../../train/types.ts';
import type { TrainPhase } from '../../workers/train-protocol.ts';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { useStore } from '../store/store.ts';
import type { TrainRunView } from '../store/train-slice.ts';
import { settingLabel } from './config-fields.ts';

const PHASE_TEXT: Record<TrainPhase, string> = {
  loading: 'Loading',
  idle: 'Starting',
  running: 'Running',
  paused: 'Paused',
  stopped: 'Stopped',
  finished: 'Finished',
  failed: 'Failed',
};

const PENDING_TEXT: Record<NonNullable<TrainRunView['pending']>, string> = {
  stop: 'Stopping…',
  pause: 'Pausing…',
  resume: 'Resuming…',
};

function statusText(run: TrainRunView): string {
  const step = run.metrics.at(-1)?.step ?? 0;
  if (run.pending) return `${PENDING_TEXT[run.pending]} step ${step} of ${run.totalSteps}`;
  const progress = run.loaded && run.loaded.total > 0 ? ` (${Math.round((run.loaded.loaded / run.loaded.total) * 100)}%)` : '';
  const message = run.phaseMessage ? ` — ${run.phaseMessage}` : '';
  return `${PHASE_TEXT[run.phase]}${progress}: step ${step} of ${run.totalSteps}${message}`;
}

/** The activity in progress: its sentence, a bar, and the time spent and left. */
function ProgressLine({ progress }: { progress: TrainProgress }) {
  const percent = progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0;
  const eta = etaText(progress.etaSeconds);
  return (
    <div className="run-progress">
      <p role="status" aria-live="off" aria-label="Run activity" className="run-activity">
        {progress.text}
      </p>
      <progress aria-label="Run progress" max={Math.max(progress.total, 1e-9)} value={progress.done} aria-valuetext={`${percent}%${eta ? `, ${eta}` : ''}`} />
      <p className="meta">
        {percent}% · {Math.round(progress.elapsedSeconds)} s so far{eta ? ` · ${eta}` : ''}
      </p>
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
  if (!run) return null;
  const { phase, error, pending, progress } = run;
  const live = phase === 'running' || phase === 'paused' || phase === 'loading' || phase === 'idle';
  const activityDone = progress !== null && progress.done >= progress.total;
  return (
    <section className="panel run-controls" aria-label="Training run">
      <h3>
        {run.algo === 'grpo' ? 'GRPO' : 'SFT'} on {run.dataset}
        {run.runId !== null && <span className="meta"> · {run.runId}</span>}
      </h3>
      <p role="status" aria-label="Training status" className={`train-status phase-${phase}`}>
        {statusText(run)}
      </p>
      {phase === 'loading' && run.loaded && progress === null && <progress aria-label="Loading progress" max={Math.max(run.loaded.total, 1)} value={run.loaded.loaded} />}
      {live && progress && !(phase === 'paused' && activityDone) && <ProgressLine progress={progress} />}
      {live && (
        <div className="button-row">
          {phase === 'paused' ? (
            <button type="button" onClick={() => void resume()} disabled={pending !== null}>
              Resume
            </button>
          ) : (
            <button type="button" onClick={() => void pause()} disabled={pending !== null || (phase !== 'running' && phase !== 'loading')}>
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
