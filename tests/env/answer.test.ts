/**
 * Lenient ANSWER verifier: how texts are read (scalar, list, rows; JSON and plain formats) and which answers match
 * a gold result, including wrong answers that must not.
 */
import { describe, it, expect } from 'vitest';
import type { SqlValue } from '../../src/sql/types.ts';
import type { ResultTable } from '../../src/env/verifier.ts';
import { answerInterpretations, answerMatches, cellMatches, describeVerdict, namesColumns, normalizeText, parseAnswer, readNumber, shownDecimals, splitCells, type AnswerCell } from '../../src/env/answer.ts';
import { splitTable } from '../../src/env/answer-read.ts';
import type { GoldTies } from '../../src/data/types.ts';

const t = (rows: SqlValue[][]): ResultTable => ({ columns: (rows[0] ?? []).map((_, i) => `c${i}`), rows });
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

type Case = [answer: string, gold: SqlValue[][], orderMatters: boolean, expected: boolean];

const PEOPLE: SqlValue[][] = [['Alice', 30], ['Bob', 25]];

const SCALARS: Case[] = [
  ['42', [[42]], false, true],
  ['  42  ', [[42]], false, true],
  ['42.0', [[42]], false, true],
  ['4.2e1', [[42]], false, true],
  ['1,234', [[1234]], false, true],
  ['41', [[42]], false, false],
  ['42', [['42']], false, true],
  ['forty-two', [[42]], false, false],
  ['smith', [['Smith']], false, true],
  ['  SMITH ', [['Smith']], false, true],
  ['"Smith"', [['Smith']], false, true],
  ["'Smith'", [['Smith']], false, true],
  ['John   Smith', [['John Smith']], false, true],
  ['John Smith', [['John  Smith ']], false, true],
  ['Smyth', [['Smith']], false, false],
  ['Smith', [['Smithson']], false, false],
  ['Smith', [['Smith'], ['Jones']], false, false],
  // integers are exact: no relative tolerance (the old rule accepted these two)
  ['16512462', [[16514113]], false, false],
  ['20001', [[20000]], false, false],
  ['19999', [[20000]], false, false],
  ['16514113', [[16514113]], false, true],
  ['6', [[6.0]], false, true],
  ['6.0', [[6]], false, true],
  ['6.00', [[6]], false, true],
  ['6.04', [[6]], false, false],
  ['6.1', [[6]], false, false],
  ['31', [[30]], false, false],
  ['-7', [[-7]], false, true],
  ['7', [[-7]], false, false],
  ['1000.05', [[1000]], false, false],
  ['100.02', [[100]], false, false],
  ['1,234', [['1,234']], false, true],
  ['1234', [['1,234']], false, true],
  ['1,235', [[1234]], false, false],
  // decimals: d ≥ min(2, decimals of the gold), and |a − g| ≤ 0.5·10^-d (rounded, not truncated)
  ['0.3', [[0.1 + 0.2]], false, true], // binary noise is not a decimal the answer must show
  ['3', [[0.1 + 0.2 + 2.7]], false, true], // 3.0000000000000004 is 3
  ['3.14159', [[Math.PI]], false, true],
  ['3.14', [[Math.PI]], false, true],
  ['3.1', [[Math.PI]], false, false],
  ['3.15', [[Math.PI]], false, false],
  ['3.33', [[3.3333333]], false, true],
  ['3.333', [[3.3333333]], false, true],
  ['3.3', [[3.3333]], false, false],
  ['3', [[3.3333]], false, false],
  ['3.34', [[3.3333]], false, false],
  ['6.67', [[6.666666]], false, true],
  ['6.66', [[6.666666]], false, false], // truncated, not rounded
  ['2.66', [[2.6666]], false, false],
  ['2.67', [[2.6666]], false, true],
  ['66.66', [[66.666666]], false, false],
  ['15.5', [[15.5]], false, true],
  ['15.50', [[15.5]], false, true],
  ['16', [[15.5]], false, false],
  ['15', [[15.5]], false, false],
  ['15.6', [[15.5]], false, false],
  ['15.5', [['15.50']], false, true], // equal numbers always match
  ['15.49', [['15.50']], false, false],
  ['3', [[3.4]], false, false],
  ['3.0', [[2.96]], false, false],
  ['0.5', [[0.45]], false, false],
  // exponent form: exact up to a relative 1e-9
  ['1.6514113e7', [[16514113]], false, true],
  ['1.6514e7', [[16514113]], false, false],
  ['3.3333333e0', [[3.3333333]], false, true],
  // NULL
  ['null', [[null]], false, true],
  ['None', [[null]], false, true],
  ['NULL', [[null]], false, true],
  ['', [[null]], false, true],
  ['0', [[null]], false, false],
  ['nothing', [[null]], false, false],
  ['null', [['None']], false, true],
  // "Smith, John" is tried as a scalar and as a list
  ['Smith, John', [['Smith, John']], false, true],
  ['Smith, John', [['Smith'], ['John']], false, true],
  ['Smith, John', [['John', 'Smith']], false, true],
  ['Smith, John', [['Smith']], false, false],
  // blobs
  ['hi', [[utf8('hi')]], false, true],
  ['6869', [[utf8('hi')]], false, true],
  ["x'6869'", [[utf8('hi')]], false, true],
  ['ho', [[utf8('hi')]], false, false],
];

