/**
 * Cases that kill what Stryker's run over src/env/actions.ts left alive (docs/mutation.md): each reason word for word,
 * the keyword scan's character classes at their edges (A/Z/a/z, the digits 0/9 and `_` after a keyword), the optional
 * `:` after spaces and tabs, quoted names with spaces in each quoting style, the 60-character excerpt at its edge, a
 * fenced action whose first line is the keyword itself, and every branch of `normalizeAction` and `formatAction`.
 * Expected values are written from the module's header and the text-action grammar, never by calling the module.
 */
import { describe, expect, it } from 'vitest';
import { formatAction, normalizeAction, parseAction, quoteTableName } from '../../src/env/actions.ts';

const FORMS = 'DESCRIBE <table>, SAMPLE <table>, QUERY <sql>, ANSWER <value>';

/** The reason of an action that must be invalid (fails the test when it is not). */
function reasonOf(input: unknown): string {
  const action = typeof input === 'string' ? parseAction(input) : normalizeAction(input);
  expect(action.type).toBe('INVALID');
  return action.type === 'INVALID' ? action.reason : '';
}

describe('parseAction: each reason word for word', () => {
  it.each([
    ['', `Empty action. Write one of: ${FORMS}.`],
    ['DESCRIBE', "DESCRIBE needs a table name, e.g. 'DESCRIBE singer'."],
    ['SAMPLE ;', "SAMPLE needs a table name, e.g. 'SAMPLE singer'."],
    ['DESCRIBE singer concert\nmore', "DESCRIBE takes one table name; got 'singer concert'. Quote a name with spaces: DESCRIBE \"my table\"."],
    ['QUERY ', "QUERY needs a SQL statement, e.g. 'QUERY SELECT count(*) FROM singer'."],
    ['ANSWER', 'ANSWER needs a value, e.g. \'ANSWER 42\' or \'ANSWER ["a", "b"]\'.'],
    ['DROP TABLE x', `Unknown action 'DROP'. Write one of: ${FORMS}.`],
    ['42', `Not an action: it does not start with a keyword. Write one of: ${FORMS}.`],
    ['{"a": 1}', `This looks like a JSON object; write the action as text: QUERY <sql> (or ${FORMS}).`],
    ['[1]', `This looks like a JSON array; write the action as text: QUERY <sql> (or ${FORMS}).`],
    ['<tool_call>{}</tool_call>', `This looks like a tool call (<tool_call>{...}</tool_call>); here actions are text. Write one of: ${FORMS}, e.g. QUERY SELECT count(*) FROM singer.`],
    ['```\nSELECT 1\n```', `This looks like a \`\`\` code block; write the action as plain text without the fence. Actions: ${FORMS}.`],
  ])('%j', (text, reason) => {
    expect(parseAction(text)).toEqual({ type: 'INVALID', raw: text, reason });
  });
});

describe('parseAction: the keyword scan at its edges', () => {
  // A keyword is a run of ASCII letters A–Z / a–z ending at a word boundary (no digit or `_` right after it).
  it.each(['Zoo x', 'zoo x', 'Az x', 'aZ x'])('%j starts with a keyword (an unknown one)', (text) => {
    expect(reasonOf(text)).toBe(`Unknown action '${text.slice(0, text.indexOf(' '))}'. Write one of: ${FORMS}.`);
  });

  it.each(['QUERY0 SELECT 1', 'QUERY9 SELECT 1', 'QUERY_X SELECT 1', 'ANSWER_ 1'])('%j has no word boundary after the letters', (text) => {
    expect(reasonOf(text)).toMatch(/^Not an action: it does not start with a keyword\./);
  });

  it.each(['@ x', '[x', '`x', '{ x'])('%j (the characters beside A–Z and a–z) is no keyword', (text) => {
    expect(reasonOf(text)).not.toMatch(/^Unknown action/);
  });

  it('takes an optional colon after spaces and tabs, not after a line break', () => {
    expect(parseAction('QUERY \t : SELECT 1')).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    // After a line break the colon is the argument's.
    expect(parseAction('QUERY\n: SELECT 1')).toEqual({ type: 'QUERY', sql: ': SELECT 1' });
    expect(parseAction('QUERY\t\t:SELECT 1')).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    expect(parseAction('QUERY  :SELECT 1')).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    expect(parseAction('ANSWER::7')).toEqual({ type: 'ANSWER', value: ':7' });
  });
});

