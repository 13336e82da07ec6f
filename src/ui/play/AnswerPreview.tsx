/**
 * How the answer box read a pasted table, shown before it is sent: "Read as 2 rows × 2 columns (tab-separated)",
 * the "first line is a header" switch (the reader's guess until the person flips it, with the reason), what was
 * left out (a caption, a "3 rows" note), a warning for rows of different lengths, and the first rows as a table.
 * A list on one line or JSON goes to the environment as typed; `InlineAnswerPreview` says how the environment will
 * read it (answer-inline.ts): "Read as a list of 2 values (comma-separated)" and its cells. A plain value gets none.
 */
import { useMemo } from 'react';
import { inlineReading } from './answer-inline.ts';
import type { TableReading } from './answer-table.ts';
import { DELIMITER_LABEL } from './answer-table.ts';
import { ClippedText } from '../components/ClippedText.tsx';
import { plural } from '../components/plural.ts';

/** Rows and columns of the preview at most; the caption gives the whole size. */
const PREVIEW_ROWS = 5;
const PREVIEW_COLUMNS = 8;
const PREVIEW_CHARS = 40;


/** The first rows of a reading, at most `PREVIEW_COLUMNS` wide, each cell clipped. */
function PreviewTable({ names, rows, columns }: { names: readonly string[]; rows: readonly (readonly string[])[]; columns: number }) {
  return (
    <div className="answer-preview-table">
      <table aria-label="Answer as read">
        <thead>
          <tr>
            {names.map((n, j) => (
              <th key={j} scope="col">
                <ClippedText text={n} max={PREVIEW_CHARS} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, PREVIEW_ROWS).map((row, i) => (
            <tr key={i}>
              {row.slice(0, columns).map((cell, j) => (
                <td key={j}>
                  <ClippedText text={cell} max={PREVIEW_CHARS} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How the environment will read a one-line or JSON answer; nothing for a plain value. */
export function InlineAnswerPreview({ answer }: { answer: string }) {
  const reading = useMemo(() => inlineReading(answer), [answer]);
  if (!reading) return null;
  const columns = Math.min(reading.columns, PREVIEW_COLUMNS);
  const names = Array.from({ length: columns }, (_, j) => (reading.columns === 1 ? 'value' : `column ${j + 1}`));
  return (
    <section className="answer-preview" aria-label="How the answer was read">
      <p role="status" className="answer-preview-summary">
        Read as {reading.summary}.
      </p>
      {reading.alsoOneValue && <p className="meta">The whole text is also tried as one value.</p>}
      {reading.rows.length > 0 && <PreviewTable names={names} rows={reading.rows} columns={columns} />}
      {(reading.rows.length > PREVIEW_ROWS || reading.columns > PREVIEW_COLUMNS) && (
        <p className="meta">
          Preview of the first {plural(Math.min(reading.rows.length, PREVIEW_ROWS), 'row')}
          {reading.columns > PREVIEW_COLUMNS ? ` and ${plural(PREVIEW_COLUMNS, 'column')}` : ''}; all are sent.
        </p>
      )}
    </section>
  );
}

export function AnswerPreview({ reading, onHeader }: { reading: TableReading; onHeader: (header: boolean) => void }) {
  const { rows, columns, header } = reading;
  const shownColumns = Math.min(columns, PREVIEW_COLUMNS);
  const names = Array.from({ length: shownColumns }, (_, j) => header?.[j] ?? `column ${j + 1}`);
  const summary = `Read as ${plural(rows.length, 'row')} × ${plural(columns, 'column')} (${DELIMITER_LABEL[reading.delimiter]})`;
  return (
    <section className="answer-preview" aria-label="How the answer was read">
      <p role="status" className="answer-preview-summary">
        {summary}
        {header ? '; the first line is the header.' : '.'}
      </p>
      <label className="check">
        <input type="checkbox" checked={header !== null} onChange={(e) => onHeader(e.target.checked)} />
        First line is a header <span className="meta">({reading.headerReason})</span>
      </label>
      {reading.dropped.length > 0 && (
        <p className="meta">
          Left out:{' '}
          {reading.dropped.map((d, i) => (
            <span key={i}>
              {i > 0 && ', '}
              <q>
                <ClippedText text={d} max={PREVIEW_CHARS} />
              </q>
            </span>
          ))}{' '}
          (a caption or note around the table).
        </p>
      )}
      {reading.ragged && (
        <p className="warning" role="alert">
          The rows have different numbers of cells: check the paste (a missing or extra separator?).
        </p>
      )}
      <PreviewTable names={names} rows={rows} columns={shownColumns} />
      {(rows.length > PREVIEW_ROWS || columns > PREVIEW_COLUMNS) && (
        <p className="meta">
          Preview of the first {plural(Math.min(rows.length, PREVIEW_ROWS), 'row')}{columns > PREVIEW_COLUMNS ? ` and ${plural(PREVIEW_COLUMNS, 'column')}` : ''}; all are sent.
        </p>
      )}
    </section>
  );
}
