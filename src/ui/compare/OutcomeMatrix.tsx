/**
 * The 2×2 outcome matrix: rows say whether A solved a question, columns whether B did; each cell is a button that
 * shows only those questions (pressed again, or "All", shows every question). Counts follow the other filters.
 * Policy names are cut to a cell's width (compare.css, `.matrix-policy`); the run pickers above show them whole.
 */
import { OUTCOME_LABELS, type Outcome } from './outcome-matrix.ts';
import { useStore } from '../store/store.ts';
import { InfoTip } from '../components/InfoTip.tsx';
import { tip } from '../help/glossary.ts';

/** A run's policy under a header, cut to the cell's width with '…' (a long adapter name must not stretch the matrix). */
function PolicyName({ name }: { name: string }) {
  return (
    <span className="meta matrix-policy" title={name}>
      ({name})
    </span>
  );
}

export function OutcomeMatrix({ counts, total, policyA, policyB }: { counts: Record<Outcome, number>; total: number; policyA: string; policyB: string }) {
  const filter = useStore((s) => s.compareFilter.outcome);
  const setFilter = useStore((s) => s.setCompareFilter);
  const cell = (outcome: Outcome) => {
    const pressed = filter === outcome;
    const n = counts[outcome];
    return (
      <td className={`matrix-cell outcome-${outcome}`}>
        <button type="button" aria-pressed={pressed} onClick={() => setFilter({ outcome: pressed ? 'all' : outcome })} aria-label={`${OUTCOME_LABELS[outcome]}: ${n} question${n === 1 ? '' : 's'}`}>
          <span className="matrix-count">{n}</span>
          <span className="matrix-label">{OUTCOME_LABELS[outcome]}</span>
        </button>
      </td>
    );
  };
  return (
    <div className="matrix-wrap">
      <table className="outcome-matrix">
        <caption>
          Outcome per question ({total} played by both)<InfoTip topic="the outcome matrix">{tip('outcomeMatrix')}</InfoTip>
        </caption>
        <thead>
          <tr>
            <td />
            <th scope="col">
              B solved <PolicyName name={policyB} />
            </th>
            <th scope="col">
              B did not <PolicyName name={policyB} />
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">
              A solved <PolicyName name={policyA} />
            </th>
            {cell('both')}
            {cell('onlyA')}
          </tr>
          <tr>
            <th scope="row">
              A did not <PolicyName name={policyA} />
            </th>
            {cell('onlyB')}
            {cell('neither')}
          </tr>
        </tbody>
      </table>
      <button type="button" className="matrix-all" aria-pressed={filter === 'all'} onClick={() => setFilter({ outcome: 'all' })}>
        All questions ({total})
      </button>
    </div>
  );
}
