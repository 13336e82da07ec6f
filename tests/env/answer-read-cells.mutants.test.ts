/**
 * Cases that kill what Stryker's run over src/env/answer-read.ts left alive in its cell readers, lines 421–560:
 * `quoteTables` and `closingDouble` (where a quoted cell of `splitTable` ends), `readLabelled`, `isTableRule`,
 * `isBulleted`, `splitCells` and `closingQuotes`. Each expected value is worked out by hand from the rules in the
 * module's header and the comments of `splitTable` / `splitCells` (docs/answers.md for people), never by calling the
 * module. The comment on each case names the mutants it kills, by line:column in the run that found them (the
 * closingQuotes fix below has since moved lines 544 and after down by one). The survivors that no input can tell
 * apart are listed with their reasons in docs/mutation.md.
 *
 * The quote rule these cases lean on: a cell that starts with `"` runs to the first `"` that is followed by spaces
 * (and tabs, unless the delimiter is a tab) and then the delimiter, a line break (CR or LF) or the end, and that is
 * not the second quote of a `""` pair; a cell with no such quote is plain text. A cell that starts with `'` runs to a
 * `'` followed the same way, on the same line. `splitTable` drops a double-quoted cell's outer quotes and reads `""`
 * as `"`; single quotes stay.
 */
import { describe, expect, it } from 'vitest';
import { answerInterpretations, isTableRule, splitCells, splitTable, type ParsedAnswer } from '../../src/env/answer-read.ts';
import { list, rows, text } from '../fixtures/readings.ts';

/** A text of several lines read only as lines: one value per line, the same with the first line as a header, the text. */
const linesOnly = (body: string): ParsedAnswer[] => {
  const lines = body.split('\n');
  return [list('newline', lines), list('newline', lines.slice(1), [lines[0]]), text(body)];
};
const KELVIN = '\u212A'; // KELVIN SIGN: lower-cases to the ASCII letter k

describe('splitTable: where a quoted cell ends', () => {
  it.each<[string, string, string[][]]>([
    // `""` then the delimiter is an empty quoted cell; the `"` after x is plain text. Kills 459:7 forced false, `end <= open`
    // (459:7), `% 2` as `* 2` (459:38) and `!== 1` (459:38); and every runEnd mutant of line 439 that loses the opener's
    // own run (the condition forced true or false, `!==`, `''` for '"', `s[k - 1]`, `runEnd[k - 1]`, 439:19–439:63).
    ['"",x",y', ',', [['', 'x"', 'y']]],
    // `"""`: the opener, then a `""` pair (a quote inside), so the cell runs on to the `"` after x: `",x`. Kills the run
    // closing at its own end when its length is odd: `||` for `&&` (459:7), `% 2 === 1` forced true or `!== 1` (459:38).
    ['""",x",y', ',', [['",x', 'y']]],
    // `""` followed by a letter is no closing quote: the cell runs to the `"` before `,c`. Kills the run closing without
    // a delimiter after it: `end > open && closes` forced true or `||` (459:7), `||` for the final `&&` (459:7).
    ['""a,b",c', ',', [['"a,b', 'c']]],
    // The opener is one quote: the cell ends at the first closing quote, after a. Kills `||` for `&&` in runEnd (439:19).
    ['"a",b",c', ',', [['a', 'b"', 'c']]],
    // A `""` pair before the delimiter is a quote inside the cell, even when the pair starts at an odd position. Kills
    // runStart's `runStart[k + 1]` for `runStart[k - 1]` (433:98).
    ['"ab"",c",d', ',', [['ab",c', 'd']]],
    // No closing quote: plain text, split at the comma. Kills nextOddDouble filled with +1 for -1 (426:47).
    ['",a', ',', [['"', 'a']]],
    // The same for a single quote. Kills nextSingle filled with +1 for -1 (429:44).
    ["',a", ',', [["'", 'a']]],
    // A single-quoted cell closed by the last character. Kills nextSingle's `n - 1` entries (429:32).
    ["'a,b'", ',', [["'a,b'"]]],
    // A single-quoted cell holding `",",x`, then `"""` at the very end: an opener and a `""` pair, never closed, so plain
    // text whose outer quotes are dropped (`"`). Kills runEnd's `n - 1` entries (427:28): the last run's end reads as
    // 0, the cell's closer as the `"` at 1, the scan jumps back and reads the text again as different cells.
    ['\'",",x\',"""', ',', [['\'",",x\'', '"']]],
    // A closing quote followed by CR LF. Kills `next === '\r'` forced false or compared with '' (441:59, 441:68).
    ['"a,b"\r\nc,d', ',', [['a,b'], ['c', 'd']]],
    // A tab between the closing quote and a comma is white space. Kills line 447's tab test forced false (447:27), its
    // '\t' as '' (447:36) and `delim === '\t'` (447:44).
    ['"a,b"\t,c', ',', [['a,b', 'c']]],
    // When the tab IS the delimiter it is not skipped: the quote before it closes. Kills `delim !== '\t'` forced true
    // (447:44), `delim === '\t'` (447:44) and '\t' as '' (447:54).
    ['"a\tb"\tc', '\t', [['a\tb', 'c']]],
  ])('splitTable(%j, %j)', (body, delim, expected) => {
    expect(splitTable(body, delim).map((r) => r.cells)).toEqual(expected);
  });

  it('refuses an empty delimiter (it would match at every position and never move on)', () => {
    expect(() => splitTable('a,b', '')).toThrow(/delimiter must not be empty/);
  });
});

