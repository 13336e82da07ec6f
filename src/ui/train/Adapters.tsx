/**
 * The Adapters panel: every adapter the worker holds (trained here, loaded from files or from the Hub), each a
 * policy of Watch, Evaluate and Compare, with Download (the two PEFT files), Evaluate, Watch and Delete; below, load
 * one from files (adapter_model.safetensors + adapter_config.json) or from a Hub repo. Loading needs the base model
 * loaded (the adapter's shapes are checked against it).
 */
import { useState } from 'react';
import { errorText } from '../store/datasets-slice.ts';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';
import type { AdapterInfo } from '../../workers/train-protocol.ts';
import { deleteAdapter, downloadAdapter, evaluateAdapter, loadAdapterFromFiles, loadAdapterFromHub, watchAdapter } from './adapter-actions.ts';

const ORIGIN: Record<AdapterInfo['origin'], string> = { trained: 'trained here', file: 'from files', hub: 'from the Hub' };

function AdapterItem({ adapter, onError }: { adapter: AdapterInfo; onError: (text: string) => void }) {
  const act = (what: string, task: () => Promise<unknown>) => () => void task().catch((e: unknown) => onError(`${what} failed: ${errorText(e)}`));
  return (
    <li className="train-item" aria-label={adapter.name}>
      <div className="train-item-head">
        <span className="train-item-title">{adapter.name}</span>
        <span className="meta">{ORIGIN[adapter.origin]}</span>
      </div>
      <p className="train-item-figures">
        Rank {adapter.rank}, alpha {adapter.alpha}, {adapter.targets.length} targets{adapter.steps !== undefined && `, ${plural(adapter.steps, 'step')}`} · base {adapter.baseModel} · policy <code>{adapter.policy}</code>
      </p>
      <div className="button-row">
        <button type="button" onClick={act('The download', () => downloadAdapter(adapter))}>
          Download
        </button>
        <button type="button" onClick={() => evaluateAdapter(adapter)}>
          Evaluate
        </button>
        <button type="button" onClick={() => watchAdapter(adapter)}>
          Watch
        </button>
        <button type="button" onClick={act('Deleting the adapter', () => deleteAdapter(adapter))}>
          Delete
        </button>
      </div>
    </li>
  );
}

function LoadAdapter({ modelLoaded }: { modelLoaded: boolean }) {
  const [files, setFiles] = useState<File[]>([]);
  const [name, setName] = useState('');
  const [repo, setRepo] = useState('');
  const [subfolder, setSubfolder] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const run = async (task: () => Promise<AdapterInfo>) => {
    setBusy(true);
    setMessage(null);
    try {
      const info = await task();
      setMessage({ error: false, text: `Loaded ${info.name}: policy ${info.policy}.` });
    } catch (e) {
      setMessage({ error: true, text: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const disabled = busy || !modelLoaded;
  return (
    <div className="load-adapter">
      <h4>Load an adapter</h4>
      {!modelLoaded && <p className="meta">Load its base model first (Watch’s Model panel).</p>}
      <label className="field">
        Name (optional)
        <input type="text" value={name} placeholder="from the files or the repo" disabled={disabled} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        Adapter files
        <input type="file" multiple accept=".safetensors,.json" disabled={disabled} onChange={(e) => setFiles([...(e.target.files ?? [])])} />
      </label>
      <button type="button" disabled={disabled || files.length === 0} onClick={() => void run(() => loadAdapterFromFiles(files, name))}>
        Load from files
      </button>
      <label className="field">
        Hub id
        <input type="text" value={repo} placeholder="owner/adapter" spellCheck={false} disabled={disabled} onChange={(e) => setRepo(e.target.value)} />
      </label>
      <label className="field">
        Subfolder (optional)
        <input type="text" value={subfolder} spellCheck={false} disabled={disabled} onChange={(e) => setSubfolder(e.target.value)} />
      </label>
      <button type="button" disabled={disabled || repo.trim() === ''} onClick={() => void run(() => loadAdapterFromHub(repo, subfolder, name))}>
        Load from the Hub
      </button>
      {busy && <p className="meta" role="status">Loading the adapter…</p>}
      {message && (
        <p className={message.error ? 'step-error' : 'meta'} role={message.error ? 'alert' : 'status'} aria-label="Adapter load">
          {message.text}
        </p>
      )}
    </div>
  );
}

export function Adapters() {
  const adapters = useStore((s) => s.adapters);
  const modelLoaded = useStore((s) => s.modelStatus === 'ready');
  const setNotice = useStore((s) => s.setTrainNotice);
  return (
    <section className="panel adapters" aria-label="Adapters">
      <h3>Adapters</h3>
      {adapters === null ? (
        <p className="meta">Reading…</p>
      ) : adapters.length === 0 ? (
        <p className="meta">None yet: a run saves its adapter here when it ends.</p>
      ) : (
        <ul className="train-list" aria-label="Adapter list">
          {adapters.map((a) => (
            <AdapterItem key={a.id} adapter={a} onError={setNotice} />
          ))}
        </ul>
      )}
      <LoadAdapter modelLoaded={modelLoaded} />
    </section>
  );
}
