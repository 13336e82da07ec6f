/**
 * Observation text: compact aligned tables that a person can read and a language model can parse, with every
 * truncation stated (rows not shown, values cut, characters over budget) so nothing is silently lost.
 */
import type { SqlValue, TableInfo } from '../sql/types.ts';

export interface TableFormatLimits {
  /** Rows shown at most. */
  maxRows: number;
  /** Characters shown of one cell at most; longer values end in '…'. */
  maxCellChars: number;
  /** Characters of the whole table text at most; rows past it are dropped and counted. */
  maxChars: number;
}

export function formatCell(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (value instanceof Uint8Array) return `<blob ${value.length} bytes>`;
  // Newlines and tabs would break the table's alignment.
  return String(value).replace(/[\r\n\t]+/g, ' ');
}

function cut(text: string, max: number): { text: string; cut: boolean } {
  const chars = Array.from(text);
  return chars.length <= max ? { text, cut: false } : { text: `${chars.slice(0, Math.max(1, max - 1)).join('')}…`, cut: true };
}

function width(text: string): number {
  return Array.from(text).length;
}

/**
 * `totalRows`: rows the statement produced, or null when more than `rows.length` exist but were not counted.
 */
export function formatTable(columns: string[], rows: SqlValue[][], totalRows: number | null, limits: TableFormatLimits): string {
  let cellsCut = false;
  const cutCell = (text: string): string => {
    const c = cut(text, limits.maxCellChars);
    cellsCut ||= c.cut;
    return c.text;
  };
  const header = columns.map(cutCell);
  const body = rows.slice(0, limits.maxRows).map((row) => row.map((v) => cutCell(formatCell(v))));
  const widths = header.map((h, i) => Math.max(width(h), ...body.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]): string => cells.map((c, i) => c + ' '.repeat(widths[i] - width(c))).join(' | ').trimEnd();
  const lines = [line(header), widths.map((w) => '-'.repeat(w)).join('-+-')];
  let used = lines.join('\n').length;
  let shown = 0;
  for (const row of body) {
    const text = line(row);
    if (used + text.length + 1 > limits.maxChars && shown > 0) break;
    lines.push(text);
    used += text.length + 1;
    shown++;
  }
  const total = totalRows ?? rows.length;
  const notes: string[] = [];
  if (totalRows === null) notes.push(`showing ${shown} of more than ${rows.length} rows`);
  else if (shown < total) notes.push(`showing ${shown} of ${total} rows; ${total - shown} more not shown`);
  else notes.push(`${total} row${total === 1 ? '' : 's'}`);
  if (cellsCut) notes.push(`values longer than ${limits.maxCellChars} characters cut with '…'`);
  lines.push(`(${notes.join('; ')})`);
  return lines.join('\n');
}

export function formatDescribe(info: TableInfo): string {
  const columns = info.columns.map((c) => [c.name, c.type || '(no type)', [c.primaryKey > 0 ? 'PRIMARY KEY' : '', c.notNull ? 'NOT NULL' : ''].filter(Boolean).join(' ')]);
  const widths = [0, 1].map((i) => Math.max(...columns.map((c) => width(c[i]))));
  const lines = [`Table ${info.name} (${info.rowCount} row${info.rowCount === 1 ? '' : 's'}), columns:`];
  for (const [name, type, flags] of columns) {
    lines.push(`  ${name.padEnd(widths[0])}  ${type.padEnd(widths[1])}  ${flags}`.trimEnd());
  }
  if (info.foreignKeys.length > 0) {
    lines.push('Foreign keys:');
    for (const fk of info.foreignKeys) lines.push(`  ${fk.column} -> ${fk.refTable}.${fk.refColumn ?? '(primary key)'}`);
  }
  return lines.join('\n');
}
