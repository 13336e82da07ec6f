/**
 * Playback of the watched episode: Play / Pause, Step (one policy step while paused) and the speed (the pause
 * between two steps while playing). The status line says where the episode stands, for screen readers too; while a
 * step runs it says so, and a model policy's step shows "Generating… N tokens" as the worker streams them.
 */
import { generatingText } from '../store/live-step.ts';
import { useStore } from '../store/store.ts';

/** Pauses between steps, in milliseconds, with what a person reads. */
const SPEEDS: ReadonlyArray<{ delayMs: number; label: string }> = [
  { delayMs: 2000, label: 'Slow (a step every 2 s)' },
  { delayMs: 700, label: 'Normal (a step every 0.7 s)' },
  { delayMs: 200, label: 'Fast (5 steps a second)' },
  { delayMs: 0, label: 'Instant' },
];

function statusText(status: string, busy: boolean, played: number, budget: number, success: boolean, truncated: boolean): string {
  if (busy && (status === 'paused' || status === 'playing')) return `Playing step ${played + 1} of ${budget}…`;
  switch (status) {
    case 'loading':
      return 'Loading the episode…';
    case 'playing':
      return `Playing: ${played} of ${budget} steps played.`;
    case 'paused':
      return played === 0 ? 'Ready: press Play or Step.' : `Paused: ${played} of ${budget} steps played.`;
    case 'done':
      return `Episode over after ${played} step${played === 1 ? '' : 's'}: ${success ? 'success' : truncated ? 'failure (budget spent)' : 'failure'}.`;
    default:
      return 'No episode yet.';
  }
}

export function PlaybackControls() {
  const status = useStore((s) => s.watchStatus);
  const busy = useStore((s) => s.watchBusy);
  const live = useStore((s) => s.watchLive);
  const played = useStore((s) => s.watchEpisode?.steps.length ?? 0);
  const budget = useStore((s) => s.watchEpisode?.budget ?? 0);
  const success = useStore((s) => s.watchEpisode?.success ?? false);
  const truncated = useStore((s) => s.watchEpisode?.truncated ?? false);
  const delayMs = useStore((s) => s.watchOptions.delayMs);
  const setOptions = useStore((s) => s.setWatchOptions);
  const play = useStore((s) => s.watchPlay);
  const pause = useStore((s) => s.watchPause);
  const step = useStore((s) => s.watchStep);
  const playing = status === 'playing';

  return (
    <section className="panel playback" aria-label="Playback">
      <div className="button-row">
        {playing ? (
          <button type="button" className="primary" onClick={pause}>
            Pause
          </button>
        ) : (
          <button type="button" className="primary" onClick={() => void play()} disabled={status !== 'paused' || busy}>
            Play
          </button>
        )}
        <button type="button" onClick={() => void step()} disabled={status !== 'paused' || busy}>
          Step
        </button>
      </div>
      <label className="field">
        Speed
        <select value={delayMs} onChange={(e) => setOptions({ delayMs: Number(e.target.value) })}>
          {SPEEDS.map((s) => (
            <option key={s.delayMs} value={s.delayMs}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      <p className="meta" role="status">
        {statusText(status, busy, played, budget, success, truncated)}
      </p>
      {busy && live?.turn && (
        <div className="generating" role="status" aria-label="Generating">
          <progress aria-label="Tokens generated" max={live.turn.maxNewTokens} value={live.turn.newTokens} />
          <p className="meta">{generatingText(live)}</p>
        </div>
      )}
    </section>
  );
}
