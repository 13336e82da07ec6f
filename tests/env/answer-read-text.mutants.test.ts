/**
 * Cases that kill what Stryker's full run over src/env/answer-read.ts left alive in the plain-text readers (lines
 * 280–420: readText, readDelimited, sameWidth, splitTable, cellText; docs/mutation.md lists the survivors kept as
 * equivalent). Each expected value is the whole list of readings, in order, worked out by hand from the reading
 * rules in the module's header and docs/answers.md — never by calling the module. A comment names the mutants
 * (line:column of Stryker's report) each case kills.
 */
import { describe, expect, it } from 'vitest';
import { answerInterpretations, splitTable, type ParsedAnswer } from '../../src/env/answer-read.ts';
import { list, rows, text } from '../fixtures/readings.ts';

/** A text of several lines, none of them delimited, labelled, bulleted or numbered: one value per line, then the
 * same with the first line as a header candidate, then the whole text. */
const linesOnly = (...lines: string[]): ParsedAnswer[] => [
  list('newline', lines),
  list('newline', lines.slice(1), [lines[0]]),
  text(lines.join('\n')),
];

describe('answerInterpretations: the plain-text readings, in order', () => {
  it.each<[string, ParsedAnswer[]]>([
    // One line: a markdown row needs a | at BOTH ends and two characters (290:9 the five condition mutants,
    // 290:29, 290:45, 290:53, 290:67).
    ['a|', [text('a|')]],
    ['|a', [text('|a')]],
    ['|', [text('|')]],
    // `||` is one empty cell between borders: a markdown row (290:9 `> 2`); the pipe split gives one cell, no list.
    ['||', [list('markdown', ['']), text('||')]],
    // Bullets and numbers must start EVERY line (298:7, 299:7 `some`).
    ['- a\nb', linesOnly('- a', 'b')],
    ['1. a\nb', linesOnly('1. a', 'b')],
    // The number and its `.` are cut, nothing after them (300:92 `i - 1` cuts one more character of line 1).
    ['1.a\n2.b', [list('bullets', ['a', 'b']), ...linesOnly('1.a', '2.b')]],
    // One quoted value over two lines is one value: no header candidate without a second value (305:7).
    ['"a\nb"', [list('newline', ['a\nb']), text('"a\nb"')]],
    // A |---| line makes a markdown table only in a text that has a | (315:7).
    ['a\n---\nb', linesOnly('a', '---', 'b')],
    // One CSV record over two lines: a list of its two cells, as one line would be (318:7, 318:36 `> 2`). The
    // one-value-per-line reading has no delimiter, so the quote before `,` closes nothing there.
    ['"a\nb",c', [list('comma', ['a\nb', 'c']), ...linesOnly('"a', 'b",c')]],
    // One record of one cell is no delimited reading (318:36 `true`, 318:122); its one value is the newline reading.
    ['"a\nb,c"', [list('newline', ['a\nb,c']), text('"a\nb,c"')]],
    // A rule line under the first record is markdown's only for `|` (320:7 the three mutants).
    ['a,b\n---\nc,d', linesOnly('a,b', '---', 'c,d')],
    // A markdown table with a header and a rule but no data rows is no table (322:80, 334:10 `true` and `>= 0`).
    ['| a |\n|---|', linesOnly('| a |', '|---|')],
    // A rule line first is dropped only for `|`: for `,` the records have widths 1, 2, 2 (324:16).
    ['---\na,b\nc,d', linesOnly('---', 'a,b', 'c,d')],
    // Records between | borders are markdown only for the `|` reading; the `,` reading stays comma-separated
    // (325:20).
    [
      '|a,b|\n|c,d|',
      [
        rows('markdown', [['a,b'], ['c,d']]),
        rows('markdown', [['c,d']], ['a,b']),
        rows('comma', [['|a', 'b|'], ['|c', 'd|']]),
        rows('comma', [['|c', 'd|']], ['|a', 'b|']),
        ...linesOnly('|a,b|', '|c,d|'),
      ],
    ],
    // Bordered (markdown) means a | at both ends: one border only is pipe-separated (325:55, 325:73, 325:81,
    // 325:97).
    ['|a|b\n|c|d', [rows('pipe', [['a', 'b'], ['c', 'd']]), rows('pipe', [['c', 'd']], ['a', 'b']), ...linesOnly('|a|b', '|c|d')]],
    ['a|b|\nc|d|', [rows('pipe', [['a', 'b'], ['c', 'd']]), rows('pipe', [['c', 'd']], ['a', 'b']), ...linesOnly('a|b|', 'c|d|')]],
    // A lone `|` is no pair of borders, and one cell per record is too few without borders (325:105 `true`,
    // 334:47 both mutants).
    ['|\n|', linesOnly('|', '|')],
    // `||` is two borders around one empty cell: a markdown table of one column (325:105 `> 2`).
    ['||\n||', [rows('markdown', [[''], ['']]), rows('markdown', [['']], ['']), ...linesOnly('||', '||')]],
    // After a leading rule line there is no header candidate (329:7 `||`, 329:27).
    ['|---|\n| a |\n| b |', [rows('markdown', [['a'], ['b']]), ...linesOnly('|---|', '| a |', '| b |')]],
    // Two quoted one-cell records: one cell each is too few for a comma table (334:47 both mutants).
    ['"a,b"\n"c,d"', [list('newline', ['a,b', 'c,d']), list('newline', ['c,d'], ['a,b']), text('"a,b"\n"c,d"')]],
    // Records of different widths, each ≥ 2, are no table (334:66).
    ['a,b\nc,d,e', linesOnly('a,b', 'c,d,e')],
  ])('%j', (input, expected) => {
    expect(answerInterpretations(input)).toEqual(expected);
  });
});

