/**
 * A query result as a real table. Cells are rendered as text (React escapes them), never as HTML: database content
 * is data, not markup.
 */
import { formatCell } from '../../env/format.ts';
import type { SqlValue } from '../../sql/types.ts';

export interface ResultTableProps {
  columns: string[];
  rows: SqlValue[][];
  /** Rows the statement produced; null when more than were read. */
  totalRows?: number | null;
  caption?: string;
}

export function ResultTable({ columns, rows, totalRows, caption }: ResultTableProps) {
  const total = totalRows === undefined ? rows.length : totalRows;
  const note = total === null ? `showing ${rows.length} of more than ${rows.length} rows` : rows.length < total ? `showing ${rows.length} of ${total} rows` : `${total} row${total === 1 ? '' : 's'}`;
  return (
    <div className="result-table">
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              {row.map((v, c) => (
                <td key={c} className={v === null ? 'null' : typeof v === 'number' ? 'number' : undefined}>
                  {formatCell(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="meta">{note}</p>
    </div>
  );
}
