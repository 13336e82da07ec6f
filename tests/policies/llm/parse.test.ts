/**
 * parseCompletion, table-driven: well-formed calls of each tool (thinking on and off), and many kinds of garbage,
 * each of which must become an invalid action with a reason that names the fault — never an exception.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../src/env/actions.ts';
import { parseCompletion, rawExcerpt, RAW_EXCERPT_CHARS } from '../../../src/policies/llm/parse.ts';
import { SQL_TOOLS, TOOL_NAMES, toolCallForAction } from '../../../src/policies/llm/tools.ts';

const call = (json: string): string => `<tool_call>\n${json}\n</tool_call><|im_end|>`;

const VALID: Array<[string, string, Action]> = [
  ['describe', call('{"name": "describe", "arguments": {"table": "singer"}}'), { type: 'DESCRIBE', table: 'singer' }],
  ['sample', call('{"name": "sample", "arguments": {"table": "concert"}}'), { type: 'SAMPLE', table: 'concert' }],
  ['query', call('{"name": "query", "arguments": {"sql": "SELECT count(*) FROM singer"}}'), { type: 'QUERY', sql: 'SELECT count(*) FROM singer' }],
  ['answer text', call('{"name": "answer", "arguments": {"value": "Paris"}}'), { type: 'ANSWER', value: 'Paris' }],
  ['answer number', call('{"name": "answer", "arguments": {"value": 42}}'), { type: 'ANSWER', value: '42' }],
  ['answer list', call('{"name": "answer", "arguments": {"value": ["a", "b"]}}'), { type: 'ANSWER', value: '["a","b"]' }],
  ['answer rows', call('{"name": "answer", "arguments": {"value": [["a", 1], ["b", null]]}}'), { type: 'ANSWER', value: '[["a",1],["b",null]]' }],
  ['uppercase tool name', call('{"name": "DESCRIBE", "arguments": {"table": "singer"}}'), { type: 'DESCRIBE', table: 'singer' }],
  ['arguments as a JSON string', call('{"name": "query", "arguments": "{\\"sql\\": \\"SELECT 1\\"}"}'), { type: 'QUERY', sql: 'SELECT 1' }],
  ['quoted table', call('{"name": "describe", "arguments": {"table": "\\"my table\\""}}'), { type: 'DESCRIBE', table: 'my table' }],
  ['no end token', '<tool_call>{"name": "sample", "arguments": {"table": "t"}}</tool_call>', { type: 'SAMPLE', table: 't' }],
  ['text around the call', 'Let me look.\n' + call('{"name": "sample", "arguments": {"table": "t"}}') + 'ignored', { type: 'SAMPLE', table: 't' }],
  ['thinking', '<think>\nI need the schema.\n</think>\n\n' + call('{"name": "describe", "arguments": {"table": "t"}}'), { type: 'DESCRIBE', table: 't' }],
  ['bare </think> (block opened by the prompt)', 'hmm\n</think>\n' + call('{"name": "describe", "arguments": {"table": "t"}}'), { type: 'DESCRIBE', table: 't' }],
  ['a call inside thinking is not the action', '<think><tool_call>{"name":"answer","arguments":{"value":1}}</tool_call></think>' + call('{"name": "describe", "arguments": {"table": "t"}}'), { type: 'DESCRIBE', table: 't' }],
  ['junk after the end token', call('{"name": "describe", "arguments": {"table": "t"}}') + '<tool_call>junk', { type: 'DESCRIBE', table: 't' }],
];

describe('parseCompletion: valid calls', () => {
  it.each(VALID)('%s', (_label, text, expected) => {
    const parsed = parseCompletion(text);
    expect(parsed.action).toEqual(expected);
    expect(parsed.notes).toEqual([]);
  });

  it('keeps the thinking text and the content outside the call', () => {
    const parsed = parseCompletion('<think>\nschema first\n</think>\n\nLooking.\n' + call('{"name": "describe", "arguments": {"table": "t"}}'));
    expect(parsed.thinking).toBe('schema first');
    expect(parsed.content).toBe('Looking.');
    expect(parsed.toolCall).toEqual({ name: 'describe', arguments: { table: 't' } });
    expect(parsed.toolCallCount).toBe(1);
    expect(parseCompletion(call('{"name": "describe", "arguments": {"table": "t"}}')).thinking).toBeNull();
  });

  it('runs the first of several calls and notes the rest, or rejects them when asked', () => {
    const two = call('{"name": "describe", "arguments": {"table": "a"}}') .replace('<|im_end|>', '') + call('{"name": "describe", "arguments": {"table": "b"}}');
    const first = parseCompletion(two);
    expect(first.action).toEqual({ type: 'DESCRIBE', table: 'a' });
    expect(first.notes).toEqual(['The reply made 2 tool calls; only the first was used.']);
    const strict = parseCompletion(two, { multipleCalls: 'invalid' });
    expect(strict.action.type).toBe('INVALID');
    expect(strict.action.type === 'INVALID' && strict.action.reason).toMatch(/2 tool calls; make exactly one/);
  });

  it('round-trips every action through toolCallForAction', () => {
    const actions: Action[] = [
      { type: 'DESCRIBE', table: 'singer' },
      { type: 'SAMPLE', table: 'concert' },
      { type: 'QUERY', sql: "SELECT name FROM singer WHERE country = 'France'" },
      { type: 'ANSWER', value: '6' },
      { type: 'ANSWER', value: 'Ana' },
      { type: 'ANSWER', value: '["a","b"]' },
      { type: 'ANSWER', value: '[["a",1],["b",null]]' },
    ];
    for (const action of actions) {
      const parsed = parseCompletion(call(JSON.stringify(toolCallForAction(action))));
      expect(parsed.action).toEqual(action);
    }
    expect(toolCallForAction({ type: 'ANSWER', value: '["a","b"]' }).arguments.value).toEqual(['a', 'b']);
  });

  it('declares the four tools with one required argument each', () => {
    expect(SQL_TOOLS.map((t) => t.function.name)).toEqual([...TOOL_NAMES]);
    for (const t of SQL_TOOLS) expect((t.function.parameters.required as string[]).length).toBe(1);
  });
});

const ENDLESS = 'SELECT '.repeat(400);

/** [label, completion, options, pattern the reason must match] */
const GARBAGE: Array<[string, string, { cutByLimit?: boolean; maxNewTokens?: number }, RegExp]> = [
  ['empty reply', '', {}, /No tool call/],
  ['only the end token', '<|im_end|>', {}, /No tool call/],
  ['plain prose', 'The answer is 42.', {}, /No tool call/],
  ['a text action instead of a call', 'DESCRIBE singer', {}, /No tool call/],
  ['JSON without tags', '{"name": "describe", "arguments": {"table": "t"}}', {}, /No tool call/],
  ['endless text cut by the limit', ENDLESS, { cutByLimit: true, maxNewTokens: 256 }, /cut at the 256-token limit before any tool call/],
  ['cut inside the call', '<tool_call>\n{"name": "query", "arguments": {"sql": "SELECT', { cutByLimit: true }, /cut at the token limit inside the tool call/],
  ['cut while thinking', '<think>\nhmm ' + 'hmm '.repeat(300), { cutByLimit: true }, /cut at the token limit while thinking/],
  ['thinking never closed', '<think>\nhmm<|im_end|>', {}, /never closed with <\/think>/],
  ['call never closed', '<tool_call>\n{"name": "describe", "arguments": {"table": "t"}}<|im_end|>', {}, /not closed with <\/tool_call>/],
  ['call reopened before closing', '<tool_call>{"name": "describe"<tool_call>{}</tool_call>', {}, /not closed/],
  ['empty call', call(''), {}, /not valid JSON/],
  ['bad JSON', call('{"name": "describe", "arguments": {"table": "t"}'), {}, /not valid JSON/],
  ['single quotes', call("{'name': 'describe', 'arguments': {'table': 't'}}"), {}, /not valid JSON/],
  ['trailing comma', call('{"name": "describe", "arguments": {"table": "t",}}'), {}, /not valid JSON/],
  ['JSON array', call('[{"name": "describe"}]'), {}, /must be a JSON object.*got a list/],
  ['JSON string', call('"describe singer"'), {}, /must be a JSON object.*got string/],
  ['JSON null', call('null'), {}, /must be a JSON object.*got null/],
  ['no name', call('{"arguments": {"table": "t"}}'), {}, /no "name"/],
  ['numeric name', call('{"name": 3, "arguments": {"table": "t"}}'), {}, /no "name"/],
  ['unknown tool', call('{"name": "drop_table", "arguments": {"table": "t"}}'), {}, /Unknown tool 'drop_table'. Tools: answer, describe, query, sample/],
  ['no arguments', call('{"name": "describe"}'), {}, /no "arguments"/],
  ['arguments a list', call('{"name": "describe", "arguments": ["t"]}'), {}, /"arguments" must be a JSON object; got a list/],
  ['arguments a non-JSON string', call('{"name": "describe", "arguments": "t"}'), {}, /"arguments" must be a JSON object; got string/],
  ['missing argument', call('{"name": "describe", "arguments": {}}'), {}, /describe needs the argument 'table'/],
  ['wrong argument name', call('{"name": "query", "arguments": {"query": "SELECT 1"}}'), {}, /query takes one argument, 'sql'; remove 'query'/],
  ['extra argument', call('{"name": "sample", "arguments": {"table": "t", "limit": 3}}'), {}, /remove 'limit'/],
  ['table a number', call('{"name": "describe", "arguments": {"table": 7}}'), {}, /'table' must be a string; got number/],
  ['table a list', call('{"name": "sample", "arguments": {"table": ["a", "b"]}}'), {}, /'table' must be a string; got a list/],
  ['empty table', call('{"name": "describe", "arguments": {"table": "  "}}'), {}, /'table' is empty/],
  ['sql null', call('{"name": "query", "arguments": {"sql": null}}'), {}, /'sql' must be a string; got null/],
  ['empty sql', call('{"name": "query", "arguments": {"sql": ""}}'), {}, /'sql' is empty/],
  ['answer empty', call('{"name": "answer", "arguments": {"value": " "}}'), {}, /'value' is empty/],
  ['answer boolean', call('{"name": "answer", "arguments": {"value": true}}'), {}, /'value' must be text, a number, a list or rows; got boolean/],
  ['answer object', call('{"name": "answer", "arguments": {"value": {"n": 1}}}'), {}, /got object/],
  ['answer null', call('{"name": "answer", "arguments": {"value": null}}'), {}, /got null/],
  ['answer nested too deep', call('{"name": "answer", "arguments": {"value": [[["a"]]]}}'), {}, /list of values or a list of rows/],
  ['answer list of objects', call('{"name": "answer", "arguments": {"value": [{"a": 1}]}}'), {}, /list of values or a list of rows/],
  ['unicode and control garbage', '\u0000\u0007 ���\u202e <tool_c all>', {}, /No tool call/],
  ['closing tag only', '</tool_call>', {}, /No tool call/],
];

