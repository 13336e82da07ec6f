/**
 * The Query button (under the editor), the answer form (a multi-line box that reads pasted tables), and the step
 * status line. Buttons that cannot act now are
 * `aria-disabled` rather than `disabled`, so keyboard focus stays on them while a step runs; the store ignores
 * them anyway (`playBusy` is the lock).
 */
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { useStore } from '../store/store.ts';
import { AnswerPreview, InlineAnswerPreview } from './AnswerPreview.tsx';
import { InfoTip } from '../components/InfoTip.tsx';
import { tip } from '../help/glossary.ts';
import { readAnswer, seenColumns } from './answer-table.ts';

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
      <InfoTip topic="Query">{tip('query')}</InfoTip>
    </div>
  );
}

/** Rows the answer box grows to before it scrolls. */
const MAX_ANSWER_ROWS = 10;

function lineCount(text: string, max: number): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines < max; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/**
 * The answer box: several lines, so a pasted table keeps its rows. Enter answers and Shift+Enter starts a new line
 * (as in a chat box), Ctrl/Cmd+Enter answers too; a paste brings its lines in whole. A table is shown as it was
 * read (AnswerPreview) before it is sent, and a one-line list or JSON as the environment will read it.
 */
export function AnswerForm() {
  const answer = useStore((s) => s.playAnswer);
  const headerChoice = useStore((s) => s.playAnswerHeader);
  const setAnswer = useStore((s) => s.setPlayAnswer);
  const setHeader = useStore((s) => s.setPlayAnswerHeader);
  const submit = useStore((s) => s.playSubmitAnswer);
  const steps = useStore((s) => s.playEpisode?.steps);
  const over = useStore((s) => !s.playEpisode || s.playEpisode.done);
  const busy = useStore((s) => s.playBusy !== null);
  const deferred = useDeferredValue(answer);
  const known = useMemo(() => seenColumns(steps ?? []), [steps]);
  const reading = useMemo(() => readAnswer(deferred, { header: headerChoice, knownColumns: known }), [deferred, headerChoice, known]);
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
      <textarea
        id="play-answer-input"
        autoComplete="off"
        spellCheck={false}
        rows={Math.max(2, lineCount(answer, MAX_ANSWER_ROWS))}
        value={answer}
        readOnly={over}
        onChange={(e) => setAnswer(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.nativeEvent.isComposing) return;
          e.preventDefault();
          e.currentTarget.form?.requestSubmit();
        }}
        placeholder={'42 · Rex, Tom · or paste a table:\nRex\t3\nTom\t5'}
        aria-describedby="play-answer-help"
        aria-keyshortcuts="Enter Shift+Enter"
      />
      <button type="submit" className="primary" aria-disabled={blocked}>
        Answer
      </button>
      <p id="play-answer-help" className="meta">
        A value (<code>42</code>), a list (<code>Rex, Tom</code>) or rows: paste a table (tab-, <code>|</code>- or comma-separated, or markdown) or type JSON rows (
        <code>[["Rex", 3], ["Tom", 5]]</code>). <kbd>Enter</kbd> answers, <kbd>Shift</kbd>+<kbd>Enter</kbd> starts a new line. Case, spacing and 1 vs 1.0 do not
        matter; answering ends the episode.
      </p>
      {reading.kind === 'table' && !over && <AnswerPreview reading={reading} onHeader={setHeader} />}
      {reading.kind === 'as-is' && reading.why !== 'too-long' && !over && <InlineAnswerPreview answer={reading.answer} />}
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
