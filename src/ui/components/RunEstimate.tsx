/**
 * "Before you start": for a model policy, the estimate of a run's size and time on this device (run-estimate.ts)
 * and the model settings it will play with (model, decode weights, tokens per turn, temperature, top-p, thinking,
 * few-shot, LoRA adapter, GPU), where the run starts — Evaluate's form (`RunEstimate`) and Watch's setup
 * (`WatchRunEstimate`, one episode from the step it is at). Nothing is shown for Random or Oracle (instant) or when
 * no model is loaded.
 *
 * The speed is this page's measure of the loaded model (the store's `modelTurns`, filled by Evaluate runs and, here,
 * by the Watch steps that arrive while this is on screen), else the Train view's time plan.
 */
import { useEffect, useRef } from 'react';
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';
import { isSoftwareAdapter } from '../../gpu/adapter-probe.ts';
import type { LoadedModelInfo } from '../../workers/env-protocol.ts';
import { roughDuration } from '../../train/progress.ts';
import { estimateRun, measuredSpeed, planBasis, shapeText, timeText, type RunShape } from '../evaluate/run-estimate.ts';
import { modelKey } from '../store/evaluate-slice.ts';
import { isModelPolicy } from '../store/policy-choice.ts';
import { useStore } from '../store/store.ts';
import './run-estimate.css';

/** A bound past this many seconds gets a hint to shorten the run. */
const LONG_SECONDS = 30 * 60;

/** The settings a run of `policy` plays with, as label and value, from the loaded model. */
export function runSettings(info: LoadedModelInfo, policyLabel: string, policy: string): Array<[string, string]> {
  const s = info.settings;
  return [
    ['Policy', policyLabel],
    ['Model', `${info.label} (${info.layers} layers, hidden ${info.hidden})`],
    ['LoRA adapter', policy.startsWith('qwen+') ? policy.slice('qwen+'.length) : 'none (base model)'],
    ['Decode weights', info.weights],
    ['Tokens per turn', `at most ${s.maxNewTokens}`],
    ['Temperature', s.temperature === 0 ? '0 (greedy)' : String(s.temperature)],
    ['Top-p', String(s.topP)],
    ['Thinking', s.thinking ? 'on' : 'off'],
    ['Few-shot examples', String(info.shotsBuilt)],
    ['GPU adapter', info.adapter],
  ];
}

interface RunEstimateProps {
  policy: string;
  episodes: number;
  /** Most turns an episode plays (its step budget, or the steps an episode on screen has left). */
  turns?: number;
  /** What is about to run, for the heading line ("this evaluation"). */
  what: string;
  /** Settings folded away (Watch's narrow column, where the Model panel shows them too). */
  foldSettings?: boolean;
}

export function RunEstimate({ policy, episodes, turns = DEFAULT_ENV_CONFIG.budget, what, foldSettings = false }: RunEstimateProps) {
  const info = useStore((s) => s.modelInfo);
  const turnsPlayed = useStore((s) => s.modelTurns);
  const label = useStore((s) => s.policyInfos?.find((p) => p.name === policy)?.label ?? policy);
  if (!isModelPolicy(policy) || !info) return null;
  const shape: RunShape = { episodes, turns, tokensPerTurn: info.settings.maxNewTokens };
  const speed = turnsPlayed?.modelKey === modelKey(info) ? measuredSpeed(turnsPlayed.records) : null;
  const basis = speed ? { kind: 'measured' as const, speed } : planBasis(isSoftwareAdapter({ description: info.adapter }));
  const estimate = estimateRun(shape, info, basis);
  const settings = (
    <>
      <dl className="run-settings" aria-label="Model settings for this run">
        {runSettings(info, label, policy).map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="meta">Change them in Watch&apos;s Model panel (Apply settings).</p>
    </>
  );
  return (
    <section className="run-estimate" aria-label="Run estimate">
      <p>
        <strong>Before you start {what}:</strong> {shapeText(shape, estimate)}.
      </p>
      <p>{timeText(estimate)}</p>
      {estimate.seconds > LONG_SECONDS && (
        <p className="run-estimate-long">
          That could take {roughDuration(estimate.seconds)}: fewer episodes, or a lower token limit in Watch&apos;s Model panel, make it shorter.
        </p>
      )}
      {foldSettings ? (
        <details>
          <summary>Model settings for this run</summary>
          {settings}
        </details>
      ) : (
        settings
      )}
    </section>
  );
}

/**
 * Watch's estimate: the chosen policy's episode from where it stands (the steps it has left, or a whole budget
 * before one starts). It also measures the model's speed from the Watch steps that arrive while it is on screen
 * (steps already there may have been played by another model, so they are not counted).
 */
export function WatchRunEstimate() {
  const policy = useStore((s) => s.watchOptions.policy);
  const episode = useStore((s) => s.watchEpisode);
  const info = useStore((s) => s.modelInfo);
  const note = useStore((s) => s.noteModelTurns);
  const seen = useRef<{ key: number; steps: number } | null>(null);

  useEffect(() => {
    const previous = seen.current;
    seen.current = episode ? { key: episode.key, steps: episode.steps.length } : null;
    if (!episode || !info || previous?.key !== episode.key || !isModelPolicy(episode.policy)) return;
    note(modelKey(info), episode.steps.slice(previous.steps).flatMap((t) => (t.generation ? [t.generation] : [])));
  }, [episode, info, note]);

  const onScreen = episode !== null && episode.policy === policy && !episode.done;
  const turns = onScreen ? episode.stepsLeft : DEFAULT_ENV_CONFIG.budget;
  const what = onScreen && episode.steps.length > 0 ? 'the rest of this episode' : 'this episode';
  return <RunEstimate policy={policy} episodes={1} turns={turns} what={what} foldSettings />;
}