const LISTS: Case[] = [
  ['a, b, c', [['a'], ['b'], ['c']], false, true],
  ['c, a, b', [['a'], ['b'], ['c']], false, true],
  ['c, a, b', [['a'], ['b'], ['c']], true, false],
  ['a, b, c', [['a'], ['b'], ['c']], true, true],
  ['a\nb\nc', [['a'], ['b'], ['c']], false, true],
  ['a\r\n\r\nb\r\nc\n', [['a'], ['b'], ['c']], false, true],
  ['a; b; c', [['a'], ['b'], ['c']], false, true],
  ['- a\n- b\n- c', [['a'], ['b'], ['c']], false, true],
  ['1. a\n2. b\n3. c', [['a'], ['b'], ['c']], true, true],
  ['a, b', [['a'], ['b'], ['c']], false, false],
  ['a, b, c, d', [['a'], ['b'], ['c']], false, false],
  ['a, a, b', [['a'], ['b'], ['b']], false, false],
  ['a, b, b', [['a'], ['b'], ['b']], false, true],
  ['1, 2, 3', [[3], [1], [2]], false, true],
  ['1.50, 2', [[1.5], [2]], false, true],
  ['"Smith, John", "Doe, Jane"', [['Smith, John'], ['Doe, Jane']], false, true],
  ["O'Brien, O'Neil", [["O'Brien"], ["O'Neil"]], false, true],
  // list against a one-row gold: values vs columns in any order
  ['John, 42', [[42, 'John']], false, true],
  ['John, 42', [[42, 'John']], true, true],
  ['John, 43', [[42, 'John']], false, false],
  ['John', [[42, 'John']], false, false],
  ['Smith, John\nDoe, Jane', [['Smith, John'], ['Doe, Jane']], false, true],
  ['5, 6', [[5]], false, false],
];

