/**
 * Play's answer box reading a pasted table (src/ui/play/answer-table.ts): which delimiter, which line is a header,
 * what is left out, and that the ANSWER it makes is judged correct by the environment's own verifier where the
 * paste holds the gold rows (and a header read as data would make it wrong). Hostile pastes: quotes, CSV quoting,
 * ragged rows, a huge paste, and linear work on adversarial families (counted, not timed: tests/fixtures/work-count.ts).
 */
import { describe, expect, it } from 'vitest';
import { answerMatches } from '../../src/env/answer.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import { MAX_TABLE_CHARS, readAnswer, splitRecords, type AnswerReading, type TableReading } from '../../src/ui/play/answer-table.ts';
import { PASTE_INPUTS } from '../fixtures/hostile-text.ts';
import { PROBE_SIZES, WORK_RATIO_LIMIT, workGrowth } from '../fixtures/work-count.ts';

function table(reading: AnswerReading): TableReading {
  if (reading.kind !== 'table') throw new Error(`expected a table, got ${reading.kind}`);
  return reading;
}

const PETS: ResultTable = { columns: ['name', 'age'], rows: [['Rex', 3], ['Tom', 5]] };

describe('readAnswer: what goes to the environment as typed', () => {
  it.each([
    ['', 'empty'],
    ['   \n  ', 'empty'],
  ])('%j is empty', (text, kind) => expect(readAnswer(text).kind).toBe(kind));

  it.each([
    ['42', 'one-line'],
    ['Rex, Tom', 'one-line'],
    ['Rex\tTom', 'one-line'],
    ['[["Rex", 3], ["Tom", 5]]', 'json'],
    ['[\n  ["Rex", 3],\n  ["Tom", 5]\n]', 'json'],
    ['{"name": "Rex"}', 'json'],
  ])('%j is sent as typed (%s)', (text, why) => {
    expect(readAnswer(text)).toEqual({ kind: 'as-is', why, answer: text.trim() });
  });

  it('a paste longer than the cap is sent as typed, not read', () => {
    const huge = 'a\tb\n'.repeat(MAX_TABLE_CHARS / 4 + 1);
    expect(readAnswer(huge)).toMatchObject({ kind: 'as-is', why: 'too-long' });
  });
});

describe('readAnswer: delimiters', () => {
  const cases: Array<[string, string, string[][]]> = [
    ['tab', 'Rex\t3\nTom\t5', [['Rex', '3'], ['Tom', '5']]],
    ['pipe', 'Rex | 3\nTom | 5', [['Rex', '3'], ['Tom', '5']]],
    ['comma', 'Rex, 3\nTom, 5', [['Rex', '3'], ['Tom', '5']]],
    ['semicolon', 'Rex;3\nTom;5', [['Rex', '3'], ['Tom', '5']]],
    ['markdown', '| Rex | 3 |\n| Tom | 5 |', [['Rex', '3'], ['Tom', '5']]],
    ['lines', 'Rex\nTom\n\nKit', [['Rex'], ['Tom'], ['Kit']]],
    // Tabs win over commas inside cells; Windows line ends; a trailing tab on every row (a copied table).
    ['tab', 'Smith, John\t3\r\nDoe, Jane\t5\r\n', [['Smith, John', '3'], ['Doe, Jane', '5']]],
    ['tab', 'Rex\t3\t\nTom\t5\t', [['Rex', '3'], ['Tom', '5']]],
  ];
  it.each(cases)('reads %s: %j', (delimiter, text, rows) => {
    const t = table(readAnswer(text, { header: false }));
    expect(t.delimiter).toBe(delimiter);
    expect(t.rows).toEqual(rows);
    expect(t.ragged).toBe(false);
  });

  it('reads CSV quoting: commas, quotes and a line break inside quotes', () => {
    const t = table(readAnswer('"Smith, John",3\n"say ""hi""",4\n"two\nlines",5', { header: false }));
    expect(t.delimiter).toBe('comma');
    expect(t.rows).toEqual([['Smith, John', '3'], ['say "hi"', '4'], ['two\nlines', '5']]);
  });

  it('a quote that never closes is read as a plain character', () => {
    const t = table(readAnswer('"Rex,3\nTom,5', { header: false }));
    expect(t.rows).toEqual([['"Rex', '3'], ['Tom', '5']]);
  });

  it('a quote inside an unquoted cell stays', () => {
    expect(table(readAnswer('O"Brien,3\nTom,5', { header: false })).rows).toEqual([['O"Brien', '3'], ['Tom', '5']]);
  });

  it('markdown: escaped pipes, alignment colons, and a caption line left out', () => {
    const t = table(readAnswer('Pets\n| name | note |\n|:---|---:|\n| Rex | a \\| b |\n| Tom | c |'));
    expect(t.delimiter).toBe('markdown');
    expect(t.header).toEqual(['name', 'note']);
    expect(t.rows).toEqual([['Rex', 'a | b'], ['Tom', 'c']]);
    expect(t.dropped).toEqual(['Pets']);
  });

  it('a caption above and a "2 rows" note below a copied table are left out and listed', () => {
    const t = table(readAnswer('Gold answer\nname\tage\nRex\t3\nTom\t5\n2 rows'));
    expect(t.dropped).toEqual(['Gold answer', '2 rows']);
    expect(t.header).toEqual(['name', 'age']);
    expect(t.rows).toEqual([['Rex', '3'], ['Tom', '5']]);
  });

  it('ragged rows are read as they are and flagged', () => {
    const t = table(readAnswer('a\tb\tc\nd\te\nf\tg\th\ti', { header: false }));
    expect(t.delimiter).toBe('tab');
    expect(t.ragged).toBe(true);
    expect(t.columns).toBe(4);
    expect(t.rows.map((r) => r.length)).toEqual([3, 2, 4]);
  });
});

