/**
 * Text and structured actions: canonical forms parse, everything else becomes an invalid action whose reason names
 * what was received (empty, JSON, a tool call, a fenced action) and the text form expected.
 */
import { describe, expect, it } from 'vitest';
import { actionKey } from '../../src/env/action-key.ts';
import { formatAction, normalizeAction, parseAction } from '../../src/env/actions.ts';

describe('parseAction', () => {
  it.each([
    ['DESCRIBE singer', { type: 'DESCRIBE', table: 'singer' }],
    ['describe   Singer ', { type: 'DESCRIBE', table: 'Singer' }],
    ['Describe "my table"', { type: 'DESCRIBE', table: 'my table' }],
    ['SAMPLE `concert`;', { type: 'SAMPLE', table: 'concert' }],
    ['sample: singer', { type: 'SAMPLE', table: 'singer' }],
    ['QUERY SELECT count(*) FROM singer', { type: 'QUERY', sql: 'SELECT count(*) FROM singer' }],
    ['query\nSELECT *\nFROM singer', { type: 'QUERY', sql: 'SELECT *\nFROM singer' }],
    ['ANSWER 42', { type: 'ANSWER', value: '42' }],
    ['  QUERY:\tSELECT 1 ', { type: 'QUERY', sql: 'SELECT 1' }],
    ['ANSWER ```json\n[1]\n```', { type: 'ANSWER', value: '```json\n[1]\n```' }],
    ['\n\tdescribe singer;;', { type: 'DESCRIBE', table: 'singer' }],
    ['answer ["a", "b"]', { type: 'ANSWER', value: '["a", "b"]' }],
  ])('parses %j', (text, expected) => {
    expect(parseAction(text)).toEqual(expected);
  });

  it.each([
    ['', /Empty action/],
    ['   ', /Empty action/],
    ['DESCRIBE', /needs a table name/],
    ['SAMPLE ', /needs a table name/],
    ['DESCRIBE singer concert', /one table name/],
    ['QUERY', /needs a SQL statement/],
    ['ANSWER   ', /needs a value/],
    ['DELETE FROM singer', /Unknown action 'DELETE'/],
    ['🙂', /Not an action: it does not start with a keyword/],
    ['QUERY1 SELECT 1', /Not an action/],
    ['x'.repeat(10_000), /^Unknown action 'x{59}…'/],
  ])('turns %j into an invalid action with a reason', (text, reason) => {
    const action = parseAction(text);
    expect(action.type).toBe('INVALID');
    if (action.type === 'INVALID') expect(action.reason).toMatch(reason);
  });
});

describe('parseAction: actions in another form get a reason that names it', () => {
  it.each([
    ['{"action": "QUERY", "sql": "SELECT 1"}', /^This looks like a JSON object; write the action as text: QUERY <sql>/],
    ['  [1, 2]', /^This looks like a JSON array; write the action as text/],
    ['<tool_call>{"name": "query", "arguments": {"sql": "SELECT 1"}}</tool_call>', /^This looks like a tool call \(<tool_call>\{\.\.\.\}<\/tool_call>\); here actions are text/],
    ['```\nQUERY SELECT 1\n```', /^This looks like a ``` code block; write the action as plain text without the fence, e\.g\. QUERY SELECT 1\. Actions:/],
    ['```sql\nquery SELECT name\nFROM singer\n```', /without the fence, e\.g\. QUERY SELECT name\. Actions:/],
    ['```DESCRIBE singer```', /without the fence, e\.g\. DESCRIBE singer\./],
    ['```\nSELECT 1\n```', /^This looks like a ``` code block; write the action as plain text without the fence\. Actions: DESCRIBE <table>/],
  ])('%j', (text, reason) => {
    const action = parseAction(text);
    expect(action).toMatchObject({ type: 'INVALID', raw: text });
    if (action.type === 'INVALID') expect(action.reason).toMatch(reason);
  });

  it('never throws and keeps the raw text on hostile input', () => {
    for (const text of ['```' + ' '.repeat(100_000) + 'x', '{'.repeat(100_000), 'DESCRIBE t' + ';'.repeat(100_000) + 'x', '\u0000\uFFFF\uD800']) {
      const action = parseAction(text);
      expect(action.type === 'INVALID' ? action.raw : text).toBe(text);
    }
    expect(parseAction('DESCRIBE t' + ';'.repeat(100_000))).toEqual({ type: 'DESCRIBE', table: 't' });
  });
});

describe('normalizeAction', () => {
  it('accepts structured actions and writes structured answers as JSON', () => {
    expect(normalizeAction({ type: 'QUERY', sql: ' SELECT 1 ' })).toEqual({ type: 'QUERY', sql: 'SELECT 1' });
    expect(normalizeAction({ type: 'ANSWER', value: [1, 'x', null] })).toEqual({ type: 'ANSWER', value: '[1,"x",null]' });
    expect(normalizeAction({ type: 'ANSWER', value: 3.5 })).toEqual({ type: 'ANSWER', value: '3.5' });
  });

  it('keeps the reason of an invalid action a policy passes on', () => {
    expect(normalizeAction({ type: 'INVALID', raw: '<tool_call>{bad', reason: 'The tool call is not JSON.' })).toEqual({ type: 'INVALID', raw: '<tool_call>{bad', reason: 'The tool call is not JSON.' });
    expect(normalizeAction({ type: 'INVALID', reason: ' ' })).toMatchObject({ type: 'INVALID', reason: 'An invalid action needs a reason.' });
  });

  it.each([null, 42, {}, { type: 'DESCRIBE' }, { type: 'QUERY', sql: '' }, { type: 'FLY' }, { type: 'ANSWER' }])('rejects %j without throwing', (input) => {
    expect(normalizeAction(input).type).toBe('INVALID');
  });
});

describe('formatAction and actionKey', () => {
  it('round-trips canonical text', () => {
    for (const text of ['DESCRIBE singer', 'SAMPLE concert', 'QUERY SELECT 1', 'ANSWER 7']) expect(formatAction(parseAction(text))).toBe(text);
  });

  it('treats case and spacing as the same action', () => {
    expect(actionKey({ type: 'DESCRIBE', table: 'Singer' })).toBe(actionKey({ type: 'DESCRIBE', table: 'singer' }));
    expect(actionKey({ type: 'QUERY', sql: 'SELECT  1;' })).toBe(actionKey({ type: 'QUERY', sql: 'SELECT 1' }));
    expect(actionKey({ type: 'QUERY', sql: 'SELECT 1' })).not.toBe(actionKey({ type: 'QUERY', sql: 'SELECT 2' }));
  });
});

describe('table names that are not plain identifiers', () => {
  it.each(['my pets', 'say "hi"', 'a;b', 'Ünïcode', '1st'])('%j survives object form and a text round trip', (name) => {
    const fromObject = normalizeAction({ type: 'DESCRIBE', table: name });
    expect(fromObject).toEqual({ type: 'DESCRIBE', table: name });
    expect(parseAction(formatAction(fromObject))).toEqual({ type: 'DESCRIBE', table: name });
    expect(normalizeAction({ type: 'SAMPLE', table: formatAction(fromObject).slice('DESCRIBE '.length) })).toEqual({ type: 'SAMPLE', table: name });
  });
});