describe('splitTable: quoted cells and borders', () => {
  it.each<[string, string, string[][]]>([
    // A tab before a cell's opening quote is white space, so the quoted cell still holds the comma (374:39, 374:45).
    ['x,\t"a,b"', ',', [['x', 'a,b']]],
    // Only a quote at a cell's start opens a quoted cell (378:9 both mutants, 378:25).
    ["a,b'", ',', [['a', "b'"]]],
    // A quote mid-cell opens nothing either, even after a space (386:19).
    ['a "b,c"', ',', [['a "b', 'c"']]],
    // An opening `"` with no closing quote is plain text; the cell before it was a closed quoted cell holding a `'`
    // (381:11 `true` and 381:17 `+1` jump back to the start on the unclosed quote and read the text twice).
    [`"a,'b",c,"d'`, ',', [["a,'b", 'c', `"d'`]]],
    // The quoted cell ends at its closing quote, whatever comes just before it (382:13 `k - 1`).
    ['"a,",b', ',', [['a,', 'b']]],
    // A cell is unquoted only when it both starts and ends with `"` (407:10 the three mutants, 407:27, 407:40).
    ['a",b', ',', [['a"', 'b']]],
    ['",b', ',', [['"', 'b']]],
    // A leading empty cell that is no border (a quoted "") stays (366:28, 366:44).
    ['""|a|', '|', [['', 'a']]],
    // A trailing empty cell that is no border stays (367:28, 367:42).
    ['|a|""', '|', [['a', '']]],
    // A record that is `|` alone: the leading border goes, and the one empty cell left is kept, not popped as a
    // trailing border too (the simplified line 369's `cells.length > 1`, forced true or as `>= 1`).
    ['|', '|', [['']]],
  ])('splitTable(%j, %j)', (body, delim, expected) => {
    expect(splitTable(body, delim).map((r) => r.cells)).toEqual(expected);
  });

  it('trims a record’s text of tabs too when tab is not the delimiter (364:18)', () => {
    expect(splitTable('a,b\t\n\tc,d', ',')).toEqual([
      { text: 'a,b', cells: ['a', 'b'] },
      { text: 'c,d', cells: ['c', 'd'] },
    ]);
  });
});
