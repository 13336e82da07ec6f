/**
 * Names a new dataset may not take, as far as the page knows: every dataset in the shared slice (built bundles,
 * loaded or failed), the built bundles listed, and the datasets stored in this browser. The worker checks again.
 */
import { useMemo } from 'react';
import { useStore } from '../store/store.ts';

export function useTakenNames(): string[] {
  const datasets = useStore((s) => s.datasets);
  const stored = useStore((s) => s.storedDatasets);
  const bundles = useStore((s) => s.builtBundles);
  return useMemo(() => [...new Set([...Object.keys(datasets), ...(stored ?? []).map((d) => d.name), ...(bundles ?? [])])], [datasets, stored, bundles]);
}
