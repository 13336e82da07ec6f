/**
 * How the environment will read an answer that goes to it as typed (one line, or JSON): its primary reading from
 * the environment's own reader (`parseAnswer`, src/env/answer-read.ts), as a shape, the format and its cells, for
 * the answer box's "read as" line. A list or rows on one line (`Rex, Tom`, `[["Rex", 3]]`) is worth showing; a plain
 * value (`42`, `Smith`) reads as itself and gets no preview; a literal that reads as something else (`"abc"` as abc,
 * `None` as NULL) does. The environment also tries the whole text as one value (so "Smith, John" counts as a name
 * too): `alsoOneValue` says so when a list or rows reading comes first.
 *
 * Pure, unit-tested (tests/ui/play-answer-inline.test.ts). Cost: the reader is linear in the text.
 */
import { answerInterpretations, FORMAT_LABEL, type AnswerCell } from '../../env/answer-read.ts';
import { plural } from '../components/plural.ts';

export interface InlineReading {
  /** "a list of 3 values (comma-separated)", "2 rows × 2 columns (JSON)", "one value (JSON)". */
  summary: string;
  /** The cells as the environment will compare them, as text (null as NULL); a list is one column. */
  rows: string[][];
  columns: number;
  /** The whole text is tried as one value too (lists and rows read from text). */
  alsoOneValue: boolean;
}

function cellText(c: AnswerCell): string {
  return c === null ? 'NULL' : String(c);
}

/** The "read as" preview of an as-typed answer, or null when there is nothing to say beyond the text itself. */
export function inlineReading(answer: string): InlineReading | null {
  const readings = answerInterpretations(answer);
  const p = readings[0];
  const format = FORMAT_LABEL[p.format];
  const alsoOneValue = p.kind !== 'scalar' && readings.some((r) => r.kind === 'scalar' && r.format === 'text');
  switch (p.kind) {
    case 'scalar': {
      const text = cellText(p.value);
      return text === answer.trim() ? null : { summary: `one value (${format})`, rows: [[text]], columns: 1, alsoOneValue };
    }
    case 'list':
      return { summary: `a list of ${plural(p.values.length, 'value')} (${format})`, rows: p.values.map((v) => [cellText(v)]), columns: 1, alsoOneValue };
    case 'rows': {
      const columns = p.rows.reduce((m, r) => Math.max(m, r.length), 0);
      const shape = p.rows.length === 0 ? 'no rows' : `${plural(p.rows.length, 'row')} × ${plural(columns, 'column')}`;
      return { summary: `${shape} (${format})`, rows: p.rows.map((r) => r.map(cellText)), columns, alsoOneValue };
    }
    default:
      return p satisfies never;
  }
}
