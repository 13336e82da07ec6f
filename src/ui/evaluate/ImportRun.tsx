/**
 * Import run files (docs/run-files.md) — a colleague's export, `sqlenv eval --transcripts`, the Python client's — by
 * picking or dropping files, or from a URL. Each file is read, checked and saved by run-import.ts; a refused file
 * shows why and changes nothing. A progress bar shows while a file is read. Evaluate and Compare both mount this;
 * `onImported` says what to do with the runs (show one, compare two).
 */
import { useState, type DragEvent, type FormEvent } from 'react';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';
import { errorText } from '../store/datasets-slice.ts';
import { importRunFile, importRunUrl, type ImportedRun, type ImportOptions } from './run-import.ts';
import './run-import.css';

interface Props {
  onImported: (runs: ImportedRun[]) => void | Promise<void>;
}

export function ImportRun({ onImported }: Props) {
  const loadDataset = useStore((s) => s.loadDataset);
  const [busy, setBusy] = useState<{ name: string; done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const [url, setUrl] = useState('');

  async function run(sources: Array<{ name: string; read: (options: ImportOptions) => Promise<ImportedRun> }>) {
    if (busy || sources.length === 0) return;
    setError(null);
    setNotes([]);
    const imported: ImportedRun[] = [];
    try {
      for (const source of sources) {
        setBusy({ name: source.name, done: 0, total: 0 });
        try {
          imported.push(await source.read({ knowsDataset: async (d) => (await loadDataset(d)) !== null, onProgress: (done, total) => setBusy({ name: source.name, done, total }) }));
        } catch (e) {
          setError(`${source.name}: ${errorText(e)}`);
          break;
        }
      }
    } finally {
      setBusy(null);
    }
    if (imported.length > 0) {
      setNotes([`Imported ${imported.map((r) => `${r.summary.policy} · ${r.summary.dataset}/${r.summary.split} · ${plural(r.summary.episodes, 'episode')}`).join('; ')}.`, ...imported.flatMap((r) => r.warnings)]);
      await onImported(imported);
    }
  }

  const fromFiles = (files: FileList | null) => void run([...(files ?? [])].map((f) => ({ name: f.name, read: (o: ImportOptions) => importRunFile(f, o) })));
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    fromFiles(e.dataTransfer.files);
  };
  const onUrl = (e: FormEvent) => {
    e.preventDefault();
    const target = url.trim();
    if (target) void run([{ name: target, read: (o) => importRunUrl(target, o) }]);
  };

  return (
    <div
      className={`run-import${dragging ? ' dragging' : ''}`}
      role="group"
      aria-label="Import run files"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <div className="button-row">
        <label className="file-button">
          Import run files…
          <input
            type="file"
            accept=".jsonl,application/x-ndjson,application/json"
            multiple
            disabled={busy !== null}
            onChange={(e) => {
              fromFiles(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        <span className="meta">or drop them here, or</span>
        <form className="url-import" onSubmit={onUrl}>
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…/run.jsonl" aria-label="Run file URL" disabled={busy !== null} />
          <button type="submit" disabled={busy !== null || url.trim() === ''}>
            Import from URL
          </button>
        </form>
      </div>
      {busy && (
        <p className="meta">
          <progress aria-label="Import progress" max={busy.total || undefined} value={busy.total ? busy.done : undefined} />{' '}
          <span role="status">
            Reading {busy.name}
            {busy.total ? `: ${busy.done} of ${plural(busy.total, 'episode')}` : '…'}
          </span>
        </p>
      )}
      {error && (
        <p className="step-error" role="alert">
          Not imported — {error}
        </p>
      )}
      {notes.length > 0 && (
        <ul className="import-notes" aria-label="Import notes">
          {notes.map((n, i) => (
            <li key={i} className={i === 0 ? 'meta' : 'warning'}>
              {n}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
