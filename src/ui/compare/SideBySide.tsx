/**
 * One question's two episodes side by side: A's steps on the left, B's on the right, aligned row by row (align.ts)
 * so the same action sits on one row and a step only one side took faces a gap. Rows that differ are marked, in
 * colour and in words. On a narrow window each row stacks A over B. Database content is rendered as text.
 */
import { useState } from 'react';
import type { SavedRun } from '../../eval/run-store.ts';
import type { EpisodeRecord, TranscriptStep } from '../../eval/transcript.ts';
import { RewardParts } from '../components/RewardParts.tsx';
import { StepAction, StepBody } from '../components/Transcript.tsx';
import { AdapterHeatmaps } from './AdapterHeatmap.tsx';
import { routeHash } from '../router.ts';
import { alignSteps, type AlignedKind } from './align.ts';
import { OUTCOME_LABELS, type QuestionComparison } from './outcome-matrix.ts';

const KIND_TEXT: Record<AlignedKind, string> = {
  same: 'same',
  changed: 'same action, different result',
  different: 'different actions',
  onlyA: 'only A took a step here',
  onlyB: 'only B took a step here',
};

function StepCell({ step, index, side, differs }: { step: TranscriptStep | null; index: number | null; side: 'A' | 'B'; differs: boolean }) {
  if (!step || index === null) {
    return (
      <div className="aligned-cell gap" role="cell">
        <span className="cell-side">{side}</span>
        <span className="meta">no step</span>
      </div>
    );
  }
  return (
    <div className={`aligned-cell step outcome-${step.outcome}${differs ? ' highlight' : ''}`} role="cell">
      <div className="step-head">
        <span className="cell-side">{side}</span>
        <span className="step-index">{index + 1}</span>
        <StepAction text={step.actionText} />
        <span className={`badge ${step.outcome}`}>{step.outcome}</span>
      </div>
      <StepBody step={step} />
      <RewardParts components={step.components} reward={step.reward} episodeReturn={step.episodeReturn} />
    </div>
  );
}

function ending(record: EpisodeRecord): string {
  const how = record.success ? 'solved' : record.truncated ? 'not solved: no steps left' : 'not solved: wrong answer';
  return `${how} · return ${record.episodeReturn.toFixed(3)} · ${record.steps} step${record.steps === 1 ? '' : 's'}`;
}

function EpisodePicker({ side, records, value, onChange, run }: { side: 'A' | 'B'; records: number[]; value: number; onChange: (i: number) => void; run: SavedRun }) {
  if (records.length < 2) return null;
  return (
    <label className="field">
      {side}&apos;s episode
      <select value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {records.map((r, i) => (
          <option key={r} value={i}>
            {`${i + 1} of ${records.length} (seed ${run.records[r].seed}, ${run.records[r].success ? 'solved' : 'not solved'})`}
          </option>
        ))}
      </select>
    </label>
  );
}

function watchLink(record: EpisodeRecord): string {
  return routeHash('watch', { dataset: record.dataset, policy: record.policy, q: record.questionId, seed: record.seed });
}

export function SideBySide({ row, runA, runB }: { row: QuestionComparison; runA: SavedRun; runB: SavedRun }) {
  const [pickA, setPickA] = useState(0);
  const [pickB, setPickB] = useState(0);
  const a = runA.records[row.a.records[Math.min(pickA, row.a.records.length - 1)]];
  const b = runB.records[row.b.records[Math.min(pickB, row.b.records.length - 1)]];
  const rows = alignSteps(a.transcript, b.transcript);
  const differing = rows.filter((r) => r.kind !== 'same').length;

  return (
    <section className="panel side-by-side" aria-labelledby="side-by-side-heading">
      <h3 id="side-by-side-heading">{row.question}</h3>
      <p className="meta">
        <code>{row.questionId}</code> · {row.dbId} · {row.difficulty} · {row.split} · <strong>{OUTCOME_LABELS[row.outcome]}</strong>
      </p>
      <div className="episode-pickers">
        <EpisodePicker side="A" records={row.a.records} value={pickA} onChange={setPickA} run={runA} />
        <EpisodePicker side="B" records={row.b.records} value={pickB} onChange={setPickB} run={runB} />
      </div>
      <p className="diff-summary" role="status">
        {differing === 0 ? 'The two episodes took the same steps with the same results.' : `${differing} of ${rows.length} aligned rows differ; they are marked.`}
      </p>
      <div className="aligned" role="table" aria-label="Steps of A and B, aligned">
        <div className="aligned-row aligned-head" role="row">
          {[
            { side: 'A', record: a },
            { side: 'B', record: b },
          ].map(({ side, record }) => (
            <div key={side} className={`aligned-cell side-summary ${record.success ? 'solved' : 'unsolved'}`} role="columnheader">
              <div className="side-title">
                <span className="cell-side always">{side}</span> <strong>{record.policy}</strong>
                <a className="watch-link" href={watchLink(record)} aria-label={`Replay ${side}'s episode in Watch`}>
                  Replay in Watch
                </a>
              </div>
              <div className="meta">{ending(record)}</div>
            </div>
          ))}
        </div>
        {rows.map((r, i) => (
          <div key={i} className={`aligned-row kind-${r.kind}`} role="row">
            {r.kind !== 'same' && (
              <div className="row-note" role="cell">
                <span aria-hidden="true">≠ </span>
                {KIND_TEXT[r.kind]}
              </div>
            )}
            <StepCell step={r.a === null ? null : a.transcript[r.a]} index={r.a} side="A" differs={r.kind !== 'same'} />
            <StepCell step={r.b === null ? null : b.transcript[r.b]} index={r.b} side="B" differs={r.kind !== 'same'} />
          </div>
        ))}
      </div>
      <AdapterHeatmaps sides={[{ side: 'A', record: a, settings: runA.summary.settings }, { side: 'B', record: b, settings: runB.summary.settings }]} />
    </section>
  );
}
