/**
 * The episode-as-one-sequence format (src/train/chat-sequence.ts) on the real Qwen3 chat template and on the toy
 * template: the tool turn between replies, a demonstration's reply text (which the parser must read back as the
 * same action), and the loss mask of a built sequence.
 */
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import { parseCompletion } from '../../src/policies/llm/parse.ts';
import { toolCallForAction } from '../../src/policies/llm/tools.ts';
import { replyTextForCall, replyTokensForCall, SequenceBuilder, toolTurnText, toolTurnTokens } from '../../src/train/chat-sequence.ts';
import { createToyTokenizer } from '../../src/train/toy-task.ts';

let qwen: Tokenizer;
beforeAll(async () => {
  qwen = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
});

const OBS = '> DESCRIBE singer\nsinger_id INTEGER PRIMARY KEY\nSteps left: 3';

describe('tool turn', () => {
  it('is the Qwen3 tool message plus the next generation prompt (thinking off: empty think block)', () => {
    expect(toolTurnText({ tokenizer: qwen, thinking: false }, OBS)).toBe(
      `<|im_end|>\n<|im_start|>user\n<tool_response>\n${OBS}\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
    );
    expect(toolTurnText({ tokenizer: qwen, thinking: true }, OBS)).toBe(`<|im_end|>\n<|im_start|>user\n<tool_response>\n${OBS}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`);
  });

  it('drops its leading <|im_end|> when the reply already ended with one', () => {
    const f = { tokenizer: qwen, thinking: false };
    const withEnd = toolTurnTokens(f, OBS, false);
    expect(withEnd[0]).toBe(qwen.special.imEnd);
    expect(toolTurnTokens(f, OBS, true)).toEqual(withEnd.slice(1));
  });

  it('works with the toy template', () => {
    const toy = createToyTokenizer();
    expect(toolTurnText({ tokenizer: toy, thinking: false }, 'x')).toBe('<|im_end|>\n<|im_start|>user\n<tool_response>\nx\n</tool_response><|im_end|>\n<|im_start|>assistant\n');
  });
});

describe('demonstration replies', () => {
  const actions = [
    { type: 'DESCRIBE', table: 'singer' },
    { type: 'QUERY', sql: "SELECT name FROM singer WHERE country = 'France'" },
    { type: 'ANSWER', value: '["Ana", "Cy"]' },
    { type: 'ANSWER', value: '5' },
  ] as const;

  it.each(actions)('renders %j as the call the template writes, which parses back to the same action', (action) => {
    for (const thinking of [false, true]) {
      const text = replyTextForCall({ tokenizer: qwen, thinking }, toolCallForAction(action));
      expect(text).toContain('<tool_call>\n{"name": ');
      if (thinking) expect(text.startsWith('<think>\n\n</think>\n\n')).toBe(true);
      else expect(text.startsWith('<tool_call>')).toBe(true);
      const parsed = parseCompletion(text).action;
      expect(parsed.type).toBe(action.type);
      if (action.type === 'ANSWER') expect(JSON.stringify(parsed)).toContain(action.value === '5' ? '5' : 'Ana');
      else expect(parsed).toEqual(action);
    }
    const ids = replyTokensForCall({ tokenizer: qwen, thinking: false }, toolCallForAction(action));
    expect(ids.at(-1)).toBe(qwen.special.imEnd);
  });

  it('a toy answer call is one token', () => {
    const toy = createToyTokenizer();
    const ids = replyTokensForCall({ tokenizer: toy, thinking: false }, { name: 'answer', arguments: { value: 5 } });
    expect(ids).toHaveLength(2);
    expect(parseCompletion(toy.decode(ids.slice(0, 1))).action).toEqual({ type: 'ANSWER', value: '5' });
  });
});

describe('SequenceBuilder', () => {
  it('marks only reply tokens and keeps their log-probs in order; a reply needs a prompt first', () => {
    const s = new SequenceBuilder();
    expect(() => s.pushReply([1], [-0.5])).toThrow(RangeError);
    s.pushContext([2, 3]);
    s.pushReply([4, 5], [-1, -2]);
    s.pushContext([6]);
    s.pushReply([7]);
    expect(s.tokenIds).toEqual([2, 3, 4, 5, 6, 7]);
    expect(Array.from(s.lossMask())).toEqual([0, 0, 1, 1, 0, 1]);
    expect(s.sampledLogProbs).toEqual([-1, -2, NaN]);
  });
});
