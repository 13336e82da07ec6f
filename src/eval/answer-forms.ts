/**
 * The corpus of fair answer forms: every gold result written in each form a person or a model would use (JSON,
 * Python reprs, bare lists, CSV/TSV/`;`/`|` with and without a header, markdown with and without its |---| line or
 * header, `name: value` lines, one value per line), each form only where it can express the gold exactly. Two
 * measurements over it, both printed by `npm run eval:answer-forms`:
 * - acceptance: how many texts of each form the lenient verifier accepts for their own gold (target: all);
 * - hedges: for every pair of different gold results of one database, whether any form of one is accepted for the
 *   other. A pair whose canonical JSON text is already accepted for both is leniently equal (the verifier reads
 *   their values as one answer: 3.33 for 3.333 and 3.334, 'a' for 'A'), counted apart; any other text accepted for
 *   both is a hedge, one text passing for two different answers, and must not exist.
 */
import type { Question } from '../data/types.ts';
import { answerMatches } from '../env/answer.ts';
import { blobHex } from '../env/verifier.ts';
import type { SqlValue } from '../sql/types.ts';

export type AnswerForm =
  | 'json'
  | 'json-rows'
  | 'json-records'
  | 'python-fetchall'
  | 'python-tuple'
  | 'python-list'
  | 'bare-list'
  | 'csv'
  | 'csv-header'
  | 'tsv'
  | 'tsv-header'
  | 'semicolon-header'
  | 'pipe'
  | 'markdown'
  | 'markdown-no-rule'
  | 'markdown-no-header'
  | 'name-value'
  | 'value-under-name'
  | 'lines';

export const ANSWER_FORMS: readonly AnswerForm[] = [
  'json', 'json-rows', 'json-records', 'python-fetchall', 'python-tuple', 'python-list', 'bare-list', 'csv', 'csv-header', 'tsv',
  'tsv-header', 'semicolon-header', 'pipe', 'markdown', 'markdown-no-rule', 'markdown-no-header', 'name-value', 'value-under-name', 'lines',
];

type Cell = string | number | null;

/** A gold cell as answers write it: BLOBs as hex text (as the Oracle does). */
function cellOf(v: SqlValue): Cell {
  return v instanceof Uint8Array ? blobHex(v) : v;
}

/** Python's repr of a cell: None, numbers as written by String (SQLite gives JS numbers), '…' strings escaped. */
function pyRepr(c: Cell): string {
  if (c === null) return 'None';
  if (typeof c === 'number') return Number.isFinite(c) ? String(c) : 'None';
  const quote = c.includes("'") && !c.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of c) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return quote + out + quote;
}

/** RFC 4180 (as Python's csv module writes): quoted when it holds the delimiter, a quote, a line break or edge spaces. */
function csvCell(c: Cell, delim: string, onlyColumn: boolean): string {
  const s = c === null ? '' : String(c);
  const needs = s.includes(delim) || s.includes('"') || s.includes('\n') || s.includes('\r') || s !== s.trim() || (onlyColumn && s === '') || s.startsWith("'");
  return needs ? `"${s.split('"').join('""')}"` : s;
}

/** Plain text of a cell on one line between `|`: undefined when it cannot be written so. */
function plainCell(c: Cell, forbidden: readonly string[]): string | undefined {
  const s = c === null ? 'null' : String(c);
  if (s.trim() === '' || s !== s.trim() || forbidden.some((f) => s.includes(f)) || s.includes('\n') || s.includes('\r')) return undefined;
  return s;
}

function all<T>(items: Array<T | undefined>): T[] | undefined {
  return items.every((x): x is T => x !== undefined) ? items : undefined;
}

function csv(rows: Cell[][], columns: string[] | null, delim: string): string {
  const m = rows[0]?.length ?? columns?.length ?? 0;
  const line = (cells: Cell[]): string => cells.map((c) => csvCell(c, delim, m === 1)).join(delim);
  return [...(columns ? [line(columns)] : []), ...rows.map(line)].join('\n');
}

