/**
 * Cases that kill what Stryker's run over src/env/answer-read.ts left alive (docs/mutation.md): for each text, the
 * whole list of readings, in order, worked out by hand from the reading rules in the module's header (JSON first,
 * Python only when JSON fails, the text readings only when neither read a list or rows, the whole text last,
 * duplicates — same kind, cells and header, whatever the format — dropped), never by calling the module.
 */
import { describe, expect, it } from 'vitest';
import { answerInterpretations, isTableRule, parsePythonLiteral, splitCells, splitTable, type ParsedAnswer } from '../../src/env/answer-read.ts';
import { list, rows, scalar, text } from '../fixtures/readings.ts';


describe('answerInterpretations: every reading, in order', () => {
  it.each<[string, ParsedAnswer[]]>([
    // JSON scalars: true is 1 as SQLite stores it; the whole text follows as text.
    ['true', [scalar('json', 1), text('true')]],
    ['false', [scalar('json', 0), text('false')]],
    ['null', [scalar('json', null), text('null')]],
    ['"x"', [scalar('json', 'x'), text('"x"')]],
    // One object is one row of its values; an array of objects rows; a JSON list or rows skips the text readings.
    ['{"name": "Bob", "age": 3}', [rows('json', [['Bob', 3]]), text('{"name": "Bob", "age": 3}')]],
    ['[{"a": 1}, {"a": 2}]', [rows('json', [[1], [2]]), text('[{"a": 1}, {"a": 2}]')]],
    ['[true, null]', [list('json', [1, null]), text('[true, null]')]],
    // Mixed nesting is no JSON reading (and no Python one): the text readings follow.
    ['[[1], 2]', [list('comma', ['[[1]', '2]']), text('[[1], 2]')]],
    ['{"a": [1]}', [text('{"a": [1]}')]],
    // Python literals.
    ["('a', None, True)", [rows('python', [['a', null, 1]]), text("('a', None, True)")]],
    ['(6)', [scalar('python', '6'), text('(6)')]],
    ['(6,)', [rows('python', [['6']]), text('(6,)')]],
    ['()', [rows('python', [[]]), text('()')]],
    ['[(6,), (7,)]', [rows('python', [['6'], ['7']]), text('[(6,), (7,)]')]],
    ["['a', 'b']", [list('python', ['a', 'b']), text("['a', 'b']")]],
    ['[+5, .5, -2e3]', [list('python', ['+5', '.5', '-2e3']), text('[+5, .5, -2e3]')]],
    ['(((1)))', [scalar('python', '1'), text('(((1)))')]],
    // Four levels deep is beyond MAX_PYTHON_DEPTH (3): not Python.
    ['((((1))))', [text('((((1))))')]],
    // A lone sign or a word is no Python number: the bracketed reading takes it.
    ['[-]', [list('brackets', ['-']), text('[-]')]],
    ['[1x]', [list('brackets', ['1x']), text('[1x]')]],
    ["[x, 'y, z']", [list('brackets', ['x', "'y, z'"]), list('comma', ['[x', "'y", "z']"]), text("[x, 'y, z']")]],
    ['[]', [list('json', []), text('[]')]],
    ['[ ]', [list('json', []), text('[ ]')]],
    ['[a\tb]', [list('brackets', ['a\tb']), list('tab', ['[a', 'b]']), text('[a\tb]')]],
    // Fences.
    ['```json\n[1, 2]\n```', [list('json', [1, 2]), text('[1, 2]')]],
    ['```42```', [scalar('json', 42), text('42')]],
    ['```\n42\n```', [scalar('json', 42), text('42')]],
    ['```my-sql_2\n7\n```', [scalar('json', 7), text('7')]],
    ['``````', [text('')]],
    ['`````', [text('`````')]],
    ['```a.b\n7```', [list('newline', ['a.b', '7']), list('newline', ['7'], ['a.b']), text('a.b\n7')]],
    // Tabs at the ends are cells, not padding; spaces are.
    ['  \t5\t  ', [scalar('json', 5), list('tab', ['', '5', '']), text('\t5\t')]],
    // One line: each delimiter giving ≥ 2 cells; the pipe and markdown readings of |a|b| are one reading.
    ['|a|b|', [list('pipe', ['a', 'b']), text('|a|b|')]],
    ['| 6 |', [list('markdown', ['6']), text('| 6 |')]],
    ['a;b', [list('semicolon', ['a', 'b']), text('a;b')]],
    ['a|b,c', [list('pipe', ['a', 'b,c']), list('comma', ['a|b', 'c']), text('a|b,c')]],
    ['count(*): 6', [rows('labelled', [['6']], ['count(*)']), text('count(*): 6')]],
    ['a: 1, b: 2', [list('comma', ['a: 1', 'b: 2']), rows('labelled', [['1, b: 2']], ['a']), text('a: 1, b: 2')]],
    // Several lines.
    [
      'Name: Smith\nAge: 30\nname: Jones\nage: 40',
      [
        rows('labelled', [['Smith', '30'], ['Jones', '40']], ['Name', 'Age']),
        list('newline', ['Name: Smith', 'Age: 30', 'name: Jones', 'age: 40']),
        list('newline', ['Age: 30', 'name: Jones', 'age: 40'], ['Name: Smith']),
        text('Name: Smith\nAge: 30\nname: Jones\nage: 40'),
      ],
    ],
    // Labels that do not repeat in the same groups are no labelled reading.
    ['a: 1\nb: 2\nb: 3\na: 4', [list('newline', ['a: 1', 'b: 2', 'b: 3', 'a: 4']), list('newline', ['b: 2', 'b: 3', 'a: 4'], ['a: 1']), text('a: 1\nb: 2\nb: 3\na: 4')]],
    ['a: 1\na: 2\nb: 3', [list('newline', ['a: 1', 'a: 2', 'b: 3']), list('newline', ['a: 2', 'b: 3'], ['a: 1']), text('a: 1\na: 2\nb: 3')]],
    ['1. a\n2) b\n3. c', [list('bullets', ['a', 'b', 'c']), list('newline', ['1. a', '2) b', '3. c']), list('newline', ['2) b', '3. c'], ['1. a']), text('1. a\n2) b\n3. c')]],
    ['- a\n* b\n• c', [list('bullets', ['a', 'b', 'c']), list('newline', ['- a', '* b', '• c']), list('newline', ['* b', '• c'], ['- a']), text('- a\n* b\n• c')]],
    ['"a\nb"\nc', [list('newline', ['a\nb', 'c']), list('newline', ['c'], ['a\nb']), text('"a\nb"\nc')]],
    ['a\r\nb', [list('newline', ['a', 'b']), list('newline', ['b'], ['a']), text('a\r\nb')]],
    [
      '| name | n |\n|---|---|\n| a | 1 |\n| b | 2 |',
      [
        rows('markdown', [['a', '1'], ['b', '2']]),
        list('newline', ['| name | n |', '|---|---|', '| a | 1 |', '| b | 2 |']),
        list('newline', ['|---|---|', '| a | 1 |', '| b | 2 |'], ['| name | n |']),
        text('| name | n |\n|---|---|\n| a | 1 |\n| b | 2 |'),
      ],
    ],
    [
      'name,n\na,1\nb,2',
      [
        rows('comma', [['name', 'n'], ['a', '1'], ['b', '2']]),
        rows('comma', [['a', '1'], ['b', '2']], ['name', 'n']),
        list('newline', ['name,n', 'a,1', 'b,2']),
        list('newline', ['a,1', 'b,2'], ['name,n']),
        text('name,n\na,1\nb,2'),
      ],
    ],
    ['| a |\n| b |', [rows('markdown', [['a'], ['b']]), rows('markdown', [['b']], ['a']), list('newline', ['| a |', '| b |']), list('newline', ['| b |'], ['| a |']), text('| a |\n| b |')]],
    ['|---|\n| a |', [rows('markdown', [['a']]), list('newline', ['|---|', '| a |']), list('newline', ['| a |'], ['|---|']), text('|---|\n| a |')]],
    ['a\t\nb\t', [rows('tab', [['a', ''], ['b', '']]), rows('tab', [['b', '']], ['a', '']), list('newline', ['a\t', 'b\t']), list('newline', ['b\t'], ['a\t']), text('a\t\nb\t')]],
    // Rows of different widths are no delimited reading.
    ['a,b\nc', [list('newline', ['a,b', 'c']), list('newline', ['c'], ['a,b']), text('a,b\nc')]],
  ])('%j', (input, expected) => {
    expect(answerInterpretations(input)).toEqual(expected);
  });
});

