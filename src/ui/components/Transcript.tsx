/**
 * An episode's steps: the action, what the environment showed (result tables as tables, schemas as schemas, errors
 * as errors), the reward parts and the running return, and a policy's raw text behind a disclosure. Play, Watch,
 * Evaluate and Compare all render episodes with it. `highlight` marks steps (Compare's differences).
 *
 * Everything here may carry database values or a model's text of any length, so every text goes through
 * `ClippedText` (action lines at `TEXT_CHARS.action`, text blocks at `TEXT_CHARS.block`) and tables cap themselves.
 */
import type { TranscriptStep } from '../../eval/transcript.ts';
import { TEXT_CHARS } from './cell-display.ts';
import { ClippedText } from './ClippedText.tsx';
import { InfoTip } from './InfoTip.tsx';
import { ResultTable } from './ResultTable.tsx';
import { RewardParts } from './RewardParts.tsx';
import { stepBadge } from './step-badge.ts';
import './step-badge.css';
import { TableSchema } from './TableSchema.tsx';
import { tip } from '../help/glossary.ts';

/** A step's action line (`QUERY …`), clipped: a query or a model's invalid output can be any length. */
export function StepAction({ text }: { text: string }) {
  return (
    <code className="step-action">
      <ClippedText text={text} max={TEXT_CHARS.action} />
    </code>
  );
}

/** A text block (an observation, a model's raw text), clipped. */
export function TextBlock({ text, className }: { text: string; className?: string }) {
  return (
    <pre className={className}>
      <ClippedText text={text} max={TEXT_CHARS.block} />
    </pre>
  );
}

export function StepBody({ step }: { step: TranscriptStep }) {
  if (step.error !== undefined)
    return (
      <p className="step-error">
        <ClippedText text={step.error} max={TEXT_CHARS.block} />
      </p>
    );
  if (step.table) return <TableSchema table={step.table} />;
  if (step.result) return <ResultTable columns={step.result.columns} rows={step.result.rows} totalRows={step.result.totalRows} />;
  // ANSWER steps and anything without structure: the observation's text, minus the echoed action line.
  const body = step.observation.slice(step.observation.indexOf('\n') + 1 || step.observation.length);
  return <TextBlock className="observation" text={body} />;
}

export interface TranscriptProps {
  steps: readonly TranscriptStep[];
  highlight?: ReadonlySet<number>;
  /** Accessible name of the list. */
  label?: string;
  /** The episode is free play (no gold answer): an ANSWER is "noted", not judged. */
  freePlay?: boolean;
}

/**
 * The step's badge and, behind a "?" button (not a `title`, which touch and keyboard users never see), what it means:
 * an ANSWER's badge says the verdict; the others keep the glossary's words on outcomes.
 */
function Badge({ step, number, freePlay }: { step: TranscriptStep; number: number; freePlay: boolean }) {
  const badge = stepBadge(step, freePlay);
  return (
    <>
      <span className={`badge ${badge.kind}`}>{badge.text}</span>
      <InfoTip topic={`step ${number}'s outcome`}>{step.action.type === 'ANSWER' ? badge.title : tip('outcome')}</InfoTip>
    </>
  );
}

export function Transcript({ steps, highlight, label = 'Transcript', freePlay = false }: TranscriptProps) {
  if (steps.length === 0) return <p className="meta">No steps yet.</p>;
  return (
    <ol className="transcript" aria-label={label}>
      {steps.map((step, i) => (
        <li key={i} className={`step outcome-${step.outcome}${highlight?.has(i) ? ' highlight' : ''}`}>
          <div className="step-head">
            <span className="step-index">{i + 1}</span>
            <StepAction text={step.actionText} />
            <Badge step={step} number={i + 1} freePlay={freePlay} />
          </div>
          <StepBody step={step} />
          {step.rawText !== undefined && (
            <details className="raw-text">
              <summary>
                Model text
                {step.generation && (
                  <span className="meta">
                    {' '}
                    ({step.generation.newTokens} tokens, {step.generation.tokensPerSecond.toFixed(1)} tokens/s overall
                    {step.generation.promptTokens !== undefined && `; prompt ${step.generation.promptTokens} tokens`}
                    {step.generation.prefillTokensPerSecond !== undefined && `, prefill ${step.generation.prefillTokensPerSecond.toFixed(1)} tokens/s`}
                    {step.generation.decodeTokensPerSecond !== undefined && `; decode ${step.generation.decodeTokensPerSecond.toFixed(1)} tokens/s`}
                    {step.generation.cutByLimit ? '; cut at the token limit' : ''})
                  </span>
                )}
              </summary>
              <TextBlock text={step.rawText} />
            </details>
          )}
          <RewardParts components={step.components} reward={step.reward} episodeReturn={step.episodeReturn} />
        </li>
      ))}
    </ol>
  );
}