describe('readAnswer: the header', () => {
  const cases: Array<[string, string, string[], boolean]> = [
    ['names of a result seen', 'NAME\tAge\nRex\t3\nTom\t5', ['name', 'age'], true],
    ['words above numbers', 'pet\tyears\nRex\t3\nTom\t5', [], true],
    ['a line like the others', 'Rex\tAnn\nTom\tBob', [], false],
    ['numbers in the first line', '1\t3\n2\t5', [], false],
    ['a blank cell in the first line', 'x\t\nRex\t3\nTom\t5', [], false],
    ['one column: a word above numbers', 'count\n3\n5', [], true],
    ['one column of words', 'Rex\nTom', [], false],
    ['known names only partly', 'name\tzzz\nRex\tAnn\nTom\tBob', ['name'], false],
  ];
  it.each(cases)('%s', (_label, text, knownColumns, header) => {
    const t = table(readAnswer(text, { knownColumns }));
    expect(t.headerGuess).toBe(header);
    expect(t.header !== null).toBe(header);
    expect(t.rows.length).toBe(text.split('\n').length - (header ? 1 : 0));
  });

  it('the person overrides the guess both ways', () => {
    const text = 'pet\tyears\nRex\t3\nTom\t5';
    const off = table(readAnswer(text, { header: false }));
    expect(off.header).toBeNull();
    expect(off.rows).toHaveLength(3);
    expect(off.headerGuess).toBe(true);
    const on = table(readAnswer('Rex\tAnn\nTom\tBob', { header: true }));
    expect(on.header).toEqual(['Rex', 'Ann']);
    expect(on.rows).toEqual([['Tom', 'Bob']]);
    expect(on.headerReason).toMatch(/you marked/);
  });

  it('a markdown |---| line names the header whatever the cells hold', () => {
    const t = table(readAnswer('| 1 | 2 |\n|---|---|\n| 3 | 4 |'));
    expect(t.header).toEqual(['1', '2']);
    expect(t.rows).toEqual([['3', '4']]);
    expect(table(readAnswer('| 1 | 2 |\n|---|---|\n| 3 | 4 |', { header: false })).rows).toEqual([['1', '2'], ['3', '4']]);
  });
});

describe('the ANSWER it makes, judged by the environment', () => {
  const pastes: Array<[string, string]> = [
    ['tab with header', 'name\tage\nRex\t3\nTom\t5'],
    ['tab without header', 'Rex\t3\nTom\t5'],
    ['markdown', '| name | age |\n|---|---|\n| Rex | 3 |\n| Tom | 5 |'],
    ['comma with header', 'name,age\nRex,3\nTom,5'],
    ['pipe, columns swapped', 'age | name\n5 | Tom\n3 | Rex'],
    ['copied with caption and note', 'Gold answer\nname\tage\nRex\t3\nTom\t5\n2 rows'],
  ];
  it.each(pastes)('%s is correct', (_label, text) => {
    const reading = readAnswer(text, { knownColumns: PETS.columns });
    expect(answerMatches(reading.kind === 'empty' ? '' : reading.answer, PETS, false).match).toBe(true);
  });

  it('the environment reads the raw paste the same way (a header naming the columns is dropped); header as data is wrong', () => {
    expect(answerMatches('name\tage\nRex\t3\nTom\t5', PETS, false).match).toBe(true);
    expect(answerMatches('pet\tyears\nRex\t3\nTom\t5', PETS, false).match).toBe(false);
    const asData = table(readAnswer('name\tage\nRex\t3\nTom\t5', { header: false }));
    expect(answerMatches(asData.answer, PETS, false).match).toBe(false);
  });

  it('cells keep their text: decimals as written reach the verifier', () => {
    const gold: ResultTable = { columns: ['x', 'y'], rows: [['a', 3.3333333], ['b', 1]] };
    expect(answerMatches(table(readAnswer('a\t3.33\nb\t1')).answer, gold, false).match).toBe(true);
    expect(answerMatches(table(readAnswer('a\t3.3\nb\t1')).answer, gold, false).match).toBe(false);
  });
});

describe('linear work on hostile pastes', () => {
  /**
   * The regexes the reader may run, and why each is linear: anchored at both ends, one start, and no quantified part
   * that can match what its neighbour matches (digits, then a point, then digits, then an exponent).
   */
  const REVIEWED_REGEXES = ['/^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)(e[+-]?\\d+)?$/i'];
  it.each(PASTE_INPUTS)('%s: each 10× larger paste costs at most WORK_RATIO_LIMIT× the work', (_label, make) => {
    expect(make(PROBE_SIZES[PROBE_SIZES.length - 1]).length).toBeLessThan(MAX_TABLE_CHARS); // read, not sent as typed
    const growth = workGrowth(make, (text) => readAnswer(text));
    expect(Math.max(...growth.ratios), growth.detail).toBeLessThanOrEqual(WORK_RATIO_LIMIT);
    expect(growth.regexes.filter((re) => !REVIEWED_REGEXES.includes(re)), 'a regex to review').toEqual([]);
  });

  it('splitRecords reports an unclosed quote instead of reading to the end twice', () => {
    expect(splitRecords('"abc', ',')).toBeNull();
    expect(splitRecords('"abc', ',', false)).toEqual([['"abc']]);
  });
});
