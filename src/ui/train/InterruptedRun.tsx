/**
 * The note about a run an earlier page left unfinished: what it was and where it stopped, what resuming does (load
 * the model again or ask for its folder, continue from the last checkpoint or start again), with Resume and Discard.
 * Shown above the run controls until the user chooses, or a run starts.
 */
import { useStore } from '../store/store.ts';
import { runActive } from '../store/train-slice.ts';
import { interruptedPlan } from './interrupted-plan.ts';

export function InterruptedRun() {
  const record = useStore((s) => s.interruptedRun);
  const loadedLabel = useStore((s) => (s.modelStatus === 'ready' ? (s.modelInfo?.label ?? null) : null));
  const busy = useStore((s) => runActive(s.trainRun) || s.modelStatus === 'loading');
  const resume = useStore((s) => s.resumeInterruptedRun);
  const discard = useStore((s) => s.discardInterruptedRun);
  if (!record) return null;
  const plan = interruptedPlan(record, loadedLabel);
  return (
    <section className="panel interrupted-run" aria-label="Interrupted run">
      <h3>Interrupted run</h3>
      <p>{plan.headline}</p>
      <p className="meta">{plan.detail}</p>
      <div className="button-row">
        <button type="button" disabled={!plan.canResume || busy} onClick={() => void resume()}>
          {plan.action}
        </button>
        <button type="button" disabled={busy} onClick={() => void discard()}>
          Discard
        </button>
      </div>
    </section>
  );
}
