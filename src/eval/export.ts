/**
 * Exports of a run's episodes as files people open elsewhere: CSV (one row per episode, for spreadsheets and
 * pandas) and JSONL — the run file (run-file.ts: a header line naming the environment version, dataset, policy and
 * settings, then one full episode record per line), which Evaluate and Compare import back. Pure functions of the
 * records; the page turns the text into a download.
 *
 * CSV follows RFC 4180: fields are separated by commas, lines end with CRLF, and a field holding a comma, a double
 * quote, a CR or an LF is wrapped in double quotes with each inner quote doubled.
 *
 * Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or
 * a CR as a formula, and records carry text from models and databases. Such a field is written as text: prefixed
 * with a single quote `'` and wrapped in double quotes (inner quotes doubled), so `=1+1` is written `"'=1+1"` and a
 * spreadsheet shows `'=1+1`. A field that is a plain decimal number (`-0.05`, `+3`, `1e-7`) is left alone: it cannot
 * hold a formula, and the reward columns are often negative, so spreadsheets and pandas still read them as numbers.
 * Everything else is written as is, so what a tool reads back is exactly the record's value.
 */
import { headerOf, toRunFile } from './run-file.ts';
import type { RunSummary } from './run-store.ts';
import type { EpisodeRecord } from './transcript.ts';

/** One CSV column: its header and how a record gives its value. */
interface CsvColumn {
  header: string;
  value: (record: EpisodeRecord, index: number) => string | number | boolean;
}

/** Separates the actions of an episode in the `actions` column: one action per line of the cell. */
export const ACTION_SEPARATOR = '\n';

export const CSV_COLUMNS: readonly CsvColumn[] = [
  { header: 'episode', value: (_r, i) => i + 1 },
  { header: 'policy', value: (r) => r.policy },
  { header: 'dataset', value: (r) => r.dataset },
  { header: 'question_id', value: (r) => r.questionId },
  { header: 'db_id', value: (r) => r.dbId },
  { header: 'difficulty', value: (r) => r.difficulty },
  { header: 'split', value: (r) => r.split },
  { header: 'seed', value: (r) => r.seed },
  { header: 'success', value: (r) => r.success },
  { header: 'return', value: (r) => r.episodeReturn },
  { header: 'correctness', value: (r) => r.components.correctness },
  { header: 'progress', value: (r) => r.components.progress },
  { header: 'operational', value: (r) => r.components.operational },
  { header: 'steps', value: (r) => r.steps },
  { header: 'terminated', value: (r) => r.terminated },
  { header: 'truncated', value: (r) => r.truncated },
  { header: 'question', value: (r) => r.question },
  { header: 'actions', value: (r) => r.transcript.map((s) => s.actionText).join(ACTION_SEPARATOR) },
];

/** First characters that make a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number, optionally signed, with an optional exponent: safe to leave unescaped. */
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * One CSV field, quoted when it must be (RFC 4180), and written as text when a spreadsheet would run it as a formula
 * (see the header). Numbers keep full precision; booleans are `true`/`false`.
 */
export function csvField(value: string | number | boolean): string {
  const text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line, then one line per episode, in the records' order; every line ends with CRLF. */
export function toCsv(records: readonly EpisodeRecord[]): string {
  const lines = [CSV_COLUMNS.map((c) => csvField(c.header)).join(',')];
  records.forEach((record, i) => lines.push(CSV_COLUMNS.map((c) => csvField(c.value(record, i))).join(',')));
  return lines.map((line) => `${line}\r\n`).join('');
}

export type ExportFormat = 'jsonl' | 'csv';

export interface ExportFile {
  name: string;
  mimeType: string;
  text: string;
}

/** What a run's name in a file looks like: letters, digits, dots, dashes and underscores only. */
function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'run';
}

/**
 * The file for a run's episodes in a format, named `sqlenv-<policy>-<dataset>-<split>-<date>.<ext>` (date as
 * `YYYYMMDD-HHMMSS`, UTC, from `createdAt` in milliseconds since the epoch).
 */
export function exportFile(format: ExportFormat, run: RunSummary, records: readonly EpisodeRecord[]): ExportFile {
  const stamp = new Date(run.createdAt).toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
  const base = `sqlenv-${slug(run.policy)}-${slug(run.dataset)}-${slug(run.split)}-${stamp}`;
  switch (format) {
    case 'jsonl':
      return { name: `${base}.jsonl`, mimeType: 'application/x-ndjson', text: toRunFile(headerOf(run, 'page'), records) };
    case 'csv':
      return { name: `${base}.csv`, mimeType: 'text/csv', text: toCsv(records) };
    default:
      return format satisfies never;
  }
}
