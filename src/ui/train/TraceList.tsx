/**
 * The run's execution traces (one every `traceEvery` steps), newest first and open: the question, then each action
 * as the environment parsed it with its outcome, the observation, the reward parts, and the model's raw text behind
 * a disclosure; whether the episode ended correct. The step rows use the transcript's look (Transcript.tsx), but a
 * trace carries the canonical action text rather than a parsed action, so it renders its own rows.
 */
import type { TraceAction, TraceEntry } from '../../train/types.ts';
import { RewardParts } from '../components/RewardParts.tsx';
import { StepAction, TextBlock } from '../components/Transcript.tsx';
import { useStore } from '../store/store.ts';

function ActionRow({ action, index, episodeReturn }: { action: TraceAction; index: number; episodeReturn: number }) {
  return (
    <li className={`step outcome-${action.outcome}`}>
      <div className="step-head">
        <span className="step-index">{index + 1}</span>
        <StepAction text={action.action} />
        <span className={`badge ${action.outcome}`}>{action.outcome}</span>
      </div>
      <TextBlock className="observation" text={action.observation} />
      <details className="raw-text">
        <summary>Model text</summary>
        <TextBlock text={action.rawText} />
      </details>
      <RewardParts components={action.components} reward={action.reward} episodeReturn={episodeReturn} />
    </li>
  );
}

/** The return after each action (the running sum of rewards). */
function runningReturns(actions: readonly TraceAction[]): number[] {
  const out: number[] = [];
  for (const a of actions) out.push((out.at(-1) ?? 0) + a.reward);
  return out;
}

function Trace({ trace, open }: { trace: TraceEntry; open: boolean }) {
  const returns = runningReturns(trace.actions);
  return (
    <details className={`trace ${trace.correct ? 'success' : 'failure'}`} open={open}>
      <summary>
        Step {trace.step}: {trace.correct ? 'correct' : 'not correct'}, reward {trace.reward.toFixed(3)}, {trace.actions.length} action{trace.actions.length === 1 ? '' : 's'} · {trace.dbId}
      </summary>
      <p className="question-text">{trace.question}</p>
      <p className="meta">
        {trace.questionId} on {trace.dbId}
      </p>
      <ol className="transcript" aria-label={`Actions of step ${trace.step}`}>
        {trace.actions.map((a, i) => (
          <ActionRow key={i} action={a} index={i} episodeReturn={returns[i]} />
        ))}
      </ol>
    </details>
  );
}

export function TraceList() {
  const traces = useStore((s) => s.trainRun?.traces);
  if (!traces) return null;
  return (
    <section className="panel traces" aria-label="Execution traces">
      <h3>Execution traces</h3>
      {traces.length === 0 ? (
        <p className="meta">A trace of one episode appears every few steps (Trace every, in Advanced settings).</p>
      ) : (
        traces.map((t, i) => <Trace key={`${t.step}-${t.questionId}`} trace={t} open={i === 0} />)
      )}
    </section>
  );
}