describe('splitCells: borders, trimming and quoted cells', () => {
  it.each<[string, string, string[]]>([
    // No closing quote after the opener: split at the comma. Kills `double` filled with +1 for -1 (548:45).
    ['",a', ',', ['"', 'a']],
    // The quoted cell ends after its closing quote, not before the comma inside it. Kills `end = k - 1` (532:27).
    ['"a,",b', ',', ['"a,"', 'b']],
    // A tab before a quoted cell is skipped when the delimiter is not a tab. Kills line 527's tab test forced false
    // (527:46) and its '\t' as '' (527:55).
    ['x,\t"a,b"', ',', ['x', '"a,b"']],
    // A trailing tab is white space when the delimiter is `|`: the border is found. Kills trimKeepingTabs for every
    // delimiter (518:11).
    ['|a|\t', '|', ['a']],
    // A trailing space likewise. Kills the untrimmed line (518:52).
    ['|a| ', '|', ['a']],
    // Borders are dropped for `|` only. Kills `delim === '|'` forced true (519:7).
    ['|a,b', ',', ['|a', 'b']],
    // Bug fixed this session: a tab between a closing quote and the delimiter is white space here too, as in
    // `splitTable` (one line used to read as `"a`, `b"`, `c`, the same record in a table as `a,b`, `c`).
    ['"a,b"\t,c', ',', ['"a,b"', 'c']],
    ["'a;b' \t;c", ';', ["'a;b'", 'c']],
    // ... but not when the tab is the delimiter: the quote before it closes.
    ['"a\tb"\tc', '\t', ['"a\tb"', 'c']],
    // A quote followed by a letter closes nothing: the cell runs to the quote before `,d`. Kills the fixed line's
    // condition forced false (nothing then moves the lookahead, and every quote closes).
    ['"a"b,c",d', ',', ['"a"b,c"', 'd']],
  ])('splitCells(%j, %j)', (line, delim, expected) => {
    expect(splitCells(line, delim)).toEqual(expected);
  });
});

describe('isTableRule: borders', () => {
  it.each<[string, boolean]>([
    // Two dashes without borders. Kills `startsWith('|')` forced true (494:7) and `startsWith('')` (494:20).
    ['--', true],
    // A leading border only. Kills `endsWith('|')` for `startsWith('|')` (494:7).
    ['|---', true],
  ])('%j → %s', (line, expected) => {
    expect(isTableRule(line)).toBe(expected);
  });
});

describe('answerInterpretations: labels and bullets', () => {
  it.each<[string, ParsedAnswer[]]>([
    // The label is trimmed. Kills the untrimmed label (475:19).
    ['a : 1', [rows('labelled', [['1']], ['a']), text('a : 1')]],
    // A label of white space only is no label (a leading tab is kept by the trim); the tab splits the line. Kills
    // `label === ''` forced false (476:9) and '' as "Stryker was here!" (476:19).
    ['\t: 5', [list('tab', ['', ': 5']), text('\t: 5')]],
    // The Kelvin sign and k are one label up to case: one column of two rows. Kills toUpperCase for toLowerCase in the
    // count of distinct labels (480:43).
    [`${KELVIN}: 1\nk: 2`, [rows('labelled', [['1'], ['2']], [KELVIN]), ...linesOnly(`${KELVIN}: 1\nk: 2`)]],
    // The second group's labels come in another order (a matches, b and c do not): no labelled reading. Kills `every`
    // for `some` (485:42).
    ['a: 1\nb: 2\nc: 3\na: 4\nc: 5\nb: 6', linesOnly('a: 1\nb: 2\nc: 3\na: 4\nc: 5\nb: 6')],
    // One line with a tab after a closing quote reads as the same cells as a table record would (the fix above).
    ['"a,b"\t,c', [list('tab', ['"a,b"', ',c']), list('comma', ['"a,b"', 'c']), text('"a,b"\t,c')]],
    // A lone `-` is no bullet (a bullet is followed by white space). Kills `line.length > 1` forced true or `>= 1`
    // (509:69): both read the missing second character.
    ['-\n- a', linesOnly('-\n- a')],
  ])('%j', (input, expected) => {
    expect(answerInterpretations(input)).toEqual(expected);
  });
});
