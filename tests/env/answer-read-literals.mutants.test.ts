/**
 * Cases that kill what Stryker's full run left alive in lines 1–279 of src/env/answer-read.ts (the reading gate, the
 * de-duplication, fences, `isWordCode`, JSON and Python literals, the bracketed list; docs/mutation.md lists each
 * mutant and its verdict). As in answer-read.mutants.test.ts, each expected value is the whole list of readings, in
 * order, worked out by hand from the reading rules in the module's header and docs/answers.md (JSON first, Python only
 * when JSON fails, the text readings only when neither read a list or rows, the whole text last, duplicates — same
 * kind, cells and header, whatever the format — dropped), never by calling the module. The comment on each case
 * names the mutant(s) it kills, by line:column of that run.
 */
import { describe, expect, it } from 'vitest';
import { answerInterpretations, FORMAT_LABEL, parsePythonLiteral, type ParsedAnswer } from '../../src/env/answer-read.ts';
import { list, rows, scalar, text } from '../fixtures/readings.ts';


describe('answerInterpretations: every reading, in order', () => {
  it.each<[string, ParsedAnswer[]]>([
    // 79:56, 79:72 — a Python scalar still lets the text readings through: the trailing tab is an empty TSV cell.
    ["'a'\t", [scalar('python', 'a'), list('tab', ["'a'", '']), text("'a'\t")]],
    // 87:76 — two header-less row readings with different cells (by `,` and by `;`) are both kept.
    [
      'a,b;c\nd,e;f',
      [
        rows('comma', [['a', 'b;c'], ['d', 'e;f']]),
        rows('comma', [['d', 'e;f']], ['a', 'b;c']),
        rows('semicolon', [['a,b', 'c'], ['d,e', 'f']]),
        rows('semicolon', [['d,e', 'f']], ['a,b', 'c']),
        list('newline', ['a,b;c', 'd,e;f']),
        list('newline', ['d,e;f'], ['a,b;c']),
        text('a,b;c\nd,e;f'),
      ],
    ],
    // 112:24, 112:37 — only an END of three backticks is no fence.
    ['abc```', [text('abc```')]],
    // 112:48, 112:59 — only a START of three backticks is no fence.
    ['```abc', [text('```abc')]],
    // 115:19 — a one-character info word (the first line break at index 1 of the inside) is dropped.
    ['```r\n7\n```', [scalar('json', 7), text('7')]],
    // 116:10 — a one-line fence's text is trimmed.
    ['``` 42 ```', [scalar('json', 42), text('42')]],
    // 126:29, 126:40, 126:64 (`<`) — A, Z and z are word characters of an info word.
    ['```A\n7\n```', [scalar('json', 7), text('7')]],
    ['```Z\n7\n```', [scalar('json', 7), text('7')]],
    ['```z\n7\n```', [scalar('json', 7), text('7')]],
    // 126:64 (`true`) — `~` (126, above z) is no word character: the first line is no info word and stays.
    ['```~\n7\n```', [list('newline', ['~', '7']), list('newline', ['7'], ['~']), text('~\n7')]],
    // 172:63 — `null` inside an array of arrays is no JSON row (and no crash): the text readings follow.
    ['[[1], null]', [list('comma', ['[[1]', 'null]']), text('[[1], null]')]],
    // 175:10 — an object with one nested value is no JSON row, even when its other values are cells.
    ['{"a": 1, "b": [2]}', [list('comma', ['{"a": 1', '"b": [2]}']), text('{"a": 1, "b": [2]}')]],
    // 187:41 — `None` beside a tuple is no Python rows reading (and no crash): bracketed and comma lists follow.
    ['[(1,), None]', [list('brackets', ['(1', ')', 'None']), list('comma', ['[(1', ')', 'None]']), text('[(1,), None]')]],
    // 188:64 — a row holding a tuple is no Python row, even when its other items are cells.
    ['[(1, (2,))]', [list('brackets', ['(1', '(2', '))']), list('comma', ['[(1', '(2', '))]']), text('[(1, (2,))]')]],
    // 217:9 — white space after a trailing comma, before the closing bracket (JSON refuses the trailing comma).
    ['[1, ]', [list('python', ['1']), text('[1, ]')]],
    // 222:9 — white space after an item, before the closing bracket (JSON refuses single quotes).
    ["['a' ]", [list('python', ['a']), text("['a' ]")]],
    // 271:7, 271:24 — a text that only ends with `]` is no bracketed list.
    ['ab]', [text('ab]')]],
    // 271:47 — a text that only starts with `[` is no bracketed list.
    ['[ab', [text('[ab')]],
    // 273:71 — the one text on which `inner.trim() === 'Stryker was here!'` differs: it is an ordinary bracketed list.
    ['[Stryker was here!]', [list('brackets', ['Stryker was here!']), text('[Stryker was here!]')]],
    // The bug fixed with these cases: a sign followed by any character made `-Infinity` (a JavaScript number, never a
    // Python repr, which writes -inf) a Python number, so this list skipped the text readings. It is a bracketed list.
    ['[-Infinity, 1]', [list('brackets', ['-Infinity', '1']), list('comma', ['[-Infinity', '1]']), text('[-Infinity, 1]')]],
    ['-Infinity', [text('-Infinity')]],
  ])('%j', (input, expected) => {
    expect(answerInterpretations(input)).toStrictEqual(expected);
  });
});

describe('parsePythonLiteral', () => {
  it.each<[string, unknown]>([
    // 196:67, 196:79, 196:110 — the \r, \\ and \0 escapes.
    ["'\\r'", '\r'],
    ["'\\\\'", '\\'],
    ["'\\0'", '\0'],
    ["'a\\\\b\\r\\0'", 'a\\b\r\0'],
    // After a sign, a point or a digit starts a number (they kill the fixed line's `word[1] === '.'` and `||`).
    ['-.5', '-.5'],
    ['-5', '-5'],
  ])('%j reads as %j', (input, expected) => {
    expect(parsePythonLiteral(input)).toStrictEqual(expected);
  });

  it.each([
    // 220:13 — an item that is no literal makes the list none (not a list holding `undefined`).
    '[x]',
    '(1, x)',
    // 245:38 — every character of a \x escape must be hex, not only the last.
    "'\\xg1'",
    // 261:9 (`&&`), 261:26, 261:62, 261:63 — a word that JavaScript's Number reads but is no Python number.
    'Infinity',
    // The bug fixed with these cases: after a sign, a digit or a point must follow (Python writes -inf, never these).
    '-Infinity',
    '+Infinity',
  ])('%j is no Python literal', (input) => {
    expect(parsePythonLiteral(input)).toBeUndefined();
  });
});

describe('FORMAT_LABEL', () => {
  // 57:50, 58:14, 58:66, 59:13, 59:40, 59:62 — the observation names the reading's form, so every form needs a
  // label of its own (an empty one would print "Read as 2 values ()").
  it('gives every format a non-empty label of its own', () => {
    const labels = Object.values(FORMAT_LABEL);
    expect(labels.every((l) => l.trim() !== '')).toBe(true);
    expect(new Set(labels).size).toBe(12);
  });

  it('uses the labels quoted in docs/answers.md', () => {
    expect([FORMAT_LABEL.python, FORMAT_LABEL.newline, FORMAT_LABEL.comma]).toEqual(['Python repr', 'one per line', 'comma-separated']);
  });
});
