/**
 * One episode of a run in a modal dialog: the question, the transcript (the same component as Play and Watch) and
 * the outcome with the gold answer. The gold answer is not part of the record, so it is read from the dataset
 * through the worker; when that dataset is gone, the outcome is said without it.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { Question } from '../../data/types.ts';
import type { EpisodeRecord } from '../../eval/transcript.ts';
import { envClient } from '../../workers/env-client.ts';
import { EpisodeOutcome } from '../components/EpisodeOutcome.tsx';
import { Transcript } from '../components/Transcript.tsx';
import { routeHash } from '../router.ts';
import { fixed } from './figures.ts';

function useQuestion(dataset: string, questionId: string): Question | null | 'missing' {
  const [question, setQuestion] = useState<Question | null | 'missing'>(null);
  useEffect(() => {
    let live = true;
    envClient()
      .question(dataset, questionId)
      .then((q) => live && setQuestion(q))
      .catch(() => live && setQuestion('missing'));
    return () => {
      live = false;
    };
  }, [dataset, questionId]);
  return question;
}

export function EpisodeDialog({ record, index, onClose }: { record: EpisodeRecord; index: number; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const question = useQuestion(record.dataset, record.questionId);

  useEffect(() => {
    // Modal: focus moves in, the page behind is inert, Escape closes. Unmounting removes it, which ends the modal.
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  return (
    <dialog ref={dialog} className="episode-dialog" aria-labelledby={titleId} onClose={onClose}>
      <div className="dialog-head">
        <h3 id={titleId}>
          Episode {index + 1}: {record.policy} on {record.questionId}
        </h3>
        <button type="button" onClick={() => dialog.current?.close()} autoFocus>
          Close
        </button>
      </div>
      <section className="panel question-card" aria-label="Question">
        <p className="question-text">{record.question}</p>
        <p className="meta">
          {record.dbId} · <span className={`difficulty ${record.difficulty}`}>{record.difficulty}</span> · {record.split} · seed {record.seed} · return{' '}
          {fixed(record.episodeReturn)} in {record.steps} step{record.steps === 1 ? '' : 's'} ·{' '}
          <a href={routeHash('watch', { dataset: record.dataset, policy: record.policy, q: record.questionId, seed: record.seed })}>watch it again</a>
        </p>
      </section>
      <Transcript steps={record.transcript} label={`Transcript of episode ${index + 1}`} />
      {question === null ? (
        <p className="meta">Reading the gold answer…</p>
      ) : question === 'missing' ? (
        <p className={`panel verdict-line ${record.success ? 'good' : 'bad'}`} role="status">
          {record.success ? 'Success: the answer was correct.' : 'Failure.'} (The {record.dataset} dataset is not loaded, so the gold answer cannot be shown.)
        </p>
      ) : (
        <EpisodeOutcome success={record.success} truncated={record.truncated} question={question} />
      )}
    </dialog>
  );
}
