/**
 * An episode's steps: the action, what the environment showed (result tables as tables, schemas as schemas, errors
 * as errors), the reward parts and the running return, and a policy's raw text behind a disclosure. Play, Watch,
 * Evaluate and Compare all render episodes with it. `highlight` marks steps (Compare's differences).
 */
import type { TranscriptStep } from '../../eval/transcript.ts';
import { ResultTable } from './ResultTable.tsx';
import { RewardParts } from './RewardParts.tsx';
import { TableSchema } from './TableSchema.tsx';

export function StepBody({ step }: { step: TranscriptStep }) {
  if (step.error !== undefined) return <p className="step-error">{step.error}</p>;
  if (step.table) return <TableSchema table={step.table} />;
  if (step.result) return <ResultTable columns={step.result.columns} rows={step.result.rows} totalRows={step.result.totalRows} />;
  // ANSWER steps and anything without structure: the observation's text, minus the echoed action line.
  return <pre className="observation">{step.observation.split('\n').slice(1).join('\n')}</pre>;
}

export interface TranscriptProps {
  steps: readonly TranscriptStep[];
  highlight?: ReadonlySet<number>;
  /** Accessible name of the list. */
  label?: string;
}

export function Transcript({ steps, highlight, label = 'Transcript' }: TranscriptProps) {
  if (steps.length === 0) return <p className="meta">No steps yet.</p>;
  return (
    <ol className="transcript" aria-label={label}>
      {steps.map((step, i) => (
        <li key={i} className={`step outcome-${step.outcome}${highlight?.has(i) ? ' highlight' : ''}`}>
          <div className="step-head">
            <span className="step-index">{i + 1}</span>
            <code className="step-action">{step.actionText}</code>
            <span className={`badge ${step.outcome}`}>{step.outcome}</span>
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
              <pre>{step.rawText}</pre>
            </details>
          )}
          <RewardParts components={step.components} reward={step.reward} episodeReturn={step.episodeReturn} />
        </li>
      ))}
    </ol>
  );
}
