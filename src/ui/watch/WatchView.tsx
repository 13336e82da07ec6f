/**
 * The Watch view: a policy (Random, Oracle, and model policies later, all from the worker's list) plays a question
 * step by step while a person watches — the same question card and transcript as Play, and the outcome at the end.
 *
 * Deep link: `#/watch?dataset=demo&policy=oracle&q=<question id>&seed=3` opens that episode (Evaluate links each
 * episode here, and the policy's generator is seeded as Evaluate seeds it, so it replays what Evaluate recorded).
 * The link follows the episode on screen and the policy chosen, so a reload or a shared link reopens the question
 * with the policy the form shows. Choosing a policy restarts the episode on screen with it (same question and seed;
 * the store's `applyPolicyToScreen`), so the link, the form and the transcript always name one policy.
 */
import { useEffect, useRef } from 'react';
import { EpisodeOutcome } from '../components/EpisodeOutcome.tsx';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { QuestionCard } from '../components/QuestionCard.tsx';
import { Transcript } from '../components/Transcript.tsx';
import { navigate, parseHash, routeHash, useRoute } from '../router.ts';
import { useStore } from '../store/store.ts';
import { EnginesPanel } from './EnginesPanel.tsx';
import { ModelPanel } from './ModelPanel.tsx';
import { PlaybackControls } from './PlaybackControls.tsx';
import { useWebGpuPresent } from './tjs-actions.ts';
import { TjsPanel } from './TjsPanel.tsx';
import { WatchSetup } from './WatchSetup.tsx';
import './watch.css';

/**
 * Opens the linked episode, and keeps the link in step with the episode on screen and the chosen policy. The link it
 * writes has no `dataset` (the shell would otherwise hold the dataset picker to it); an incoming link's `dataset` is
 * honoured. A link this hook wrote itself is not opened again (a policy chosen in the form restarts the episode in
 * the store). A link's policy that the form already holds is not passed on as a new choice: after a reload that
 * would forget the adapter Watch waits for (the link names Oracle, which plays while the adapter's model is away).
 */
function useEpisodeLink(): void {
  const { params } = useRoute();
  const linkedQuestion = params.get('q');
  const linkedPolicy = params.get('policy');
  const linkedSeed = params.get('seed');
  const linkedDataset = params.get('dataset');
  const key = useStore((s) => s.watchEpisode?.key);
  const chosenPolicy = useStore((s) => s.watchOptions.policy);
  const start = useStore((s) => s.startWatchEpisode);
  const written = useRef<string | null>(null);

  useEffect(() => {
    if (!linkedQuestion) return;
    if (written.current !== null && parseHash(written.current).params.toString() === new URLSearchParams(location.hash.split('?')[1] ?? '').toString()) return;
    const state = useStore.getState();
    const dataset = linkedDataset ?? state.dataset;
    const seed = linkedSeed !== null && /^\d+$/.test(linkedSeed) ? Number(linkedSeed) : undefined;
    const policy = linkedPolicy ?? state.watchOptions.policy;
    const current = state.watchEpisode;
    if (current && current.dataset === dataset && current.question.id === linkedQuestion && current.policy === policy && (seed === undefined || current.seed === seed)) return;
    void start(dataset, { mode: 'id', questionId: linkedQuestion, ...(policy !== state.watchOptions.policy && { policy }), ...(seed !== undefined && { seed }) });
  }, [linkedQuestion, linkedPolicy, linkedSeed, linkedDataset, start]);

  useEffect(() => {
    const episode = useStore.getState().watchEpisode;
    if (key === undefined || !episode) return;
    const params = { policy: chosenPolicy, q: episode.question.id, seed: episode.seed };
    written.current = routeHash('watch', params);
    navigate('watch', params, { replace: true });
  }, [key, chosenPolicy]);
}

/** A first episode when the view opens empty, and a fresh one when the dataset changes. */
function useAutoStart(dataset: string): void {
  const ready = useStore((s) => s.datasets[s.dataset]?.status === 'ready');
  const episodeDataset = useStore((s) => s.watchEpisode?.dataset ?? null);
  const setOptions = useStore((s) => s.setWatchOptions);
  const start = useStore((s) => s.startWatchEpisode);
  useEffect(() => {
    // Read at run time, not from the render: a link opened in the same commit has already set 'loading'.
    const state = useStore.getState();
    if (!ready || state.watchStatus === 'loading' || state.watchError !== null || episodeDataset === dataset) return;
    const entry = state.datasets[dataset];
    const questions = entry?.status === 'ready' ? entry.summary.questions : [];
    if (state.watchOptions.mode === 'id' && !questions.some((q) => q.id === state.watchOptions.questionId)) setOptions({ mode: 'random' });
    void start(dataset);
  }, [ready, episodeDataset, dataset, setOptions, start]);
}

function EpisodePanel() {
  const episode = useStore((s) => s.watchEpisode);
  const status = useStore((s) => s.watchStatus);
  const lastStep = useRef<HTMLDivElement>(null);
  const steps = episode?.steps.length ?? 0;

  useEffect(() => {
    // Keep the newest step in view while playing; a person who scrolled back while paused stays where they are.
    if (status === 'playing' && steps > 0) lastStep.current?.scrollIntoView({ block: 'nearest', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  }, [steps, status]);

  if (!episode) return status === 'loading' ? <p className="meta">Loading the episode…</p> : <p className="meta">Choose a policy and a question, then press New episode.</p>;
  return (
    <>
      <QuestionCard question={episode.question} stepsLeft={episode.stepsLeft} budget={episode.budget} />
      <section aria-label="Steps" className="watch-steps">
        <h3>
          Steps <span className="meta">({episode.policy}, seed {episode.seed})</span>
        </h3>
        <Transcript steps={episode.steps} label={`Transcript of ${episode.policy}`} />
        <div ref={lastStep} />
      </section>
      {episode.done && <EpisodeOutcome success={episode.success} truncated={episode.truncated} question={episode.question} />}
    </>
  );
}

export default function WatchView() {
  const dataset = useStore((s) => s.dataset);
  const error = useStore((s) => s.watchError);
  const loadPolicies = useStore((s) => s.loadPolicyInfos);
  const webGpu = useWebGpuPresent();
  useEpisodeLink();
  useAutoStart(dataset);

  useEffect(() => {
    void loadPolicies();
  }, [loadPolicies]);

  return (
    <div className="watch-view">
      <h2>Watch a policy play</h2>
      <div className="watch-layout">
        <div className="watch-side">
          <WatchSetup dataset={dataset} />
          <PlaybackControls />
          <ModelPanel webGpu={webGpu} />
          <TjsPanel webGpu={webGpu} />
          <EnginesPanel />
        </div>
        <div className="watch-main">
          {error !== null && <ErrorBox title="The episode could not be played" message={error} />}
          <EpisodePanel />
        </div>
      </div>
    </div>
  );
}
