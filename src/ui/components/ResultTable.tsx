/**
 * A query result as a real table. Cells are rendered as text (React escapes them), never as HTML: database content
 * is data, not markup. Any database's values reach it, so it shows a capped part (see cell-display.ts): the first
 * rows and columns, each cell clipped with a "Show all" control, and a note saying what is left out.
 */
import type { SqlValue } from '../../sql/types.ts';
import { cellText, tableView, workerCutNote } from './cell-display.ts';
import { ClippedText } from './ClippedText.tsx';

export interface ResultTableProps {
  columns: string[];
  rows: SqlValue[][];
  /** Rows the statement produced; null when more than were read. */
  totalRows?: number | null;
  caption?: string;
}

/** One cell: its text clipped, and the whole length when the SQL worker already cut the value. */
function CellValue({ value }: { value: SqlValue }) {
  const note = workerCutNote(value);
  return (
    <>
      <ClippedText text={cellText(value)} />
      {note && <span className="meta"> ({note})</span>}
    </>
  );
}

export function ResultTable({ columns, rows, totalRows, caption }: ResultTableProps) {
  const view = tableView(columns.length, rows.length, totalRows);
  const shownColumns = columns.slice(0, view.columns);
  return (
    <div className="result-table">
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {shownColumns.map((c, i) => (
              <th key={i} scope="col">
                <ClippedText text={c} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, view.rows).map((row, r) => (
            <tr key={r}>
              {row.slice(0, view.columns).map((v, c) => (
                <td key={c} className={v === null ? 'null' : typeof v === 'number' ? 'number' : undefined}>
                  <CellValue value={v} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="meta">{view.note}</p>
    </div>
  );
}