describe('parsePythonLiteral', () => {
  it.each<[string, unknown]>([
    ['None', null],
    ['True', 1],
    ['False', 0],
    ['  7  ', '7'],
    ['+.5', '+.5'],
    ["'a\\x41\\u00e9\\n\\t\\q'", 'aAé\n\t\\q'],
    ['"a\\"b"', 'a"b'],
    ["'it\\'s'", "it's"],
    ['[1,]', { tuple: false, items: ['1'] }],
    ['(1, (2,))', { tuple: true, items: ['1', { tuple: true, items: ['2'] }] }],
  ])('%j reads as %j', (input, expected) => {
    expect(parsePythonLiteral(input)).toEqual(expected);
  });

  it.each(["'\\x4g'", "'\\x4'", "'\\u12'", "'abc", "'a\nb'", '1 2', '[1 2]', '(1, 2', '-', '+', 'nan', '1e', '', '[', 'none'])('%j is no Python literal', (input) => {
    expect(parsePythonLiteral(input)).toBeUndefined();
  });
});

describe('isTableRule', () => {
  it.each<[string, boolean]>([
    ['|---|', true],
    ['---', true],
    ['|:--:|', true],
    ['|--:|', true],
    ['|:--|', true],
    ['| --- | --- |', true],
    ['|--|', true],
    ['|:-:|', false],
    ['|-|', false],
    ['||', false],
    ['|', false],
    ['', false],
    ['--- x', false],
    ['-- | ', false],
    ['|-- -|', false],
  ])('%j → %s', (line, expected) => {
    expect(isTableRule(line)).toBe(expected);
  });
});