const ROWS: Case[] = [
  ['Alice | 30\nBob | 25', PEOPLE, false, true],
  ['Bob | 25\nAlice | 30', PEOPLE, false, true],
  ['Bob | 25\nAlice | 30', PEOPLE, true, false],
  ['30 | Alice\n25 | Bob', PEOPLE, true, true],
  ['Alice\t30\nBob\t25', PEOPLE, false, true],
  ['Alice, 30\nBob, 25', PEOPLE, false, true],
  ['| name | age |\n|---|---|\n| Alice | 30 |\n| Bob | 25 |', PEOPLE, true, true],
  ['| name | age |\n| :--- | ---: |\n| alice | 30.0 |\n| BOB | 25 |', PEOPLE, true, true],
  ['Alice | 30', PEOPLE, false, false],
  ['Alice | 31\nBob | 25', PEOPLE, false, false],
  ['Alice | 25\nBob | 30', PEOPLE, false, false],
  ['Alice | 30 | x\nBob | 25 | y', PEOPLE, false, false],
  ['Alice | 30\nBob | 25\nCarol | 20', PEOPLE, false, false],
  ['name | age\nAlice | 30\nBob | 25', PEOPLE, false, false],
  ['3.33 | x\n1 | y', [[3.3333, 'X'], [1, 'Y']], false, true],
  ['1 | null\n2 | b', [[1, null], [2, 'b']], false, true],
  ['1 | b\n2 | null', [[1, null], [2, 'b']], false, false],
];

const JSONS: Case[] = [
  ['5', [[5]], false, true],
  ['"Smith"', [['smith']], false, true],
  ['null', [[null]], false, true],
  ['true', [[1]], false, true],
  ['[1, 2, 3]', [[1], [2], [3]], false, true],
  ['[3, 2, 1]', [[1], [2], [3]], true, false],
  ['[["Alice", 30], ["Bob", 25]]', PEOPLE, true, true],
  ['[[30, "Alice"], [25, "Bob"]]', PEOPLE, false, true],
  ['[{"name": "Alice", "age": 30}, {"name": "Bob", "age": 25}]', PEOPLE, true, true],
  ['{"count": 7}', [[7]], false, true],
  ['[[7]]', [[7]], false, true],
  ['[7]', [[7]], false, true],
  ['[null, "x"]', [['x'], [null]], false, true],
  ['```json\n[1, 2]\n```', [[1], [2]], false, true],
  ['```\nAlice | 30\nBob | 25\n```', PEOPLE, false, true],
  ['```text\r\nAlice | 30\r\nBob | 25\r\n```', PEOPLE, false, true],
  ['```Alice | 30\nBob | 25```', PEOPLE, false, true], // the first line is data, not an info word
  ['```42```', [[42]], false, true],
  ['``````', [['']], false, true],
  ['[["Alice", 30]]', PEOPLE, false, false],
  ['[1, 2]', [[1], [2], [3]], false, false],
  ['{"a": 1, "b": 2}', [[1]], false, false],
];

const EMPTY_GOLD: Case[] = [
  ['[]', [], false, true],
  ['none', [], false, true],
  ['', [], false, true],
  ['No results', [], false, true],
  ['Alice', [], false, false],
  ['0', [], false, false],
];

// Issue 21: every fair form of a correct answer is read. The old reader refused each of these "right" cases
// (0/923 Spider golds for `[(6,)]`, a header line, a markdown table without its rule line, `(6,)`, a value under its
// column name); the "wrong" ones guard against reading too much.
type NamedCase = [answer: string, columns: string[], gold: SqlValue[][], orderMatters: boolean, expected: boolean];

const PYTHON: NamedCase[] = [
  ['[(6,)]', ['count(*)'], [[6]], false, true],
  ['(6,)', ['count(*)'], [[6]], false, true],
  ['(6)', ['count(*)'], [[6]], false, true], // (6) is 6 in Python
  ['[(7,)]', ['count(*)'], [[6]], false, false],
  ["[('a', 1), ('b', 2)]", ['name', 'n'], [['a', 1], ['b', 2]], true, true],
  ["[('b', 2), ('a', 1)]", ['name', 'n'], [['a', 1], ['b', 2]], true, false],
  ["[('a', 1), ('b', 3)]", ['name', 'n'], [['a', 1], ['b', 2]], false, false],
  ["['a', 'b']", ['name'], [['a'], ['b']], false, true],
  ["['a', 'b', 'c']", ['name'], [['a'], ['b']], false, false],
  ["[(None,), (None,)]", ['x'], [[null], [null]], false, true],
  ['[(True, False)]', ['a', 'b'], [[1, 0]], false, true],
  ['[("O\'Brien",)]', ['name'], [["O'Brien"]], false, true],
  ["[('it\\'s',)]", ['name'], [["it's"]], false, true],
  ["[('a\\nb',)]", ['name'], [['a\nb']], false, true],
  ["('Alice', 30.50)", ['name', 'age'], [['Alice', 30.5]], false, true],
  ['[[[1]]]', ['x'], [[1]], false, false], // three levels deep is no result shape
];

