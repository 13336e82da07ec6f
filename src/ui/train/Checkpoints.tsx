/**
 * The checkpoints the worker keeps in IndexedDB (every `checkpointEvery` steps), newest first: run, step reached,
 * algorithm, dataset, date and size, with Resume (after a reload too: the run continues exactly from that step, its
 * charts from its history) and Delete. Resuming needs the run's model loaded again, as training does.
 */
import { formatBytes } from '../../model/cache.ts';
import type { CheckpointInfo } from '../../workers/train-protocol.ts';
import { useStore } from '../store/store.ts';
import { runActive } from '../store/train-slice.ts';

function CheckpointItem({ checkpoint, canResume }: { checkpoint: CheckpointInfo; canResume: boolean }) {
  const resume = useStore((s) => s.resumeCheckpoint);
  const remove = useStore((s) => s.deleteCheckpoint);
  const c = checkpoint;
  return (
    <li className="train-item" aria-label={`Checkpoint of ${c.runId} at step ${c.step}`}>
      <div className="train-item-head">
        <span className="train-item-title">
          {c.config.algo === 'grpo' ? 'GRPO' : 'SFT'} · step {c.step} of {c.totalSteps}
        </span>
        <time className="meta" dateTime={new Date(c.savedAt).toISOString()}>
          {new Date(c.savedAt).toLocaleString()}
        </time>
      </div>
      <p className="train-item-figures">
        {c.runId} · {c.dataset} · {c.model} · {formatBytes(c.bytes)}
      </p>
      <div className="button-row">
        <button type="button" disabled={!canResume || c.step >= c.totalSteps} onClick={() => void resume(c)}>
          Resume
        </button>
        <button type="button" onClick={() => void remove(c.id)}>
          Delete
        </button>
      </div>
    </li>
  );
}

export function Checkpoints() {
  const checkpoints = useStore((s) => s.checkpoints);
  const canResume = useStore((s) => s.modelStatus === 'ready' && !runActive(s.trainRun));
  return (
    <section className="panel checkpoints" aria-label="Checkpoints">
      <h3>Checkpoints</h3>
      {checkpoints === null ? (
        <p className="meta">Reading…</p>
      ) : checkpoints.length === 0 ? (
        <p className="meta">None yet: a run saves one every few steps (Checkpoint every, in Advanced settings).</p>
      ) : (
        <ul className="train-list" aria-label="Checkpoint list">
          {checkpoints.map((c) => (
            <CheckpointItem key={c.id} checkpoint={c} canResume={canResume} />
          ))}
        </ul>
      )}
    </section>
  );
}
