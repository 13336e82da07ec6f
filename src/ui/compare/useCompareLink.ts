/**
 * Compare's link carries the comparison: `#/compare?a=<run id>&b=<run id>&q=<dataset/questionId>`. Opening it
 * chooses those runs and opens that question; choosing runs or a question rewrites it (replace, not a new history
 * entry). `a` or `b` may be the URL of a run file instead of an id: it is imported first (run-import.ts), then named
 * by its id. A run the link names that this browser does not have gives a message saying to import its file (an
 * import keeps the file's run id, so the same link then works).
 *
 * How to think about the order: the link is applied once per change of the hash (and first, before the state is
 * written back), so the persisted choice of runs never overwrites a link someone just opened.
 */
import { useEffect, useRef, useState } from 'react';
import { navigate, useRoute } from '../router.ts';
import { errorText } from '../store/datasets-slice.ts';
import { useStore } from '../store/store.ts';
import type { CompareSide } from '../store/compare-slice.ts';
import { importRunUrl, isRunUrl } from '../evaluate/run-import.ts';

export function useCompareLink(): string | null {
  const { view, params } = useRoute();
  const ids = useStore((s) => s.compareIds);
  const open = useStore((s) => s.compareOpen);
  const runList = useStore((s) => s.compareRunList);
  const setRun = useStore((s) => s.setCompareRun);
  const openQuestion = useStore((s) => s.openCompareQuestion);
  const loadRuns = useStore((s) => s.loadCompareRuns);
  const loadDataset = useStore((s) => s.loadDataset);
  const [applied, setApplied] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const wanted = useRef<Record<CompareSide, string | null>>({ a: null, b: null });
  const query = params.toString();

  // The link into the state.
  useEffect(() => {
    if (view !== 'compare') return;
    let live = true;
    const link = new URLSearchParams(query);
    void (async () => {
      for (const side of ['a', 'b'] as const) {
        let id = link.get(side);
        if (id && isRunUrl(id)) {
          try {
            id = (await importRunUrl(id, { knowsDataset: async (d) => (await loadDataset(d)) !== null })).summary.id;
            await loadRuns();
          } catch (e) {
            if (live) setProblem(`Run ${side.toUpperCase()} of this link could not be imported: ${errorText(e)}`);
            id = null;
          }
        }
        if (!live) return;
        if (id) wanted.current[side] = id;
        if (id && useStore.getState().compareIds[side] !== id) await setRun(side, id);
      }
      const q = link.get('q');
      if (live && q !== null && useStore.getState().compareOpen !== q) openQuestion(q);
      if (live) setApplied(true);
    })();
    return () => {
      live = false;
    };
  }, [view, query, setRun, openQuestion, loadRuns, loadDataset]);

  // A run the link named that is not in this browser.
  useEffect(() => {
    if (!runList) return;
    const known = new Set(runList.map((r) => r.id));
    const missing = (['a', 'b'] as const).filter((side) => wanted.current[side] !== null && !known.has(wanted.current[side] ?? ''));
    if (missing.length > 0)
      setProblem(`This link names ${missing.map((side) => `run ${side.toUpperCase()} (${wanted.current[side]})`).join(' and ')}, which is not saved in this browser: import its run file (it keeps its id) and open the link again.`);
  }, [runList]);

  // The state into the link.
  useEffect(() => {
    if (!applied || view !== 'compare') return;
    navigate('compare', { a: ids.a, b: ids.b, q: open }, { replace: true });
  }, [applied, view, ids.a, ids.b, open]);

  return problem;
}
