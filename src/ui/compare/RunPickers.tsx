/** The two runs compared, A and B, each picked from the saved runs; a button swaps them. */
import type { RunSummary } from '../../eval/run-store.ts';
import { useStore } from '../store/store.ts';
import { plural } from '../components/plural.ts';
import type { CompareSide } from '../store/compare-slice.ts';

export function runLabel(run: RunSummary): string {
  const date = new Date(run.createdAt).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  return `${run.policy} · ${run.dataset}/${run.split} · ${plural(run.episodes, 'episode')} · ${Math.round(run.success_rate * 100)}% solved · ${date}`;
}

function Picker({ side, runs }: { side: CompareSide; runs: RunSummary[] }) {
  const id = useStore((s) => s.compareIds[side]);
  const setRun = useStore((s) => s.setCompareRun);
  const name = side === 'a' ? 'Run A' : 'Run B';
  return (
    <label className={`run-picker side-${side}`}>
      <span className="side-tag">{name}</span>
      <select value={id ?? ''} onChange={(e) => void setRun(side, e.target.value === '' ? null : e.target.value)} aria-label={name}>
        <option value="">Choose a saved run…</option>
        {runs.map((run) => (
          <option key={run.id} value={run.id}>
            {runLabel(run)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function RunPickers({ runs }: { runs: RunSummary[] }) {
  const swap = useStore((s) => s.swapCompareRuns);
  return (
    <div className="run-pickers">
      <Picker side="a" runs={runs} />
      <button type="button" className="swap" onClick={swap} aria-label="Swap runs A and B">
        ⇅ Swap
      </button>
      <Picker side="b" runs={runs} />
    </div>
  );
}