describe('parseCompletion: a tool call names a table exactly', () => {
  it('keeps a name with a space as one table (free-play files have such names)', () => {
    expect(parseCompletion(call('{"name": "describe", "arguments": {"table": "my pets"}}')).action).toEqual({ type: 'DESCRIBE', table: 'my pets' });
  });
});

describe('parseCompletion: garbage becomes an invalid action', () => {
  it.each(GARBAGE)('%s', (_label, text, options, reason) => {
    let parsed: ReturnType<typeof parseCompletion> | undefined;
    expect(() => (parsed = parseCompletion(text, options))).not.toThrow();
    const action = parsed!.action;
    expect(action.type).toBe('INVALID');
    if (action.type !== 'INVALID') return;
    expect(action.reason).toMatch(reason);
    expect(action.raw.length).toBeLessThanOrEqual(RAW_EXCERPT_CHARS);
    expect(action.raw).not.toMatch(/\n/);
  });

  it('writes a short one-line excerpt of the reply', () => {
    expect(rawExcerpt('')).toBe('(empty reply)');
    expect(rawExcerpt(' a\n\n b ')).toBe('a b');
    expect(rawExcerpt('x'.repeat(500))).toHaveLength(RAW_EXCERPT_CHARS);
    expect(rawExcerpt(' \t\n'.repeat(100_000) + 'x  y\u00a0\u2028z')).toBe('x y z');
  });
});