const BARE_LISTS: NamedCase[] = [
  ['[a, b]', ['name'], [['a'], ['b']], false, true],
  ['[Alice, Bob]', ['name'], [['Bob'], ['Alice']], false, true],
  ['[Alice, Bob]', ['name'], [['Bob'], ['Alice']], true, false],
  ['[Alice]', ['name'], [['Alice']], false, true],
  ['[Alice, Carol]', ['name'], [['Bob'], ['Alice']], false, false],
];

const HEADERS: NamedCase[] = [
  ['count(*)\n6', ['count(*)'], [[6]], false, true],
  ['COUNT (*)\n6', ['count(*)'], [[6]], false, true],
  ['total\n6', ['count(*)'], [[6]], false, false], // a line that names no column is data: two values
  ['name,age\nAlice,30\nBob,25', ['name', 'age'], PEOPLE, true, true],
  ['Name, Age\nAlice, 30\nBob, 25', ['name', 'age'], PEOPLE, true, true],
  ['age\tname\n30\tAlice\n25\tBob', ['name', 'age'], PEOPLE, true, true], // header in the answer's column order
  ['name;age\nAlice;30\nBob;25', ['T1.name', 'T2.age'], PEOPLE, false, true], // T1.name named as name
  ['nom,age\nAlice,30\nBob,25', ['name', 'age'], PEOPLE, false, false],
  // The header cannot smuggle a second guess: as data the first line is a row, as a header it names the columns.
  ['Alice,30\nBob,25', ['name', 'age'], [['Bob', 25]], false, false],
  ['name,age\nAlice,30', ['name', 'age'], [['name', 'age'], ['Alice', 30]], false, true],
  ['name,age\nAlice,30', ['name', 'age'], [['Alice', 30]], false, true],
  ['| name | age |\n| Alice | 30 |\n| Bob | 25 |', ['name', 'age'], PEOPLE, true, true], // markdown, no |---| line
  ['| Alice | 30 |\n| Bob | 25 |', ['name', 'age'], PEOPLE, true, true], // markdown, no header
  ['|---|---|\n| Alice | 30 |\n| Bob | 25 |', ['name', 'age'], PEOPLE, true, true],
  ['| count(*) |\n|---|\n| 6 |', ['count(*)'], [[6]], false, true],
  ['| count(*) |\n| 6 |', ['count(*)'], [[6]], false, true],
  ['| 6 |', ['count(*)'], [[6]], false, true],
  ['| Person | Years |\n|---|---|\n| Alice | 30 |', ['name', 'age'], [['Alice', 30]], false, true], // markdown's header is syntax
];

const LABELLED: NamedCase[] = [
  ['Name: Smith', ['name'], [['Smith']], false, true],
  ['count(*): 6', ['count(*)'], [[6]], false, true],
  ['name: Smith\nage: 30', ['name', 'age'], [['Smith', 30]], false, true],
  ['age: 30\nname: Smith', ['name', 'age'], [['Smith', 30]], false, true],
  ['name: a\nname: b', ['name'], [['a'], ['b']], false, true],
  ['Surname: Smith', ['name'], [['Smith']], false, false],
  ['Name: Jones', ['name'], [['Smith']], false, false],
];