function markdown(rows: Cell[][], columns: string[] | null, rule: boolean): string | undefined {
  const body = all(rows.map((r) => all(r.map((c) => plainCell(c, ['|'])))));
  const head = columns ? all(columns.map((c) => plainCell(c, ['|']))) : [];
  if (!body || !head) return undefined;
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [...(columns ? [line(head)] : []), ...(rule ? [line(head.length > 0 ? head.map(() => '---') : body[0].map(() => '---'))] : []), ...body.map(line)].join('\n');
}

/** The text of `q`'s gold in `form`, or undefined when the form cannot express it. */
export function formText(q: Question, form: AnswerForm): string | undefined {
  const { columns } = q.goldResult;
  const rows = q.goldResult.rows.map((r) => r.map(cellOf));
  const n = rows.length;
  const m = columns.length;
  const single = m === 1 ? rows.map((r) => r[0]) : n === 1 ? rows[0] : undefined;
  switch (form) {
    case 'json':
      return n === 1 && m === 1 ? JSON.stringify(rows[0][0]) : JSON.stringify(single ?? rows);
    case 'json-rows':
      return JSON.stringify(rows);
    case 'json-records':
      return new Set(columns).size === m ? JSON.stringify(rows.map((r) => Object.fromEntries(r.map((c, i) => [columns[i], c])))) : undefined;
    case 'python-fetchall':
      return `[${rows.map((r) => `(${r.map(pyRepr).join(', ')}${m === 1 ? ',' : ''})`).join(', ')}]`;
    case 'python-tuple':
      return n === 1 ? `(${rows[0].map(pyRepr).join(', ')}${m === 1 ? ',' : ''})` : undefined;
    case 'python-list':
      return single ? `[${single.map(pyRepr).join(', ')}]` : undefined;
    case 'bare-list': {
      const cells = single && all(single.map((c) => plainCell(c, [',', '[', ']', '"', "'"])));
      return cells ? `[${cells.join(', ')}]` : undefined;
    }
    case 'csv':
      return csv(rows, null, ',');
    case 'csv-header':
      return csv(rows, columns, ',');
    case 'tsv':
      return csv(rows, null, '\t');
    case 'tsv-header':
      return csv(rows, columns, '\t');
    case 'semicolon-header':
      return csv(rows, columns, ';');
    case 'pipe': {
      const body = all(rows.map((r) => all(r.map((c) => plainCell(c, ['|'])))));
      return body && m >= 2 ? body.map((r) => r.join(' | ')).join('\n') : undefined;
    }
    case 'markdown':
      return markdown(rows, columns, true);
    case 'markdown-no-rule':
      return markdown(rows, columns, false);
    case 'markdown-no-header':
      return markdown(rows, null, false);
    case 'name-value': {
      if (columns.some((c) => c.includes(':') || c.trim() === '') || new Set(columns.map((c) => c.toLowerCase())).size !== m) return undefined;
      const lines = all(rows.flatMap((r) => r.map((c, i) => (plainCell(c, []) === undefined ? undefined : `${columns[i]}: ${plainCell(c, [])}`))));
      return lines?.join('\n');
    }
    case 'value-under-name': {
      const cells = m === 1 && all(rows.map((r) => plainCell(r[0], ['"'])));
      return cells ? [columns[0], ...cells].join('\n') : undefined;
    }
    case 'lines': {
      const cells = m === 1 && all(rows.map((r) => plainCell(r[0], ['"'])));
      return cells ? cells.join('\n') : undefined;
    }
    default:
      return form satisfies never;
  }
}

export interface FormTally {
  form: AnswerForm;
  /** Golds the form can express, and texts the verifier accepted for their own gold. */
  expressible: number;
  accepted: number;
}

export interface FormsReport {
  questions: number;
  tallies: FormTally[];
  /** Forms refused for their own gold: [question id, form, text]. */
  refused: Array<[string, AnswerForm, string]>;
}

