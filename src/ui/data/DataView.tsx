/**
 * The Data view: the datasets this page has (the demo, Spider when its bundle was built, and those made in this
 * browser), each with its databases and questions by split and difficulty; importing Spider from a folder or zip;
 * and opening any SQLite file for free play. The work happens in the environment worker; this view only renders the
 * data slice and calls its actions.
 */
import { useEffect } from 'react';
import { useStore } from '../store/store.ts';
import { DataMessageBox } from './DataMessageBox.tsx';
import { DatasetCard, type DatasetOrigin } from './DatasetCard.tsx';
import { FreePlayOpen } from './FreePlayOpen.tsx';
import { SpiderImport } from './SpiderImport.tsx';
import './data.css';

function DatasetList() {
  const datasets = useStore((s) => s.datasets);
  const stored = useStore((s) => s.storedDatasets);
  const bundles = useStore((s) => s.builtBundles);
  const current = useStore((s) => s.dataset);
  const setDataset = useStore((s) => s.setDataset);
  const remove = useStore((s) => s.removeStoredDataset);

  const storedByName = new Map((stored ?? []).map((d) => [d.name, d]));
  const builtIn = (bundles ?? []).filter((n) => !storedByName.has(n));
  // Built bundles first (demo, spider), then what this browser made (newest first), then anything else registered.
  const names = [...new Set([...builtIn, ...(stored ?? []).map((d) => d.name), ...Object.keys(datasets)])];

  return (
    <section aria-labelledby="datasets-heading" className="data-section">
      <h3 id="datasets-heading">Datasets</h3>
      <DataMessageBox where="datasets" />
      {names.length === 0 && <p role="status">Loading…</p>}
      <div className="dataset-grid">
        {names.map((name) => {
          const entry = datasets[name];
          const info = storedByName.get(name) ?? null;
          if (!entry || entry.status === 'loading') {
            return (
              <article key={name} className="panel dataset-card" aria-label={name}>
                <h3>{name}</h3>
                <p role="status">Loading…</p>
              </article>
            );
          }
          if (entry.status === 'error') {
            return (
              <article key={name} className="panel dataset-card" aria-label={name}>
                <h3>{name}</h3>
                <p className="field-error">Not available: {entry.message}</p>
              </article>
            );
          }
          const origin: DatasetOrigin = info ? info.kind : 'built-in';
          return (
            <DatasetCard
              key={name}
              summary={entry.summary}
              origin={origin}
              stored={info}
              inUse={current === name}
              onUse={() => setDataset(name)}
              onRemove={info ? () => void remove(name) : undefined}
            />
          );
        })}
      </div>
    </section>
  );
}

export default function DataView() {
  const refresh = useStore((s) => s.refreshDataLists);
  const restore = useStore((s) => s.restoreStoredDatasets);
  useEffect(() => {
    void restore().then(refresh);
  }, [restore, refresh]);

  return (
    <div className="data-view">
      <h2>Data</h2>
      <DatasetList />
      <div className="data-tools">
        <SpiderImport />
        <FreePlayOpen />
      </div>
    </div>
  );
}
