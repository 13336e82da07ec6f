/**
 * Importing Spider on the page: choose or drop a folder in Spider's official layout (or a zip of it), name the
 * dataset, import. The environment worker does the work (reads the files, runs every gold query, stores the
 * result in this browser) and reports progress; the new dataset then appears in the header's picker and every view.
 * A wrong layout or a broken zip gives a message and changes nothing.
 */
import { useState } from 'react';
import { datasetNameProblem, suggestDatasetName } from '../../data/dataset-store.ts';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';
import type { DataImport } from '../store/data-slice.ts';
import { routeHash } from '../router.ts';
import { DataMessageBox } from './DataMessageBox.tsx';
import { DropZone } from './DropZone.tsx';
import type { GivenSelection } from './given-files.ts';
import { useTakenNames } from './useTakenNames.ts';

const PHASE_TEXT = { reading: 'Reading the files', questions: 'Running the gold queries', saving: 'Saving the databases in this browser' } as const;

const SKIP_TEXT = {
  'bad-db-id': 'db_id is not a plain name',
  'missing-database': 'database file missing',
  'unreadable-database': 'database unreadable',
  'sql-error': 'gold SQL fails',
  'empty-result': 'gold SQL returns nothing',
  'too-large': 'gold result too large',
  timeout: 'gold SQL ran past its time limit',
  'engine-crash': 'gold SQL crashed the SQL engine',
  'over-budget': "not run: the import's time budget ran out",
} as const;

function Progress({ run, onCancel }: { run: DataImport; onCancel: () => void }) {
  const p = run.progress;
  const text = p ? `${PHASE_TEXT[p.phase]}${p.phase === 'reading' ? '…' : `: ${p.done} of ${p.total}`}` : 'Starting…';
  return (
    <div className="import-progress" role="status" aria-live="polite">
      <p>
        Importing <strong>{run.label}</strong> as <code>{run.name}</code> — {text}
      </p>
      <div className="progress-row">
        <progress aria-label="Import progress" max={p && p.phase !== 'reading' ? p.total : undefined} value={p && p.phase !== 'reading' ? p.done : undefined} />
        <button type="button" onClick={onCancel} disabled={run.cancelling}>
          {run.cancelling ? 'Cancelling…' : 'Cancel import'}
        </button>
      </div>
    </div>
  );
}

function Result() {
  const result = useStore((s) => s.dataImportResult);
  const setDataset = useStore((s) => s.setDataset);
  if (!result) return null;
  const skipped = result.questions - result.kept;
  return (
    <div className="import-result" role="status">
      <h4>
        Imported <code>{result.name}</code>: {result.kept} question{result.kept === 1 ? '' : 's'} on {result.databases} database{result.databases === 1 ? '' : 's'}
      </h4>
      <p>
        From {result.source}: {plural(result.questions, 'question')} read
        {skipped > 0 ? `, ${skipped} left out (${result.skipped.map((s) => `${SKIP_TEXT[s.reason]}: ${s.count}`).join('; ')})` : ''}.
      </p>
      {result.storageError && <p className="warning">{result.storageError}</p>}
      <div className="card-actions">
        <a className="button-link primary" href={routeHash('play', { dataset: result.name })}>
          Play {result.name}
        </a>
        <button type="button" onClick={() => setDataset(result.name)}>
          Use {result.name} in every view
        </button>
      </div>
    </div>
  );
}

export function SpiderImport() {
  const run = useStore((s) => s.dataImport);
  const importFiles = useStore((s) => s.importSpiderFiles);
  const cancel = useStore((s) => s.cancelSpiderImport);
  const taken = useTakenNames();
  const [staged, setStaged] = useState<GivenSelection | null>(null);
  // What the person typed; until then the name proposed from the selection and the names in use, so a list of
  // datasets that arrives after the files were chosen still moves the proposal off a taken name.
  const [typedName, setTypedName] = useState<string | null>(null);
  const name = typedName ?? (staged ? suggestDatasetName(staged.label, taken) : '');
  // The worker applies the same rule again; checking here answers while the person types.
  const problem = staged ? datasetNameProblem(name, taken) : null;

  const onGiven = (selection: GivenSelection) => {
    setStaged(selection);
    setTypedName(null);
  };
  const start = () => {
    if (!staged || problem) return;
    const { label, files } = staged;
    setStaged(null);
    void importFiles(name, label, files);
  };

  return (
    <section className="panel data-section" aria-labelledby="import-heading">
      <h3 id="import-heading">Import Spider</h3>
      <p>
        Give the folder of Spider 1.0 in its official layout — <code>dev.json</code> (and <code>train_spider.json</code>, <code>train_others.json</code> if present) beside{' '}
        <code>database/&lt;db&gt;/&lt;db&gt;.sqlite</code> — or the zip you downloaded. It is imported here, in your browser: nothing is uploaded.
      </p>
      <DropZone
        name="Spider folder or zip"
        prompt="Drop a Spider folder or zip here, or"
        inputs={[{ label: 'Choose a Spider folder', directory: true }, { label: 'Choose a Spider zip', accept: '.zip,application/zip' }]}
        disabled={run !== null}
        onGiven={onGiven}
      />
      {staged && !run && (
        <form
          className="staged"
          onSubmit={(e) => {
            e.preventDefault();
            start();
          }}
        >
          <p>
            Ready: <strong>{staged.label}</strong> ({staged.files.length} file{staged.files.length === 1 ? '' : 's'}).
          </p>
          <label className="field">
            Dataset name
            <input value={name} onChange={(e) => setTypedName(e.target.value.trim().toLowerCase())} aria-invalid={problem !== null} aria-describedby="import-name-help" spellCheck={false} />
          </label>
          <p id="import-name-help" className={problem ? 'field-error' : 'meta'}>
            {problem ?? 'The name it will have in the header’s dataset picker and in links.'}
          </p>
          <div className="card-actions">
            <button type="submit" className="primary" disabled={problem !== null}>
              Import
            </button>
            <button type="button" onClick={() => setStaged(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <DataMessageBox where="import" />
      {run && <Progress run={run} onCancel={cancel} />}
      {!run && <Result />}
    </section>
  );
}
