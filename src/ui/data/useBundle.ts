/**
 * `useBundle(name)`: loads the data bundle served at `bundles/<name>/` next to the page and reports its state as a
 * small union (loading | ready | error). The URL is resolved against `document.baseURI`, so the built app works
 * from any sub-path. Errors become a message for people (the thrown `DatasetError` already names the fix).
 */
import { useEffect, useState } from 'react';
import { httpBundleReader, readBundle } from '../../data/bundle.ts';
import type { Dataset } from '../../data/types.ts';

export type BundleState =
  | { status: 'loading'; name: string }
  | { status: 'ready'; name: string; dataset: Dataset }
  | { status: 'error'; name: string; message: string };

/** Where bundle `name` is served from, relative to the page (ends in '/'). */
export function bundleUrl(name: string): string {
  return new URL(`bundles/${encodeURIComponent(name)}/`, document.baseURI).href;
}

export function useBundle(name: string): BundleState {
  const [state, setState] = useState<BundleState>({ status: 'loading', name });
  useEffect(() => {
    let cancelled = false;
    readBundle(httpBundleReader(bundleUrl(name))).then(
      (dataset) => {
        if (!cancelled) setState({ status: 'ready', name, dataset });
      },
      (error: unknown) => {
        if (!cancelled) setState({ status: 'error', name, message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [name]);
  // A state left over from a previous name is not this bundle's state.
  return state.name === name ? state : { status: 'loading', name };
}
