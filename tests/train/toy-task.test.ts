/**
 * The toy task (src/train/toy-task.ts): the phrase tokenizer (longest match, one `<unk>` per unmatched run, Qwen's
 * special tokens), its Qwen-like template, a whole answer call as one token that parses to the answer, and the
 * dataset's gold answers.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { parseCompletion } from '../../src/policies/llm/parse.ts';
import { buildToyDataset, createPhraseTokenizer, createToyTokenizer, pyJson, renderToyChat } from '../../src/train/toy-task.ts';

describe('phrase tokenizer', () => {
  const tok = createPhraseTokenizer(['ab', 'abc', 'x']);

  it('encodes by longest match, one <unk> per unmatched run, special tokens first', () => {
    expect(tok.size).toBe(7 + 1 + 3);
    const [abc, x, ab] = ['abc', 'x', 'ab'].map((s) => tok.tokenId(s)!);
    const unk = tok.tokenId('<unk>')!;
    expect(tok.encode('abcx')).toEqual([abc, x]);
    expect(tok.encode('abx')).toEqual([ab, x]);
    expect(tok.encode('hello world x!!')).toEqual([unk, x, unk]);
    expect(tok.encode('<|im_end|>ab')).toEqual([tok.special.imEnd, ab]);
    expect(tok.decode([ab, unk, tok.special.imEnd])).toBe('ab\uFFFD<|im_end|>');
    expect(tok.decode([ab, tok.special.imEnd], { skipSpecialTokens: true })).toBe('ab');
  });

  it('renders chats as Qwen does, without a think block', () => {
    const text = renderToyChat([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'query', arguments: { sql: 'SELECT 1' } }] },
      { role: 'tool', content: 'r' },
    ]);
    expect(text).toBe(
      '<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "query", "arguments": {"sql": "SELECT 1"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\nr\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    expect(pyJson({ a: [1, 'b', null], c: { d: true } })).toBe('{"a": [1, "b", null], "c": {"d": true}}');
  });
});

describe('toy task', () => {
  it('makes each answer call one token that parses to the answer, and each question one token', () => {
    const tok = createToyTokenizer();
    const call = '<tool_call>\n{"name": "answer", "arguments": {"value": "Di"}}\n</tool_call>';
    expect(tok.encode(call)).toHaveLength(1);
    expect(parseCompletion(call).action).toEqual({ type: 'ANSWER', value: 'Di' });
    expect(tok.encode('Question: Who is the oldest singer?\nDatabase: toy')).toHaveLength(3);
  });

  it('has gold answers matching its answer tokens', async () => {
    const ds = await buildToyDataset(await initSqlJs());
    const answers = Object.fromEntries(ds.questions.map((q) => [q.id, q.goldResult.rows[0][0]]));
    expect(answers).toEqual({ 'toy-1': 5, 'toy-2': 3, 'toy-3': 'Di', 'toy-4': 'Cy', 'toy-5': 2, 'toy-6': 'France' });
    expect(ds.questions.filter((q) => q.split === 'train')).toHaveLength(4);
  });
});