const CSV_QUOTING: NamedCase[] = [
  ['name\n"a\nb"\nc', ['name'], [['a\nb'], ['c']], false, true], // a quoted cell holding a line break
  ['"a\nb",1\nc,2', ['name', 'n'], [['a\nb', 1], ['c', 2]], false, true],
  ['Employee,"6915 Point\nGleasonville, LA ",West Heidi', ['a', 'b', 'c'], [['Employee', '6915 Point\nGleasonville, LA ', 'West Heidi']], false, true],
  ['"say ""hi""",1\nb,2', ['name', 'n'], [['say "hi"', 1], ['b', 2]], false, true],
  ['"a ""x"", y",1\nb,2', ['name', 'n'], [['a "x", y', 1], ['b', 2]], false, true],
  ['"a\nb",1\nc,2', ['name', 'n'], [['a', 1], ['b', 1], ['c', 2]], false, false],
];

const ALL_NULL: NamedCase[] = [
  ['None\nNone', ['x'], [[null], [null]], false, true],
  ['null, null', ['x'], [[null], [null]], false, true],
  ['x\n""\n""', ['x'], [[null], [null]], false, true], // Python's csv writes a one-column NULL as ""
  ['\t', ['a', 'b'], [[null, null]], false, true], // TSV: a row of two empty cells
  ['a\tb\n1\t', ['a', 'b'], [[1, null]], false, true],
  ['[None, None]', ['a', 'b'], [[null, null]], false, true],
  ['None', ['x'], [[null], [null]], false, false], // how many rows is not said
  ['', ['x'], [[null], [null]], false, false],
];

const NAMED_GROUPS: Array<[string, NamedCase[]]> = [
  ['Python reprs', PYTHON],
  ['bracketed lists without quotes', BARE_LISTS],
  ['headers naming the columns', HEADERS],
  ['name: value lines', LABELLED],
  ['CSV quoting across lines', CSV_QUOTING],
  ['all-NULL answers', ALL_NULL],
];

describe('answerMatches: every fair form (issue 21)', () => {
  for (const [group, cases] of NAMED_GROUPS) {
    describe(group, () => {
      it.each(cases)('%j vs %j %j (order %s) → %s', (answer, columns, rows, orderMatters, expected) => {
        expect(answerMatches(answer, { columns, rows }, orderMatters).match).toBe(expected);
      });
    });
  }
});

describe('namesColumns', () => {
  it.each([
    [['name', 'age'], ['name', 'age'], true],
    [['AGE', ' Name '], ['name', 'age'], true],
    [['count (*)'], ['count(*)'], true],
    [['name'], ['T1.name'], true],
    [['t1.name'], ['T1.name'], true],
    [['name'], ['count(T1.name)'], false],
    [['name', 'name'], ['T1.name', 'T2.name'], true],
    [['name'], ['name', 'age'], false],
    [['name', 'x'], ['name', 'age'], false],
    [['Alice', '30'], ['name', 'age'], false],
  ] as Array<[string[], string[], boolean]>)('%j names %j: %s', (header, columns, expected) => {
    expect(namesColumns(header, columns)).toBe(expected);
  });
});

describe('splitTable', () => {
  it.each([
    ['a,b\nc,d', ',', [['a', 'b'], ['c', 'd']]],
    ['"a\nb",c\nd,e', ',', [['a\nb', 'c'], ['d', 'e']]],
    ['"x ""y""",z', ',', [['x "y"', 'z']]],
    ['"""",z', ',', [['"', 'z']]],
    ['"",z', ',', [['', 'z']]],
    ['"a"",b"', ',', [['a",b']]],
    ['"unclosed,x\ny,z', ',', [['"unclosed', 'x'], ['y', 'z']]],
    ["'a,b',c", ',', [["'a,b'", 'c']]],
    ["'a\nb',c", ',', [["'a"], ["b'", 'c']]], // a single quote does not span lines
    ['| a | b |\n| c | d |', '|', [['a', 'b'], ['c', 'd']]],
    ['a\t\n\tb', '\t', [['a', ''], ['', 'b']]],
    ['a,b\n\n\nc,d', ',', [['a', 'b'], ['c', 'd']]],
  ])('%j by %j', (body, delim, expected) => {
    expect(splitTable(body, delim).map((r) => r.cells)).toEqual(expected);
  });
});

