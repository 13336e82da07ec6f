/**
 * The browser's model cache, as the Model panel shows it: each model downloaded from the Hub (per mirror and
 * revision) with its size and whether a download is unfinished (its partial bytes resume the next load), a Clear
 * button per model and Clear all. Models from a served or local folder are never cached, so never listed.
 * The list is read again when a load ends (a download adds to it) and after each clear.
 */
import { useCallback, useEffect, useState } from 'react';
import { formatBytes, type CachedModel } from '../../model/cache.ts';
import { errorText } from '../store/datasets-slice.ts';
import { useStore } from '../store/store.ts';
import { clearCachedModel, clearModelCache, listCachedModels } from './model-actions.ts';

function modelName(m: CachedModel): string {
  const mirror = m.base === 'https://huggingface.co' ? '' : ` from ${m.base}`;
  return `${m.repo}${m.revision === 'main' ? '' : `@${m.revision}`}${mirror}`;
}

export function ModelCache() {
  const status = useStore((s) => s.modelStatus);
  const [models, setModels] = useState<CachedModel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = useCallback(async (task: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await task();
      setModels(await listCachedModels());
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }, []);

  useEffect(() => {
    if (status === 'loading') return;
    let live = true;
    listCachedModels().then(
      (list) => live && setModels(list),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [status]);

  const total = models?.reduce((sum, m) => sum + m.bytes, 0) ?? 0;
  return (
    <section className="model-cache" aria-label="Model cache">
      <h3>
        Model cache {models && models.length > 0 && <span className="meta">({formatBytes(total)})</span>}
      </h3>
      {models === null && error === null && <p className="meta">Reading the cache…</p>}
      {models?.length === 0 && <p className="meta">No models are cached in this browser.</p>}
      {models && models.length > 0 && (
        <ul aria-label="Cached models">
          {models.map((m) => {
            const partial = m.files.filter((f) => f.partial).length;
            const name = modelName(m);
            return (
              <li key={`${m.base}|${m.repo}|${m.revision}`}>
                <span>
                  {name} <span className="meta">— {formatBytes(m.bytes)}, {m.files.length} files{partial > 0 ? `, ${partial} unfinished (resumes on the next load)` : ''}</span>
                </span>{' '}
                <button type="button" aria-label={`Clear ${name}`} disabled={busy || status === 'loading'} onClick={() => void run(() => clearCachedModel(m))}>
                  Clear
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {models && models.length > 0 && (
        <div className="button-row">
          <button type="button" disabled={busy || status === 'loading'} onClick={() => void run(clearModelCache)}>
            Clear all
          </button>
        </div>
      )}
      {error !== null && <p className="step-error">The cache could not be read or cleared: {error}</p>}
    </section>
  );
}