export function runAnswerForms(questions: readonly Question[]): FormsReport {
  const tallies = ANSWER_FORMS.map((form) => ({ form, expressible: 0, accepted: 0 }));
  const refused: FormsReport['refused'] = [];
  for (const q of questions) {
    ANSWER_FORMS.forEach((form, k) => {
      const text = formText(q, form);
      if (text === undefined) return;
      tallies[k].expressible++;
      if (answerMatches(text, q.goldResult, q.orderMatters, q.goldTies).match) tallies[k].accepted++;
      else refused.push([q.id, form, text]);
    });
  }
  return { questions: questions.length, tallies, refused };
}

export function formatFormsReport(r: FormsReport, title: string): string {
  const head = `${'form'.padEnd(20)} ${'expressible'.padStart(11)} ${'accepted'.padStart(9)} ${'%'.padStart(7)}`;
  const lines = r.tallies.map((t) => `${t.form.padEnd(20)} ${String(t.expressible).padStart(11)} ${String(t.accepted).padStart(9)} ${(t.expressible === 0 ? '-' : ((100 * t.accepted) / t.expressible).toFixed(1)).padStart(7)}`);
  return [`${title}: ${r.questions} questions`, head, ...lines, `refused: ${r.refused.length}`].join('\n');
}

export interface HedgeReport {
  databases: number;
  /** Distinct gold results (by rows, columns, order and ties) and the ordered pairs of them on one database. */
  golds: number;
  pairs: number;
  /** Pairs whose canonical JSON text passes for both (the verifier reads them as one answer). */
  lenientlyEqual: number;
  textsTried: number;
  /** Texts of one gold accepted for another, different gold of the same database: must be empty. */
  hedges: Array<{ from: string; to: string; form: AnswerForm; text: string }>;
}

/** Every ordered pair of different gold results per database, every form of the first tried against the second. */
export function findHedges(questions: readonly Question[]): HedgeReport {
  const byDb = new Map<string, Question[]>();
  for (const q of questions) {
    const key = JSON.stringify([q.goldResult.columns, q.goldResult.rows.map((r) => r.map(cellOf)), q.orderMatters, q.goldTies ?? null]);
    const list = byDb.get(q.dbId) ?? [];
    if (!list.some((p) => JSON.stringify([p.goldResult.columns, p.goldResult.rows.map((r) => r.map(cellOf)), p.orderMatters, p.goldTies ?? null]) === key)) list.push(q);
    byDb.set(q.dbId, list);
  }
  const report: HedgeReport = { databases: byDb.size, golds: 0, pairs: 0, lenientlyEqual: 0, textsTried: 0, hedges: [] };
  for (const golds of byDb.values()) {
    report.golds += golds.length;
    const texts = golds.map((q) => ANSWER_FORMS.flatMap((form) => {
      const text = formText(q, form);
      return text === undefined ? [] : [[form, text] as const];
    }));
    golds.forEach((a, i) => {
      golds.forEach((b, j) => {
        if (i === j) return;
        report.pairs++;
        const accepts = (text: string): boolean => answerMatches(text, b.goldResult, b.orderMatters, b.goldTies).match;
        if (accepts(formText(a, 'json-rows') ?? '') || accepts(formText(a, 'json') ?? '')) {
          report.lenientlyEqual++;
          return;
        }
        for (const [form, text] of texts[i]) {
          report.textsTried++;
          if (accepts(text)) report.hedges.push({ from: a.id, to: b.id, form, text });
        }
      });
    });
  }
  return report;
}

export function formatHedgeReport(r: HedgeReport, title: string): string {
  return [
    `${title}: ${r.databases} databases, ${r.golds} distinct gold results, ${r.pairs} ordered pairs on one database`,
    `pairs read as one answer (canonical JSON accepted for both): ${r.lenientlyEqual}`,
    `texts tried on the other gold: ${r.textsTried}; accepted for two different golds (hedges): ${r.hedges.length}`,
    ...r.hedges.slice(0, 10).map((h) => `  ${h.form} of ${h.from} accepted for ${h.to}: ${JSON.stringify(h.text.slice(0, 120))}`),
  ].join('\n');
}