// A gold `SELECT name, n FROM t ORDER BY n DESC LIMIT 2` on n = 9, 5, 5, 1: the first row is fixed, the second is
// either of the rows tied at 5 (the cut-off).
const TIES: GoldTies = { segments: [{ take: 1, pool: [['a', 9]] }, { take: 1, pool: [['b', 5], ['c', 5]] }] };
const TIED_GOLD: ResultTable = { columns: ['name', 'n'], rows: [['a', 9], ['b', 5]] };

describe('answerMatches with ties', () => {
  it.each([
    ['[["a", 9], ["b", 5]]', true],
    ['[["a", 9], ["c", 5]]', true], // the other row tied at the cut-off
    ['a | 9\nc | 5', true],
    ['[["c", 5], ["a", 9]]', false], // order still matters between different keys
    ['[["a", 9], ["d", 5]]', false], // not a row of the tie
    ['[["a", 9], ["c", 5], ["b", 5]]', false],
    ['[["a", 9]]', false],
    ['[["c", 5], ["b", 5]]', false],
  ])('%j → %s', (answer, expected) => {
    expect(answerMatches(answer, TIED_GOLD, true, TIES).match).toBe(expected);
    // Without the ties, only the stored result is right.
    expect(answerMatches(answer, TIED_GOLD, true).match).toBe(answer === '[["a", 9], ["b", 5]]' || answer === 'a | 9\nb | 5');
  });

  it('accepts tied rows in either order, and not a row twice', () => {
    const ties: GoldTies = { segments: [{ take: 2, pool: [['x', 1], ['y', 1]] }, { take: 1, pool: [['z', 0]] }] };
    const gold: ResultTable = { columns: ['name', 'n'], rows: [['x', 1], ['y', 1], ['z', 0]] };
    expect(answerMatches('y, 1\nx, 1\nz, 0', gold, true, ties).match).toBe(true);
    expect(answerMatches('y, 1\nx, 1\nz, 0', gold, true).match).toBe(false);
    expect(answerMatches('x, 1\nx, 1\nz, 0', gold, true, ties).match).toBe(false);
    expect(answerMatches('z, 0\nx, 1\ny, 1', gold, true, ties).match).toBe(false);
  });

  it('reads a one-row tie as a list or a scalar too', () => {
    const ties: GoldTies = { segments: [{ take: 1, pool: [[2014], [2015]] }] };
    expect(answerMatches('2015', { columns: ['year'], rows: [[2014]] }, true, ties).match).toBe(true);
    expect(answerMatches('[(2015,)]', { columns: ['year'], rows: [[2014]] }, true, ties).match).toBe(true);
    expect(answerMatches('2016', { columns: ['year'], rows: [[2014]] }, true, ties).match).toBe(false);
  });
});

