/**
 * `printable`: every character that can steer a terminal or reorder text is escaped, written out by hand here from
 * the Unicode and ECMA-48 tables (ESC and CSI start escape sequences, U+202E is RIGHT-TO-LEFT OVERRIDE…), and
 * ordinary text of any script passes unchanged.
 */
import { describe, expect, it } from 'vitest';
import { printable, PRINTABLE_MAX_CHARS } from '../../src/data/printable.ts';

describe('printable', () => {
  const escaped: Array<[string, string, string]> = [
    ['ESC starting a CSI sequence (clear screen)', 'db\u001b[2J', 'db\\x1b[2J'],
    ['an OSC title sequence ended by BEL', '\u001b]0;pwned\u0007x', '\\x1b]0;pwned\\x07x'],
    ['the one-character C1 CSI', 'a\u009b31mb', 'a\\x9b31mb'],
    ['NUL, backspace, CR, LF, tab and DEL', 'a\u0000b\bc\rd\ne\tf\u007f', 'a\\x00b\\x08c\\x0dd\\x0ae\\x09f\\x7f'],
    ['a right-to-left override (Trojan Source)', 'admin\u202etxt.exe', 'admin\\u202etxt.exe'],
    ['bidi isolates and marks', '\u2066x\u2069\u200f\u061c', '\\u2066x\\u2069\\u200f\\u061c'],
    ['zero-width and invisible format characters', 'a\u200bb\u200dc\ufeffd\u2060e\u00adf', 'a\\u200bb\\u200dc\\ufeffd\\u2060e\\xadf'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['lone surrogates', 'a\ud800b\udc00c', 'a\\ud800b\\udc00c'],
  ];
  it.each(escaped)('escapes %s', (_name, input, output) => {
    expect(printable(input)).toBe(output);
    // eslint-disable-next-line no-control-regex -- the point: nothing a terminal acts on is left
    expect(printable(input)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it.each([['concert_singer'], ['cre_Doc_Template_Mgt'], ['café'], ['数据库'], ['emoji 🐍 pair'], ['tab\\x09 written out']])('leaves %j as it is', (name) => {
    expect(printable(name)).toBe(name);
  });

  it('cuts long names and says how much was left out', () => {
    const long = 'x'.repeat(PRINTABLE_MAX_CHARS + 55);
    expect(printable(long)).toBe(`${'x'.repeat(PRINTABLE_MAX_CHARS)}… (55 more characters)`);
    expect(printable('abcdef', 3)).toBe('abc… (3 more characters)');
    expect(printable('abc', 3)).toBe('abc');
  });
});