describe('parseAction: table names', () => {
  it.each([
    ['SAMPLE `my table`', 'my table'],
    ['DESCRIBE [my table]', 'my table'],
    ['DESCRIBE "my table";;', 'my table'],
    ['SAMPLE "a ""b"""', 'a "b"'],
    ['DESCRIBE pets ;', 'pets'],
  ])('%j takes a quoted name with spaces', (text, table) => {
    expect(parseAction(text)).toEqual({ type: text.startsWith('SAMPLE') ? 'SAMPLE' : 'DESCRIBE', table });
  });

  it("refuses a name with a tab or a line break unless quoted (any white space, not only ' ')", () => {
    expect(reasonOf('DESCRIBE a\tb')).toBe("DESCRIBE takes one table name; got 'a\tb'. Quote a name with spaces: DESCRIBE \"my table\".");
    expect(reasonOf('DESCRIBE a\nb')).toBe("DESCRIBE takes one table name; got 'a'. Quote a name with spaces: DESCRIBE \"my table\".");
    expect(reasonOf('DESCRIBE a b \nc')).toBe("DESCRIBE takes one table name; got 'a b'. Quote a name with spaces: DESCRIBE \"my table\".");
  });

  it('shows at most 60 characters of an excerpt: 60 whole, 61 as 59 and …', () => {
    const w60 = 'w'.repeat(60);
    const w61 = 'w'.repeat(61);
    expect(reasonOf(`${w60} x`)).toBe(`Unknown action '${w60}'. Write one of: ${FORMS}.`);
    expect(reasonOf(`${w61} x`)).toBe(`Unknown action '${'w'.repeat(59)}…'. Write one of: ${FORMS}.`);
  });
});

describe('parseAction: a fenced action', () => {
  it.each([
    // The keyword alone on the first line is the action, not an info word.
    ['```QUERY\nSELECT 1\n```', 'e.g. QUERY SELECT 1.'],
    ['```sample\npets\n```', 'e.g. SAMPLE pets.'],
    // A first line with a space is no info word: the action starts on it.
    ['```ANSWER 42\nmore\n```', 'e.g. ANSWER 42.'],
    // ```text then the action on the next line; no closing fence.
    ['```text\nDESCRIBE pets', 'e.g. DESCRIBE pets.'],
    // An info word on a line of its own (a line break right after one letter; a trailing space), and a keyword with
    // a trailing space alone on the first line.
    ['```a\nQUERY SELECT 1\n```', 'e.g. QUERY SELECT 1.'],
    ['```sql \nQUERY SELECT 1\n```', 'e.g. QUERY SELECT 1.'],
    ['```QUERY \nSELECT 1\n```', 'e.g. QUERY SELECT 1.'],
  ])('%j names the action inside', (text, example) => {
    expect(reasonOf(text)).toBe(`This looks like a \`\`\` code block; write the action as plain text without the fence, ${example} Actions: ${FORMS}.`);
  });

  it('gives no example when the fence holds no keyword', () => {
    expect(reasonOf('```json\n{"a": 1}\n```')).toBe(`This looks like a \`\`\` code block; write the action as plain text without the fence. Actions: ${FORMS}.`);
  });
});

describe('quoteTableName', () => {
  it.each([
    ['pets', 'pets'],
    ['Pets_1', 'Pets_1'],
    ['_x', '_x'],
    ['1st', '"1st"'],
    ['a;b', '"a;b"'],
    ['pets 2', '"pets 2"'],
    ['x-y', '"x-y"'],
    ['say "hi"', '"say ""hi"""'],
    ['', '""'],
  ])('%j → %s', (name, quoted) => {
    expect(quoteTableName(name)).toBe(quoted);
  });
});

