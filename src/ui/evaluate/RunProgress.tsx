/**
 * The run in progress: a progress bar, episodes done, time elapsed and an estimate of the time left from the pace
 * so far, and Cancel. The clock ticks twice a second so the estimate counts down between episodes.
 */
import { useEffect, useState } from 'react';
import { useStore } from '../store/store.ts';
import { duration, remainingMs } from './figures.ts';
import { usePolicyLabel } from './usePolicyLabel.ts';

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(performance.now()), 500);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

export function RunProgress() {
  const progress = useStore((s) => s.evalProgress);
  const cancel = useStore((s) => s.cancelEvaluation);
  const policyLabel = usePolicyLabel();
  const now = Math.max(useNow(progress !== null), progress?.updatedAt ?? 0);
  if (!progress) return null;
  const { done, total, startedAt, updatedAt, cancelling } = progress;
  const left = total === null ? null : remainingMs(done, total, startedAt, updatedAt, now);
  return (
    <section className="panel run-progress" aria-label="Evaluation in progress">
      <h3>
        Evaluating {policyLabel(progress.policy)} on {progress.dataset}
      </h3>
      <progress aria-label="Evaluation progress" max={total ?? undefined} value={total === null ? undefined : done} />
      <p className="meta">
        <span role="status">{total === null ? 'Starting…' : `${done} of ${total} episodes${cancelling ? ', cancelling…' : ''}`}</span> · {duration(now - startedAt)} elapsed
        {left !== null && done < (total ?? 0) ? ` · about ${duration(left)} left` : ''}
      </p>
      <button type="button" onClick={cancel} disabled={cancelling}>
        Cancel
      </button>
    </section>
  );
}
