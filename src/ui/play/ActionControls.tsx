/**
 * The Query button (under the editor), the answer form, and the step status line. Buttons that cannot act now are
 * `aria-disabled` rather than `disabled`, so keyboard focus stays on them while a step runs; the store ignores
 * them anyway (`playBusy` is the lock).
 */
import { useEffect, useState } from 'react';
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { useStore } from '../store/store.ts';

const IS_MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent);

export function QueryButton() {
  const blocked = useStore((s) => s.playBusy !== null || !s.playEpisode || s.playEpisode.done || s.playSql.trim() === '');
  const query = useStore((s) => s.playQuery);
  return (
    <div className="play-buttons">
      <button type="button" className="primary" aria-disabled={blocked} aria-keyshortcuts="Control+Enter Meta+Enter" onClick={() => void query()}>
        Query
      </button>
      <span className="meta">
        or <kbd>{IS_MAC ? '⌘' : 'Ctrl'}</kbd>+<kbd>Enter</kbd> in the editor
      </span>
    </div>
  );
}

export function AnswerForm() {
  const answer = useStore((s) => s.playAnswer);
  const setAnswer = useStore((s) => s.setPlayAnswer);
  const submit = useStore((s) => s.playSubmitAnswer);
  const over = useStore((s) => !s.playEpisode || s.playEpisode.done);
  const busy = useStore((s) => s.playBusy !== null);
  const blocked = busy || over || answer.trim() === '';
  return (
    <form
      className="play-answer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="play-answer-input" className="play-answer-label">
        Answer
      </label>
      <input
        id="play-answer-input"
        type="text"
        autoComplete="off"
        spellCheck={false}
        value={answer}
        readOnly={over}
        onChange={(e) => setAnswer(e.target.value)}
        placeholder='42 · ["a", "b"] · [[1, "x"]]'
        aria-describedby="play-answer-help"
      />
      <button type="submit" className="primary" aria-disabled={blocked}>
        Answer
      </button>
      <p id="play-answer-help" className="meta">
        A value, a list or rows; ends the episode. Case, spacing and 1 vs 1.0 do not matter.
      </p>
    </form>
  );
}

/** Seconds since `since`, refreshed while mounted (the busy line only). */
function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  return <span aria-hidden="true">{(Math.max(0, now - since) / 1000).toFixed(1)} s</span>;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
}

/** What is happening: the step in flight (with its clock), else what the last step did. A live region. */
export function StepStatus() {
  const busy = useStore((s) => s.playBusy);
  const last = useStore((s) => s.playEpisode?.steps.at(-1));
  const count = useStore((s) => s.playEpisode?.steps.length ?? 0);
  const done = useStore((s) => s.playEpisode?.done ?? false);
  const success = useStore((s) => s.playEpisode?.success ?? false);
  const episodeReturn = useStore((s) => s.playEpisode?.episodeReturn ?? 0);
  const freePlay = useStore((s) => s.playEpisode?.question.freePlay === true);
  let text: React.ReactNode = 'Explore the tables, query, then answer.';
  if (busy?.kind === 'starting') text = 'Starting an episode…';
  else if (busy?.kind === 'step')
    text = (
      <>
        Running {busy.action}…{' '}
        {busy.action === 'QUERY' && (
          <span className="meta">
            <Elapsed since={busy.since} /> (time limit {DEFAULT_ENV_CONFIG.queryTimeoutMs / 1000} s)
          </span>
        )}
      </>
    );
  else if (last) {
    const verdict = freePlay ? 'free play, no gold answer' : success ? 'success' : 'failure';
    const ending = done ? ` Episode over: ${verdict}, return ${episodeReturn.toFixed(3)}.` : '';
    text = `Step ${count}: ${last.action.type} — ${last.outcome}, reward ${signed(last.reward)}.${ending}`;
  }
  return (
    <p className={`play-status${busy ? ' busy' : ''}`} role="status">
      {busy && <span className="play-spinner" aria-hidden="true" />}
      {text}
    </p>
  );
}