describe('normalizeAction: each branch', () => {
  it.each([
    [42, '42', 'An action must be text or an object with a type.'],
    [null, 'null', 'An action must be text or an object with a type.'],
    [{ table: 'x' }, '[object Object]', 'An action must be text or an object with a type.'],
    [{ type: 'DESCRIBE', table: 3 }, '{"type":"DESCRIBE","table":3}', "DESCRIBE needs a 'table' string."],
    [{ type: 'sample' }, '{"type":"sample"}', "SAMPLE needs a 'table' string."],
    [{ type: 'SAMPLE', table: '  ' }, '{"type":"SAMPLE","table":"  "}', "SAMPLE needs a table name, e.g. 'SAMPLE singer'."],
    [{ type: 'DESCRIBE', table: '""' }, '{"type":"DESCRIBE","table":"\\"\\""}', "DESCRIBE needs a table name, e.g. 'DESCRIBE singer'."],
    [{ type: 'QUERY', sql: ' \n ' }, '{"type":"QUERY","sql":" \\n "}', "QUERY needs a non-empty 'sql' string."],
    [{ type: 'QUERY', sql: 1 }, '{"type":"QUERY","sql":1}', "QUERY needs a non-empty 'sql' string."],
    [{ type: 'ANSWER' }, '{"type":"ANSWER"}', "ANSWER needs a 'value'."],
    [{ type: 'ANSWER', value: '   ' }, '{"type":"ANSWER","value":"   "}', 'ANSWER needs a non-empty value.'],
    [{ type: 'INVALID', reason: 7 }, '{"type":"INVALID","reason":7}', 'An invalid action needs a reason.'],
    [{ type: 5 }, '{"type":5}', "Unknown action type '5'."],
    [{ type: 'FLY' }, '{"type":"FLY"}', "Unknown action type 'FLY'."],
  ])('%j', (input, raw, reason) => {
    expect(normalizeAction(input)).toEqual({ type: 'INVALID', raw, reason });
  });

  it('reads the type in any case and trims text values', () => {
    expect(normalizeAction('QUERY SELECT 1')).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    expect(normalizeAction({ type: 'query', sql: '\tSELECT 1\n' })).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    expect(normalizeAction({ type: 'Answer', value: ' 7 ' })).toEqual({ type: 'ANSWER', value: '7' });
    expect(normalizeAction({ type: 'ANSWER', value: null })).toEqual({ type: 'ANSWER', value: 'null' });
    expect(normalizeAction({ type: 'ANSWER', value: 0 })).toEqual({ type: 'ANSWER', value: '0' });
    expect(normalizeAction({ type: 'describe', table: ' pets ' })).toEqual({ type: 'DESCRIBE', table: 'pets' });
  });

  it('unquotes an object table in each quoting style and keeps a plain one exactly', () => {
    expect(normalizeAction({ type: 'SAMPLE', table: '`my pets`' })).toEqual({ type: 'SAMPLE', table: 'my pets' });
    expect(normalizeAction({ type: 'SAMPLE', table: '[my pets]' })).toEqual({ type: 'SAMPLE', table: 'my pets' });
    expect(normalizeAction({ type: 'SAMPLE', table: "'my pets'" })).toEqual({ type: 'SAMPLE', table: "'my pets'" });
  });

  it('keeps the raw text of an invalid action when it is text, else writes the object', () => {
    expect(normalizeAction({ type: 'INVALID', raw: 'x', reason: 'r' })).toEqual({ type: 'INVALID', raw: 'x', reason: 'r' });
    expect(normalizeAction({ type: 'invalid', raw: 3, reason: 'r' })).toEqual({ type: 'INVALID', raw: '{"type":"invalid","raw":3,"reason":"r"}', reason: 'r' });
  });
});

describe('formatAction', () => {
  it('writes each action type in its text form', () => {
    expect(formatAction({ type: 'SAMPLE', table: 'my pets' })).toBe('SAMPLE "my pets"');
    expect(formatAction({ type: 'DESCRIBE', table: 'pets' })).toBe('DESCRIBE pets');
    expect(formatAction({ type: 'QUERY', sql: 'SELECT 1' })).toBe('QUERY SELECT 1');
    expect(formatAction({ type: 'ANSWER', value: '[1, 2]' })).toBe('ANSWER [1, 2]');
    expect(formatAction({ type: 'INVALID', raw: 'hello', reason: 'r' })).toBe('hello');
  });
});
