/**
 * "What the adapter changed" for one episode of Compare's side-by-side: each reply token of the model, coloured by
 * how much a kept LoRA adapter moved its log-probability against the base model (blue: likelier, orange: less
 * likely), with the sum per action. Computed in the environment worker on the held model (explain-service.ts), on
 * request: scoring needs the GPU for a moment. A progress bar shows when it takes over a second; without a model, an
 * adapter or model replies the panel says what is missing instead.
 */
import { useEffect, useRef, useState } from 'react';
import type { EpisodeExplanation } from '../../eval/explain.ts';
import type { EpisodeRecord } from '../../eval/transcript.ts';
import type { ExplainProgress } from '../../workers/services/explain-service.ts';
import type { AdapterInfo } from '../../workers/train-protocol.ts';
import { callback, envClient } from '../../workers/env-client.ts';
import { useStore } from '../store/store.ts';
import { actionSummary, adapterOfPolicy, deltaColor, deltaScale, signedNats, tokenDescription, visibleToken } from './adapter-heatmap.ts';
import './adapter-heatmap.css';

/** Milliseconds before the progress bar shows (shorter work just shows its result). */
const PROGRESS_AFTER_MS = 1000;

type State =
  | { kind: 'idle' }
  | { kind: 'running'; progress: ExplainProgress | null; showBar: boolean }
  | { kind: 'done'; explanation: EpisodeExplanation; adapter: string }
  | { kind: 'error'; message: string };

export function AdapterHeatmapResult({ explanation, adapter }: { explanation: EpisodeExplanation; adapter: string }) {
  const scale = deltaScale(explanation.actions.flatMap((a) => a.tokens.map((t) => t.delta)));
  return (
    <div className="adapter-heatmap-result">
      <p className="meta" role="status">
        With the adapter <strong>{adapter}</strong>, this episode&apos;s {explanation.tokens} reply tokens moved {signedNats(explanation.delta)} nats in all (log p at temperature 1).
      </p>
      <p className="heatmap-legend meta" aria-hidden="true">
        <span className="swatch" style={{ background: deltaColor(scale, scale) }} /> likelier with the adapter{' '}
        <span className="swatch" style={{ background: deltaColor(-scale, scale) }} /> less likely (strongest colour: {scale.toFixed(2)} nats)
      </p>
      <ol className="heatmap-actions">
        {explanation.actions.map((a) => (
          <li key={a.step} className="heatmap-action">
            <div className="heatmap-action-head">
              <span className="step-index">{a.step + 1}</span> <code>{a.actionText}</code>
            </div>
            <div className="meta">{actionSummary(a)}</div>
            {a.recordedTokens !== null && <div className="meta">The model generated {a.recordedTokens} tokens; its text encodes to the {a.tokens.length} scored here.</div>}
            <p className="heatmap-tokens" aria-label={`Reply tokens of step ${a.step + 1}`}>
              {a.tokens.map((t, k) => (
                <span key={k} className="heatmap-token" style={{ background: deltaColor(t.delta, scale) }} title={tokenDescription(t)} aria-label={tokenDescription(t)}>
                  {visibleToken(t.text)}
                </span>
              ))}
            </p>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function AdapterHeatmap({ record, runSettings }: { record: EpisodeRecord; runSettings?: Record<string, string | number | boolean | null> }) {
  const modelInfo = useStore((s) => s.modelInfo);
  const [adapters, setAdapters] = useState<AdapterInfo[] | null>(null);
  const [chosen, setChosen] = useState<string>('');
  const [state, setState] = useState<State>({ kind: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const played = record.transcript.some((s) => s.rawText !== undefined);

  useEffect(() => {
    let live = true;
    envClient()
      .listAdapters()
      .then((list) => {
        if (!live) return;
        setAdapters(list);
        const own = adapterOfPolicy(record.policy);
        setChosen((c) => c || (own !== null && list.some((a) => a.id === own) ? own : (list[0]?.id ?? '')));
      })
      .catch(() => live && setAdapters([]));
    return () => {
      live = false;
    };
  }, [record.policy]);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const explain = async () => {
    setState({ kind: 'running', progress: null, showBar: false });
    timer.current = setTimeout(() => setState((s) => (s.kind === 'running' ? { ...s, showBar: true } : s)), PROGRESS_AFTER_MS);
    try {
      const explanation = await envClient().explainEpisode(
        { record, adapterId: chosen, ...(runSettings && { runSettings }) },
        callback((p: ExplainProgress) => setState((s) => (s.kind === 'running' ? { ...s, progress: p } : s))),
      );
      const name = adapters?.find((a) => a.id === chosen)?.name ?? chosen;
      setState({ kind: 'done', explanation, adapter: name });
    } catch (e) {
      setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    } finally {
      if (timer.current) clearTimeout(timer.current);
    }
  };

  let blocker: string | null = null;
  if (!played) blocker = `${record.policy} is not a language model: there are no model replies to explain.`;
  else if (!modelInfo) blocker = 'Load the base model this adapter was trained on (Watch → Model) to see what the adapter changed.';
  else if (adapters !== null && adapters.length === 0) blocker = 'No adapter is kept in this browser: train one (Train) or load PEFT files (Watch → Model) first.';

  return (
    <div className="adapter-heatmap" aria-label={`What the adapter changed in ${record.policy}'s episode`}>
      <div className="adapter-heatmap-controls">
        <strong>What the adapter changed</strong>
        {blocker === null && adapters !== null && (
          <>
            <label className="field">
              Adapter
              <select value={chosen} onChange={(e) => setChosen(e.target.value)}>
                {adapters.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => void explain()} disabled={state.kind === 'running' || chosen === ''}>
              Show base vs adapter
            </button>
          </>
        )}
      </div>
      {blocker !== null && <p className="meta">{blocker}</p>}
      {state.kind === 'running' && state.showBar && (
        <div role="status">
          {state.progress?.message ?? 'Starting'}…{' '}
          <progress aria-label="Explaining the replies" max={Math.max(1, state.progress?.total ?? 1)} value={state.progress ? state.progress.done : undefined} />
        </div>
      )}
      {state.kind === 'error' && (
        <p className="error-text" role="alert">
          {state.message}
        </p>
      )}
      {state.kind === 'done' && <AdapterHeatmapResult explanation={state.explanation} adapter={state.adapter} />}
    </div>
  );
}

/** A heat map for each side of a comparison whose episode a language model played (A first). */
export function AdapterHeatmaps({ sides }: { sides: ReadonlyArray<{ side: string; record: EpisodeRecord; settings?: Record<string, string | number | boolean | null> }> }) {
  const played = sides.filter((s) => s.record.transcript.some((step) => step.rawText !== undefined));
  if (played.length === 0) return null;
  return (
    <section className="adapter-heatmaps" aria-label="What the adapter changed">
      {played.map((s) => (
        <div key={s.side} className="adapter-heatmap-side">
          <span className="cell-side always">{s.side}</span>
          {/* Keyed by the episode: another episode starts from a fresh panel, not the last one's result. */}
          <AdapterHeatmap key={`${s.record.policy}|${s.record.questionId}|${s.record.seed}`} record={s.record} runSettings={s.settings} />
        </div>
      ))}
    </section>
  );
}
