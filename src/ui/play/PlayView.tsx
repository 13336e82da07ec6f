/**
 * The Play view: a person plays one episode by hand. Left, the workbench (question card, tables with Describe and
 * Sample, the SQL editor with Query, the answer); right, the episode (its outcome once over, then every step). On a
 * narrow window (a phone) they interleave: question, tables, editor, then the episode in a box of limited height,
 * then the answer, so a query's result shows right under the editor (play.css). A first-visit card sits on top until
 * it is closed (FirstVisitCard.tsx).
 *
 * The deep link `#/play?dataset=…&q=…&seed=…` and the episode are kept in step by `planLinkSync` (link.ts): a link
 * the view has not acted on starts its episode; an episode started from the buttons replaces the URL. Everything
 * that writes state is a named store action (play-slice.ts); components here select the smallest piece they need.
 */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { EpisodeOutcome } from '../components/EpisodeOutcome.tsx';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { QuestionCard } from '../components/QuestionCard.tsx';
import { Transcript } from '../components/Transcript.tsx';
import { navigate, useRoute } from '../router.ts';
import { useStore } from '../store/store.ts';
import { AnswerForm, QueryButton, StepStatus } from './ActionControls.tsx';
import { EMPTY_MEMO, linkParams, parsePlayLink, planLinkSync, type SyncMemo } from './link.ts';
import { FirstVisitCard } from './FirstVisitCard.tsx';
import { FreePlayCard } from './FreePlayCard.tsx';
import { NewEpisode } from './NewEpisode.tsx';
import { nextQuestion, questionLabel } from './questions.ts';
import { SchemaPanel } from './SchemaPanel.tsx';
import './play.css';

const SqlEditor = lazy(() => import('./SqlEditor.tsx'));

/** Keeps the URL and the episode in step (see link.ts). */
function useLinkSync(): void {
  const query = useRoute().params.toString();
  const header = useStore((s) => s.dataset);
  const link = parsePlayLink(new URLSearchParams(query));
  // A free-play link names its own dataset; the header's stays what Train, Evaluate and Watch use.
  const dataset = link.free && link.dataset !== null ? link.dataset : header;
  const datasetReady = useStore((s) => {
    const status = s.datasets[dataset]?.status;
    // A free-play file is found by the worker even before this page has listed it (a reload restores it).
    return link.free ? status !== 'loading' : status === 'ready';
  });
  const busy = useStore((s) => s.playBusy !== null);
  const epDataset = useStore((s) => s.playEpisode?.dataset);
  const epQuestion = useStore((s) => s.playEpisode?.question.id);
  const epSeed = useStore((s) => s.playEpisode?.seed);
  const epFree = useStore((s) => s.playEpisode?.question.freePlay === true);
  const start = useStore((s) => s.startPlayEpisode);
  const prefs = useStore((s) => s.playPrefs);
  const memo = useRef<SyncMemo>(EMPTY_MEMO);
  const lastHeader = useRef(header);

  useEffect(() => {
    if (busy || !datasetReady) return;
    const parsed = parsePlayLink(new URLSearchParams(query));
    // The header's picker changed during free play: leave free play for a question of the chosen dataset.
    if (header !== lastHeader.current) {
      lastHeader.current = header;
      if (parsed.free) {
        navigate('play', { dataset: header });
        return;
      }
    }
    const episode = epDataset !== undefined && epQuestion !== undefined && epSeed !== undefined ? { dataset: epDataset, questionId: epQuestion, seed: epSeed, ...(epFree && { free: true }) } : null;
    const plan = planLinkSync(parsed, dataset, episode, memo.current);
    memo.current = plan.memo;
    const { action } = plan;
    switch (action.kind) {
      case 'none':
        break;
      case 'start': {
        // A free-play file has one question, whatever the split and difficulty chosen for new episodes.
        const random = action.request.questionId === undefined && !parsed.free;
        void start({ ...action.request, ...(random && { split: prefs.split, ...(prefs.difficulty !== 'any' && { difficulty: prefs.difficulty }) }) });
        break;
      }
      case 'navigate':
        navigate('play', linkParams(action.link), { replace: true });
        break;
      default:
        action satisfies never;
    }
  }, [busy, datasetReady, query, dataset, header, epDataset, epQuestion, epSeed, epFree, start, prefs]);
}

function PlayProblem() {
  const problem = useStore((s) => s.playError);
  const dismiss = useStore((s) => s.dismissPlayError);
  if (!problem) return null;
  return (
    <ErrorBox title={problem.title} message={problem.message}>
      <p>{problem.hint}</p>
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
    </ErrorBox>
  );
}

