/**
 * The run in progress: a progress bar, episodes done, time elapsed and an estimate of the time left from the pace
 * so far, and Cancel. The clock ticks twice a second so the estimate counts down between episodes.
 *
 * Within an episode (a model policy's episode may take minutes) the bar moves with the steps and tokens of the episode
 * in play, a line says which step is playing and, for a model policy, "Generating… N tokens"; until an episode has
 * finished, the time left is given as an upper bound from the pace of the steps (or tokens) so far.
 */
import { useEffect, useState } from 'react';
import { generatingText } from '../store/live-step.ts';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';
import { boundLeftMs, runFraction } from './episode-estimate.ts';
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
  const now = Math.max(useNow(progress !== null), progress?.updatedAt ?? 0, progress?.current?.updatedAt ?? 0);
  if (!progress) return null;
  const { done, total, startedAt, updatedAt, cancelling, current, episodeStartedAt } = progress;
  const left = total === null ? null : remainingMs(done, total, startedAt, updatedAt, now);
  const bound = done === 0 && total !== null && current && episodeStartedAt !== null ? boundLeftMs(total - done - 1, current, episodeStartedAt, now) : null;
  const generating = current ? generatingText(current) : null;
  return (
    <section className="panel run-progress" aria-label="Evaluation in progress">
      <h3>
        Evaluating {policyLabel(progress.policy)} on {progress.dataset}
      </h3>
      <progress aria-label="Evaluation progress" max={total ?? undefined} value={total === null ? undefined : runFraction(done, current)} />
      <p className="meta">
        <span role="status">{total === null ? 'Starting…' : `${done.toLocaleString('en-US')} of ${plural(total, 'episode')}${cancelling ? ', cancelling…' : ''}`}</span> · {duration(now - startedAt)} elapsed
        {left !== null && done < (total ?? 0) ? ` · about ${duration(left)} left` : ''}
        {left === null && bound !== null ? ` · at most about ${duration(bound)} left` : ''}
      </p>
      {current && total !== null && (
        <p className="meta" role="status" aria-label="Episode in play">
          Episode {Math.min(done + 1, total)}: step {current.step} of at most {current.budget}
          {generating !== null ? ` · ${generating}` : ''}
        </p>
      )}
      <button type="button" onClick={cancel} disabled={cancelling}>
        Cancel
      </button>
    </section>
  );
}