describe('answerMatches', () => {
  const groups: Array<[string, Case[]]> = [
    ['scalars', SCALARS],
    ['lists', LISTS],
    ['rows', ROWS],
    ['JSON', JSONS],
    ['empty gold', EMPTY_GOLD],
  ];
  for (const [group, cases] of groups) {
    describe(group, () => {
      it.each(cases)('%j vs %j (order %s) → %s', (answer, gold, orderMatters, expected) => {
        expect(answerMatches(answer, t(gold), orderMatters).match).toBe(expected);
      });
    });
  }

  it('names the interpretation that matched, or the primary one, as a shape and a format', () => {
    expect(answerMatches('Smith, John', t([['Smith'], ['John']]), false).interpretation).toBe('2 rows × 1 column (comma-separated)');
    expect(answerMatches('Smith, John', t([['Smith', 'John']]), false).interpretation).toBe('1 row × 2 columns (comma-separated)');
    expect(answerMatches('Smith, John', t([['Smith, John']]), false).interpretation).toBe('1 row × 1 column (plain text)');
    expect(answerMatches('[[1, 2]]', t([[2, 1]]), false).interpretation).toBe('1 row × 2 columns (JSON)');
    expect(answerMatches('Alice | 30\nBob | 25', t(PEOPLE), false).interpretation).toBe('2 rows × 2 columns (pipe-separated)');
    expect(answerMatches('[(6,)]', t([[6]]), false).interpretation).toBe('1 row × 1 column (Python repr)');
    expect(answerMatches('count(*)\n6', { columns: ['count(*)'], rows: [[6]] }, false).interpretation).toBe('1 row × 1 column (one per line, first line as the header)');
    // Wrong answers say how they were read too: the primary reading.
    const wrong = answerMatches('a, b', t([['a'], ['c']]), false);
    expect(wrong).toEqual({ match: false, interpretation: '2 values (comma-separated)', preview: 'a; b' });
    expect(describeVerdict(wrong)).toBe('incorrect. Read as 2 values (comma-separated): a; b');
    expect(describeVerdict(answerMatches('6', t([[6]]), false))).toBe('correct. Read as 1 row × 1 column (JSON): 6');
  });

  it('keeps the description short for a huge answer', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `value number ${i} ${'x'.repeat(100)}`).join('\n');
    const v = answerMatches(long, t([['a']]), false);
    expect(v.match).toBe(false);
    expect(v.interpretation.length).toBeLessThanOrEqual(100);
    expect(v.preview.length).toBeLessThanOrEqual(160);
    expect(v.preview.endsWith('…')).toBe(true);
  });

  it('matches a 500-row answer against its shuffled gold (beyond the 200-row exact bag match)', () => {
    const gold: SqlValue[][] = Array.from({ length: 500 }, (_, i) => [i, `name ${i % 50}`, i / 7]);
    const answer = [...gold].reverse().map((r) => `${(r[2] as number).toFixed(2)} | ${String(r[1]).toUpperCase()} | ${String(r[0])}`).join('\n');
    expect(answerMatches(answer, t(gold), false).match).toBe(true);
    expect(answerMatches(answer, t(gold), true).match).toBe(false);
  });
});

describe('cellMatches', () => {
  it.each([
    [1, 1, true],
    [1, 1.0000001, false],
    [20001, 20000, false],
    [16512462, 16514113, false],
    [3.3, 3.3333, false],
    [3.33, 3.3333, true],
    [2.66, 2.6666, false],
    [6, 6.0, true],
    [1e21, 1e21, true],
    ['6', '6.0', true],
    ['1', 1, true],
    [1, '1', true],
    [null, null, true],
    [null, 'none', true],
    ['NULL', null, true],
    [null, 0, false],
    ['a', 'A', true],
    ['a', 'b', false],
    [' "x y" ', 'X   Y', true],
    ['x', utf8('x'), true],
  ] as Array<[AnswerCell, SqlValue, boolean]>)('%j ~ %j → %s', (a, g, expected) => {
    expect(cellMatches(a, g)).toBe(expected);
  });
});

describe('parseAnswer', () => {
  it.each([
    ['42', { kind: 'scalar', format: 'json', value: 42 }],
    ['Paris', { kind: 'scalar', format: 'text', value: 'Paris' }],
    ['a, b', { kind: 'list', format: 'comma', values: ['a', 'b'] }],
    ['a\nb', { kind: 'list', format: 'newline', values: ['a', 'b'] }],
    ['[1, "x", null]', { kind: 'list', format: 'json', values: [1, 'x', null] }],
    ['[[1, 2], [3, 4]]', { kind: 'rows', format: 'json', rows: [[1, 2], [3, 4]] }],
    ['a | 1\nb | 2', { kind: 'rows', format: 'pipe', rows: [['a', '1'], ['b', '2']] }],
    ['a\t1\nb\t2', { kind: 'rows', format: 'tab', rows: [['a', '1'], ['b', '2']] }],
  ])('%j', (text, expected) => {
    expect(parseAnswer(text)).toEqual(expected);
  });

  it('offers every plausible reading, scalar included', () => {
    const kinds = answerInterpretations('Smith, John').map((p) => p.kind);
    expect(kinds).toEqual(['list', 'scalar']);
    expect(answerInterpretations('x').length).toBe(1);
  });
});