function PlayQuestion() {
  const question = useStore((s) => s.playEpisode?.question);
  const dataset = useStore((s) => s.playEpisode?.dataset ?? '');
  const stepsLeft = useStore((s) => s.playEpisode?.stepsLeft ?? 0);
  const budget = useStore((s) => s.playEpisode?.budget ?? 0);
  if (!question) return null;
  if (question.freePlay) return <FreePlayCard question={question} dataset={dataset} stepsLeft={stepsLeft} budget={budget} />;
  return <QuestionCard question={question} stepsLeft={stepsLeft} budget={budget} />;
}

function EditorPanel() {
  const episodeId = useStore((s) => s.playEpisode?.id);
  const schemaError = useStore((s) => s.playSchema?.error);
  return (
    <section className="panel play-query" aria-labelledby="play-query-title">
      <h3 id="play-query-title">Query</h3>
      <Suspense fallback={<p className="meta play-editor-loading">Loading the editor…</p>}>
        <SqlEditor key={episodeId} />
      </Suspense>
      {schemaError && <p className="meta">Completion is off: the schema could not be read ({schemaError}).</p>}
      <QueryButton />
    </section>
  );
}

/**
 * "Next question" on the end card: the next question of the episode's dataset after this one that fits the split and
 * difficulty chosen for new episodes (questions.ts), so it is never this question again. None in free play.
 */
function NextQuestion() {
  const episode = useStore((s) => s.playEpisode);
  const entry = useStore((s) => (s.playEpisode ? s.datasets[s.playEpisode.dataset] : undefined));
  const prefs = useStore((s) => s.playPrefs);
  const busy = useStore((s) => s.playBusy !== null);
  const start = useStore((s) => s.startPlayEpisode);
  if (!episode || episode.question.freePlay || entry?.status !== 'ready') return null;
  const { questions } = entry.summary;
  // Another question of the chosen split and difficulty, else any other question of the dataset.
  const next = nextQuestion(questions, episode.question.id, prefs) ?? nextQuestion(questions, episode.question.id, { split: 'all', difficulty: 'any' });
  if (!next) return null;
  return (
    <div className="play-next">
      <button type="button" className="primary" aria-disabled={busy} onClick={() => void start({ dataset: episode.dataset, questionId: next.id })}>
        Next question
      </button>
      <span className="meta">{questionLabel(next, 60)}</span>
    </div>
  );
}

function PlayOutcome() {
  const done = useStore((s) => s.playEpisode?.done ?? false);
  const success = useStore((s) => s.playEpisode?.success ?? false);
  const truncated = useStore((s) => s.playEpisode?.truncated ?? false);
  const gold = useStore((s) => s.playEpisode?.gold ?? null);
  if (!done) return null;
  if (!gold) return <p className="meta">{success ? 'Success: the answer is correct.' : 'The episode is over.'} Loading the gold answer…</p>;
  return (
    <>
      <EpisodeOutcome success={success} truncated={truncated} question={gold} />
      <NextQuestion />
    </>
  );
}

/** The transcript, scrolled so the newest step is in view after each step. */
function PlayTranscript() {
  const steps = useStore((s) => s.playEpisode?.steps);
  const episodeReturn = useStore((s) => s.playEpisode?.episodeReturn ?? 0);
  const freePlay = useStore((s) => s.playEpisode?.question.freePlay === true);
  const box = useRef<HTMLDivElement>(null);
  const count = steps?.length ?? 0;
  useEffect(() => {
    if (count > 0) box.current?.querySelector('.transcript > li:last-child')?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [count]);
  if (!steps) return null;
  return (
    <div ref={box}>
      <div className="play-log-head">
        <h3 id="play-transcript-title">Transcript</h3>
        <span className="play-return">
          return <strong>{episodeReturn.toFixed(3)}</strong>
        </span>
      </div>
      <Transcript steps={steps} label="Transcript" freePlay={freePlay} />
    </div>
  );
}

export default function PlayView() {
  useLinkSync();
  const hasEpisode = useStore((s) => s.playEpisode !== null);
  const busy = useStore((s) => s.playBusy !== null);
  const failed = useStore((s) => s.playError !== null || s.datasets[s.dataset]?.status === 'error');
  return (
    <div className="play">
      <h2 className="play-sr-only">Play</h2>
      <FirstVisitCard />
      <NewEpisode />
      <PlayProblem />
      {hasEpisode ? (
        <div className="play-grid">
          <div className="play-bench" aria-busy={busy}>
            <PlayQuestion />
            <SchemaPanel />
            <EditorPanel />
            <section className="panel play-answer-panel" aria-label="Answer and status">
              <AnswerForm />
              <StepStatus />
            </section>
          </div>
          <section className="panel play-log" aria-label="Episode">
            <PlayOutcome />
            <PlayTranscript />
          </section>
        </div>
      ) : busy ? (
        <StepStatus />
      ) : (
        !failed && (
          <p className="meta" role="status">
            Loading the dataset…
          </p>
        )
      )}
    </div>
  );
}
