/**
 * The compared questions that pass the filters: the question, its database and difficulty, how A and B did, and
 * the outcome. Opening a question shows its two transcripts side by side. Question text is rendered as text.
 */
import { OUTCOME_LABELS, type QuestionComparison, type SideResult } from './outcome-matrix.ts';
import { useStore } from '../store/store.ts';

/** Rows shown before "Show all" (a full Spider split has hundreds). */
const FIRST_ROWS = 200;

function SideCell({ side }: { side: SideResult }) {
  const n = side.records.length;
  return (
    <td className={`side-result ${side.solved ? 'solved' : 'unsolved'}`}>
      <span className="mark" aria-hidden="true">
        {side.solved ? '✓' : '✗'}
      </span>{' '}
      {side.solved ? 'solved' : 'not solved'}
      {n > 1 && <span className="meta"> ({side.successes}/{n})</span>}
      <div className="meta">return {side.meanReturn.toFixed(2)}</div>
    </td>
  );
}

export function QuestionList({ rows, showAll, onShowAll }: { rows: QuestionComparison[]; showAll: boolean; onShowAll: () => void }) {
  const open = useStore((s) => s.compareOpen);
  const setOpen = useStore((s) => s.openCompareQuestion);
  if (rows.length === 0) return <p className="meta">No question matches these filters.</p>;
  const shown = showAll ? rows : rows.slice(0, FIRST_ROWS);
  return (
    <div className="table-scroll question-list">
      <table>
        <caption className="visually-hidden">Compared questions</caption>
        <thead>
          <tr>
            <th scope="col">Question</th>
            <th scope="col">Database</th>
            <th scope="col">Difficulty</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={row.key} className={open === row.key ? 'open' : undefined}>
              <td>
                <button type="button" className="link-button question-button" aria-expanded={open === row.key} onClick={() => setOpen(open === row.key ? null : row.key)} aria-label={`Compare transcripts: ${row.question}`}>
                  {row.question}
                </button>
                <div className="meta">
                  <code>{row.questionId}</code>
                </div>
              </td>
              <td>{row.dbId}</td>
              <td>
                <span className={`difficulty ${row.difficulty}`}>{row.difficulty}</span>
              </td>
              <SideCell side={row.a} />
              <SideCell side={row.b} />
              <td>
                <span className={`outcome-badge outcome-${row.outcome}`}>{OUTCOME_LABELS[row.outcome]}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!showAll && rows.length > FIRST_ROWS && (
        <button type="button" onClick={onShowAll}>
          Show all {rows.length} questions
        </button>
      )}
    </div>
  );
}
