/**
 * The Compare view: two saved evaluation runs (A and B, say Random and Oracle now, base and trained Qwen later),
 * whether their difference is more than chance (PairedSummary.tsx), their per-question outcome matrix with counts
 * and filters, and for any question the two transcripts side by side, aligned step by step with the differences
 * marked. Runs come from IndexedDB (the Evaluate view saves them, and run files imported here or there); the link
 * names the two runs and the open question (useCompareLink.ts); the matrix is derived here from the two runs
 * (outcome-matrix.ts), never stored.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { routeHash } from '../router.ts';
import { useStore } from '../store/store.ts';
import { CompareFilters } from './CompareFilters.tsx';
import { compareRuns, countsOf, databasesOf, filterRows } from './outcome-matrix.ts';
import { OutcomeMatrix } from './OutcomeMatrix.tsx';
import { PairedSummary } from './PairedSummary.tsx';
import { useCompareLink } from './useCompareLink.ts';
import { ImportRun } from '../evaluate/ImportRun.tsx';
import type { ImportedRun } from '../evaluate/run-import.ts';
import { QuestionList } from './QuestionList.tsx';
import { RunPickers } from './RunPickers.tsx';
import { SideBySide } from './SideBySide.tsx';
import './compare.css';

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function Comparison() {
  const runA = useStore((s) => s.compareRuns.a);
  const runB = useStore((s) => s.compareRuns.b);
  const filter = useStore((s) => s.compareFilter);
  const open = useStore((s) => s.compareOpen);
  const [showAll, setShowAll] = useState(false);
  const detail = useRef<HTMLDivElement>(null);

  const comparison = useMemo(() => (runA && runB ? compareRuns(runA.records, runB.records) : null), [runA, runB]);
  const rows = useMemo(() => (comparison ? filterRows(comparison.rows, filter) : []), [comparison, filter]);
  const counts = useMemo(() => (comparison ? countsOf(comparison.rows, filter) : null), [comparison, filter]);
  const openRow = comparison?.rows.find((r) => r.key === open) ?? null;

  useEffect(() => {
    if (open) detail.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [open]);

  if (!runA || !runB || !comparison || !counts) return <p role="status">Reading the runs…</p>;
  const total = comparison.rows.length;
  const solved = (side: 'a' | 'b') => comparison.rows.filter((r) => r[side].solved).length;
  return (
    <>
      <dl className="figures compare-figures">
        <div>
          <dt>A · {runA.summary.policy}</dt>
          <dd>
            {solved('a')} / {total} <span className="meta">solved ({total > 0 ? percent(solved('a') / total) : '–'})</span>
          </dd>
        </div>
        <div>
          <dt>B · {runB.summary.policy}</dt>
          <dd>
            {solved('b')} / {total} <span className="meta">solved ({total > 0 ? percent(solved('b') / total) : '–'})</span>
          </dd>
        </div>
      </dl>
      {(comparison.onlyInA > 0 || comparison.onlyInB > 0) && (
        <p className="meta">
          Left out: {comparison.onlyInA} question{comparison.onlyInA === 1 ? '' : 's'} only A played, {comparison.onlyInB} only B played (a question is compared when both runs played it
          {runA.summary.dataset !== runB.summary.dataset ? `; these runs are on different datasets, ${runA.summary.dataset} and ${runB.summary.dataset}` : ''}).
        </p>
      )}
      {total === 0 ? (
        <p role="status">These two runs played no question in common: run both on the same dataset and split with the same seed to compare them.</p>
      ) : (
        <>
          <PairedSummary runA={runA} runB={runB} />
          <OutcomeMatrix counts={counts} total={Object.values(counts).reduce((x, y) => x + y, 0)} policyA={runA.summary.policy} policyB={runB.summary.policy} />
          <CompareFilters databases={databasesOf(comparison.rows)} shown={rows.length} total={total} />
          <QuestionList rows={rows} showAll={showAll} onShowAll={() => setShowAll(true)} />
          <div ref={detail} className="detail-anchor">
            {openRow ? <SideBySide key={openRow.key} row={openRow} runA={runA} runB={runB} /> : <p className="meta">Choose a question to see the two transcripts side by side.</p>}
          </div>
        </>
      )}
    </>
  );
}

export default function CompareView() {
  const runs = useStore((s) => s.compareRunList);
  const ids = useStore((s) => s.compareIds);
  const error = useStore((s) => s.compareError);
  const load = useStore((s) => s.loadCompareRuns);
  const setRun = useStore((s) => s.setCompareRun);
  const linkProblem = useCompareLink();
  useEffect(() => {
    void load();
  }, [load]);

  // One imported file becomes B (the run to set against A); two become A and B, in the order picked.
  async function onImported(imported: ImportedRun[]) {
    await load();
    if (imported.length >= 2) await setRun('a', imported[imported.length - 2].summary.id);
    await setRun('b', imported[imported.length - 1].summary.id);
  }

  return (
    <div className="compare-view">
      <h2>Compare runs</h2>
      {error && <ErrorBox title="Saved runs are not available" message={error} />}
      {linkProblem && (
        <p className="step-error" role="alert">
          {linkProblem}
        </p>
      )}
      {runs === null ? (
        <p role="status">Reading saved runs…</p>
      ) : runs.length < 2 ? (
        <div className="panel">
          <p>
            Comparing needs two saved runs; there {runs.length === 1 ? 'is one' : 'are none'}. Evaluate two policies on the same split and seed — for example Random and Oracle — in the{' '}
            <a href={routeHash('evaluate')}>Evaluate view</a>, then come back — or import run files (from the page&apos;s export, <code>sqlenv eval --transcripts</code> or the Python client).
          </p>
          <ImportRun onImported={onImported} />
        </div>
      ) : (
        <>
          <ImportRun onImported={onImported} />
          <RunPickers runs={runs} />
          {ids.a && ids.b ? <Comparison /> : <p className="meta">Choose run A and run B.</p>}
        </>
      )}
    </div>
  );
}
