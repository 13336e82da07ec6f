/**
 * Saved runs (IndexedDB), newest first: open one to see its results, export its episodes as JSONL (the run file) or
 * CSV, or delete it (after a confirmation in place); import run files made elsewhere (ImportRun.tsx), which then
 * open. The storage the site uses is shown under the list.
 */
import { useEffect, useId, useState } from 'react';
import { exportFile, type ExportFormat } from '../../eval/export.ts';
import { loadRun, storageUsage, type RunSummary } from '../../eval/run-store.ts';
import { useStore } from '../store/store.ts';
import { downloadFile } from './download.ts';
import { ImportRun } from './ImportRun.tsx';
import { percent, fixed, runTitle } from './figures.ts';
import { usePolicyLabel } from './usePolicyLabel.ts';

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

function StorageNote({ runs }: { runs: number }) {
  const [usage, setUsage] = useState<{ usage: number; quota: number } | null>(null);
  useEffect(() => {
    let live = true;
    storageUsage()
      .then((u) => live && setUsage(u))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [runs]);
  if (!usage) return null;
  return (
    <p className="meta">
      This site uses {megabytes(usage.usage)} of the {megabytes(usage.quota)} the browser allows it.
    </p>
  );
}

function RunItem({ run, shown }: { run: RunSummary; shown: boolean }) {
  const policyLabel = usePolicyLabel();
  const show = useStore((s) => s.showRun);
  const remove = useStore((s) => s.deleteSavedRun);
  const [confirming, setConfirming] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const titleId = useId();
  const title = runTitle(run, policyLabel);

  async function exportAs(format: ExportFormat) {
    setExportError(null);
    const saved = await loadRun(run.id).catch(() => null);
    if (!saved) {
      setExportError('This run could not be read back from storage.');
      return;
    }
    downloadFile(exportFile(format, run, saved.records));
  }

  return (
    <li className={`run-item${shown ? ' shown' : ''}`} aria-current={shown ? 'true' : undefined} aria-labelledby={titleId}>
      <div className="run-head">
        <span id={titleId} className="run-title">
          {title}
        </span>
        <span className="meta">{new Date(run.createdAt).toLocaleString()}</span>
      </div>
      <p className="run-figures">
        success <strong>{percent(run.success_rate)}</strong> · mean return <strong>{fixed(run.mean_return)}</strong> · mean steps {fixed(run.mean_steps, 2)} · seed {run.seed}
      </p>
      {confirming ? (
        <div className="button-row" role="group" aria-label={`Delete ${title}?`}>
          <span>Delete this run?</span>
          <button type="button" className="danger" onClick={() => void remove(run.id)} aria-describedby={titleId}>
            Delete run
          </button>
          <button type="button" onClick={() => setConfirming(false)} aria-describedby={titleId}>
            Keep
          </button>
        </div>
      ) : (
        <div className="button-row">
          <button type="button" onClick={() => void show(run.id)} aria-describedby={titleId} disabled={shown}>
            {shown ? 'Shown' : 'Open'}
          </button>
          <button type="button" onClick={() => void exportAs('jsonl')} aria-describedby={titleId}>
            JSONL
          </button>
          <button type="button" onClick={() => void exportAs('csv')} aria-describedby={titleId}>
            CSV
          </button>
          <button type="button" onClick={() => setConfirming(true)} aria-describedby={titleId}>
            Delete
          </button>
        </div>
      )}
      {exportError && (
        <p className="step-error" role="alert">
          {exportError}
        </p>
      )}
    </li>
  );
}

export function SavedRuns() {
  const runs = useStore((s) => s.savedRuns);
  const error = useStore((s) => s.savedRunsError);
  const shownId = useStore((s) => s.shownRun?.run.summary.id ?? null);
  const load = useStore((s) => s.loadSavedRuns);
  const show = useStore((s) => s.showRun);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="panel saved-runs" aria-labelledby="saved-runs-heading">
      <h3 id="saved-runs-heading">Saved runs</h3>
      <ImportRun
        onImported={async (imported) => {
          await load();
          await show(imported[imported.length - 1].summary.id);
        }}
      />
      {error && (
        <p className="step-error" role="alert">
          {error}
        </p>
      )}
      {runs === null ? (
        <p className="meta">Reading saved runs…</p>
      ) : runs.length === 0 ? (
        <p className="meta">No saved runs yet. Runs are kept in this browser until you delete them.</p>
      ) : (
        <ul className="run-list" aria-label="Saved runs">
          {runs.map((run) => (
            <RunItem key={run.id} run={run} shown={run.id === shownId} />
          ))}
        </ul>
      )}
      <StorageNote runs={runs?.length ?? 0} />
    </section>
  );
}
