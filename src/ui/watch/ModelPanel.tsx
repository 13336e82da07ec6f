/**
 * The Model panel of Watch: load a Qwen checkpoint into the environment worker (a folder served with the app, by URL
 * or path, or a Hugging Face Hub id), with download and load progress and errors shown plainly (no WebGPU adapter, a
 * missing file, an unsupported architecture). Once loaded, its policy ("Qwen (…)") is listed in Watch and Evaluate.
 */
import { useState } from 'react';
import { formatBytes } from '../../model/cache.ts';
import type { LlmLoadProgress } from '../../workers/llm-generate.ts';
import { ErrorBox } from '../components/ErrorBox.tsx';
import { useStore } from '../store/store.ts';
import { NumberField } from './NumberField.tsx';

type SourceKind = 'url' | 'hub';

function progressText(p: LlmLoadProgress): string {
  switch (p.phase) {
    case 'download':
      return `Downloading ${p.file ?? ''}: ${formatBytes(p.loaded)} of ${formatBytes(p.total)}`;
    case 'tokenizer':
      return 'Building the tokenizer…';
    case 'weights':
      return 'Reading the weights…';
    case 'gpu':
      return 'Uploading the weights to the GPU…';
    case 'ready':
      return 'Ready.';
  }
}

export function ModelPanel() {
  const status = useStore((s) => s.modelStatus);
  const info = useStore((s) => s.modelInfo);
  const progress = useStore((s) => s.modelProgress);
  const error = useStore((s) => s.modelError);
  const load = useStore((s) => s.loadModel);
  const [kind, setKind] = useState<SourceKind>('hub');
  const [source, setSource] = useState('Qwen/Qwen3-0.6B');
  const [maxNewTokens, setMaxNewTokens] = useState(256);
  const loading = status === 'loading';

  return (
    <form
      className="panel watch-setup"
      aria-label="Model"
      onSubmit={(e) => {
        e.preventDefault();
        const text = source.trim();
        if (text === '') return;
        void load(kind === 'url' ? { kind: 'url', url: text } : { kind: 'hub', repo: text }, maxNewTokens);
      }}
    >
      <label className="field">
        Model source
        <select value={kind} onChange={(e) => setKind(e.target.value as SourceKind)} disabled={loading}>
          <option value="hub">Hugging Face Hub id</option>
          <option value="url">Folder served with the app (URL or path)</option>
        </select>
      </label>
      <label className="field">
        {kind === 'hub' ? 'Hub id' : 'Folder URL'}
        <input type="text" value={source} spellCheck={false} autoComplete="off" placeholder={kind === 'hub' ? 'Qwen/Qwen3-0.6B' : 'models/tiny/'} disabled={loading} onChange={(e) => setSource(e.target.value)} />
      </label>
      <NumberField label="Max new tokens" value={maxNewTokens} min={1} max={4096} onChange={setMaxNewTokens} disabled={loading} />
      <div className="button-row">
        <button type="submit" disabled={loading || source.trim() === ''}>
          {loading ? 'Loading…' : 'Load model'}
        </button>
      </div>
      {loading && progress && (
        <div role="status" aria-label="Model loading">
          {progress.phase === 'download' && <progress max={Math.max(progress.total, 1)} value={progress.loaded} />}
          <p className="meta">{progressText(progress)}</p>
        </div>
      )}
      {status === 'ready' && info && (
        <p className="meta" role="status" aria-label="Model loaded">
          Loaded {info.label}: {info.architecture}, {info.layers} layers, hidden {info.hidden}, {info.weights} weights, context {info.contextTokens}, on {info.adapter}. Policy: Qwen.
        </p>
      )}
      {error !== null && <ErrorBox title="The model could not be loaded" message={error} />}
    </form>
  );
}
