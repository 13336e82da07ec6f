import { describe, expect, it } from 'vitest';
import { actionKey, formatAction, normalizeAction, parseAction } from '../../src/env/actions.ts';

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
    ['{"name": "query"}', /Empty action|Unknown action/],
    ['🙂', /Empty action|Unknown action/],
  ])('turns %j into an invalid action with a reason', (text, reason) => {
    const action = parseAction(text);
    expect(action.type).toBe('INVALID');
    if (action.type === 'INVALID') expect(action.reason).toMatch(reason);
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
