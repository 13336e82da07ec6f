/**
 * A query result as a real table. Cells are rendered as text (React escapes them), never as HTML: database content
 * is data, not markup. Any database's values reach it, so it shows a capped part (see cell-display.ts): the first
 * rows and columns, each cell clipped with a "Show all" control, and a note saying what is left out. A cell is at
 * most `40ch` wide and wraps (result-table.css), so one long value cannot make the table thousands of pixels wide.
 * "Copy table" puts the rows it holds on the clipboard as tab-separated text with the header (`tableTsv`), which
 * Play's answer box reads back as rows.
 */
import { useState } from 'react';
import type { SqlValue } from '../../sql/types.ts';
import { cellText, tableTsv, tableView, workerCutNote } from './cell-display.ts';
import { ClippedText } from './ClippedText.tsx';
import { copyText } from './clipboard.ts';
import './result-table.css';

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
    <div className="cell">
      <ClippedText text={cellText(value)} />
      {note && <span className="meta"> ({note})</span>}
    </div>
  );
}

/** Copies the rows the page holds, tab-separated with the header, and says whether it worked. */
function CopyTable({ columns, rows }: { columns: string[]; rows: SqlValue[][] }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <button type="button" className="result-copy" onClick={() => void copyText(tableTsv(columns, rows)).then((ok) => setState(ok ? 'copied' : 'failed'))}>
        Copy table
      </button>
      {/* Only after a click: an empty status per table would make every result a live region. */}
      {state !== 'idle' && (
        <span role="status" className="meta">
          {state === 'copied' ? ' Copied (tab-separated, with the header)' : ' Copy failed: select the table and copy it by hand'}
        </span>
      )}
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
                <div className="cell">
                  <ClippedText text={c} />
                </div>
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
      <p className="meta result-note">
        {view.note}
        {rows.length > 0 && (
          <>
            {' · '}
            <CopyTable columns={columns} rows={rows} />
          </>
        )}
      </p>
    </div>
  );
}