describe('splitCells and splitTable: quotes at their edges', () => {
  it.each<[string, string, string[]]>([
    ['"a" , b', ',', ['"a"', 'b']],
    ["'a' ;b", ';', ["'a'", 'b']],
    ['"a;b";c', ';', ['"a;b"', 'c']],
    ['x,"a, b"', ',', ['x', '"a, b"']],
    ['|a|', '|', ['a']],
    ['a|', '|', ['a']],
    ['|a', '|', ['a']],
    ['\ta\t', '\t', ['', 'a', '']],
  ])('splitCells(%j, %j)', (line, delim, expected) => {
    expect(splitCells(line, delim)).toEqual(expected);
  });

  it.each<[string, string, string[][]]>([
    ['"a" ,b\nc,d', ',', [['a', 'b'], ['c', 'd']]],
    ['"a"\t,b', ',', [['a', 'b']]],
    ['  "a,b"  ,c', ',', [['a,b', 'c']]],
    ["'a,b' ,c", ',', [["'a,b'", 'c']]],
    ['|a|\n|b|', '|', [['a'], ['b']]],
    ['||', '|', [['']]],
    ['a;;b', ';', [['a', '', 'b']]],
    ['"a\r\nb",c', ',', [['a\r\nb', 'c']]],
  ])('splitTable(%j, %j)', (body, delim, expected) => {
    expect(splitTable(body, delim).map((r) => r.cells)).toEqual(expected);
  });

  it('keeps each record’s trimmed text', () => {
    expect(splitTable(' a,b \n\n c,d', ',').map((r) => r.text)).toEqual(['a,b', 'c,d']);
    expect(splitTable('a\t\n\tb\t', '\t').map((r) => r.text)).toEqual(['a\t', '\tb\t']);
  });
});
