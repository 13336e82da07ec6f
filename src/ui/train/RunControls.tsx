/**
 * The run on screen: what it trains, its phase (loading, running, paused, stopped, finished, failed) with the
 * step reached, Pause / Resume / Stop, and a failure said plainly — with, when the device ran out of memory, the
 * smaller setting the worker suggests as a one-click "apply" (it goes into the form; Start runs again with it).
 */
import type { TrainConfig } from '../../train/types.ts';
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

function statusText(run: TrainRunView): string {
  const step = run.metrics.at(-1)?.step ?? 0;
  const progress = run.loaded && run.loaded.total > 0 ? ` (${Math.round((run.loaded.loaded / run.loaded.total) * 100)}%)` : '';
  const message = run.phaseMessage ? ` — ${run.phaseMessage}` : '';
  return `${PHASE_TEXT[run.phase]}${progress}: step ${step} of ${run.totalSteps}${message}`;
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
  const { phase, error } = run;
  const live = phase === 'running' || phase === 'paused' || phase === 'loading' || phase === 'idle';
  return (
    <section className="panel run-controls" aria-label="Training run">
      <h3>
        {run.algo === 'grpo' ? 'GRPO' : 'SFT'} on {run.dataset}
        {run.runId !== null && <span className="meta"> · {run.runId}</span>}
      </h3>
      <p role="status" aria-label="Training status" className={`train-status phase-${phase}`}>
        {statusText(run)}
      </p>
      {phase === 'loading' && run.loaded && <progress aria-label="Loading progress" max={Math.max(run.loaded.total, 1)} value={run.loaded.loaded} />}
      {live && (
        <div className="button-row">
          {phase === 'paused' ? (
            <button type="button" onClick={() => void resume()}>
              Resume
            </button>
          ) : (
            <button type="button" onClick={() => void pause()} disabled={phase !== 'running' && phase !== 'loading'}>
              Pause
            </button>
          )}
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        </div>
      )}
      {phase === 'paused' && <p className="meta">Paused between steps; Resume continues with the next one.</p>}
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