describe('splitCells', () => {
  it.each([
    ['a, b ,c', ',', ['a', 'b', 'c']],
    ['"Smith, John", Doe', ',', ['"Smith, John"', 'Doe']],
    ["'a,b' , 'c'", ',', ["'a,b'", "'c'"]],
    ["O'Brien, x", ',', ["O'Brien", 'x']],
    ['"unclosed, x', ',', ['"unclosed', 'x']],
    ['| a | b |', '|', ['a', 'b']],
    ['a\t\tb', '\t', ['a', '', 'b']],
    ['"a" , "b"', ',', ['"a"', '"b"']],
    ['"a"b", c', ',', ['"a"b"', 'c']],
    ['"a, "b", c', ',', ['"a, "b"', 'c']],
    ['"x" "y", z', ',', ['"x" "y"', 'z']],
    ['|', '|', ['']],
    ['||', '|', ['']],
  ])('%j by %j', (line, delim, expected) => {
    expect(splitCells(line, delim)).toEqual(expected);
  });
});

describe('readNumber', () => {
  it.each([
    ['42', 42, 0],
    ['-42', -42, 0],
    ['+4.50', 4.5, 2],
    ['.5', 0.5, 1],
    ['5.', 5, 0],
    ['1e3', 1000, -1],
    ['2.5e-3', 0.0025, -1],
    ['1,234', 1234, 0],
    ['-1,234,567.891', -1234567.891, 3],
  ])('%j → %d with %d decimals', (text, num, decimals) => {
    expect(readNumber(text)).toEqual({ num, decimals });
  });

  it.each(['', '+', '-', '.', 'e5', '1e', '1e+', '1.2.3', '1,23', '1234,567', '1,234e5', '1,234.', '0x10', 'infinity', '1 2', '12a', '1,,234'])(
    '%j is not a number',
    (text) => {
      expect(readNumber(text).num).toBeNull();
    },
  );
});

describe('shownDecimals', () => {
  it.each([
    [6, 0],
    [15.5, 1],
    [3.3333333, 7],
    [0.1 + 0.2, 1],
    [1 / 3, 15],
    [1.5e-7, 8],
    [1e21, 0],
  ])('%d shows %d decimals', (g, decimals) => {
    expect(shownDecimals(g)).toBe(decimals);
  });
});

describe('normalizeText', () => {
  it.each([
    ['  "Smith"  ', 'smith'],
    ['`x`', 'x'],
    ["'a'b'", "a'b"],
    ['"', '"'],
    ['"a', '"a'],
    ['A \t\n B', 'a b'],
  ])('%j → %j', (text, expected) => {
    expect(normalizeText(text)).toBe(expected);
  });
});

describe('markdown tables and bullets', () => {
  it.each([
    ['| a | b |\n| --- | :---: |\n| 1 | 2 |', 'markdown', true],
    ['a | b\n--- | ---\n1 | 2', 'markdown', true],
    ['a | b\n-|-\n1 | 2', 'markdown', false], // one dash is not a rule
    ['a | b\n|---||\n1 | 2', 'markdown', false],
    ['- x\n- y', 'bullets', true],
    ['• x\n*\ty', 'bullets', true],
    ['-x\n-y', 'bullets', false],
  ] as const)('%j has a %s reading: %s', (text, format, expected) => {
    expect(answerInterpretations(text).some((p) => p.format === format)).toBe(expected);
  });
});
