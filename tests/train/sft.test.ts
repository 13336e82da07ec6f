/**
 * SFT demonstrations (src/train/sft.ts): Oracle episodes of the tiny concerts fixture rendered with the real Qwen3
 * tokenizer — the masked-in tokens are the Oracle's calls (each parses back to the Oracle's action) with their end
 * tokens, inside TRL's assistant turn (the empty think block before, the newline after: sft-mask.test.ts checks the
 * mask against TRL's rule), the rest is prompt and tool turns; the loss is the mean NLL over assistant tokens with gradient
 * −1/N (checked by finite differences).
 */
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import { parseCompletion } from '../../src/policies/llm/parse.ts';
import { buildSftExamples, sftLoss } from '../../src/train/sft.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

let qwen: Tokenizer;
beforeAll(async () => {
  qwen = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
});
const tiny = useTinyDataset();
const weights = { correctness: 1, progress: 0.2, operational: 1 };

describe('Oracle demonstrations', () => {
  it('mask the Oracle calls in their assistant turns, which parse back to its actions', async () => {
    const train = tiny.dataset.questions.filter((q) => q.split === 'train');
    const { examples, skipped } = await buildSftExamples(qwen, () => new SqlEnv(tiny.dataset, tiny.executor), train, { thinking: false, maxEpisodeTokens: 4096, rewardWeights: weights });
    expect(skipped).toEqual([]);
    expect(examples).toHaveLength(train.length);
    for (const ex of examples) {
      expect(ex.correct).toBe(true);
      expect(ex.actions.at(-1)!.action.startsWith('ANSWER')).toBe(true);
      // Split the masked-in tokens into replies at each end token; each reply parses to the Oracle's action.
      const replies: number[][] = [[]];
      ex.tokenIds.forEach((id, t) => {
        if (!ex.lossMask[t]) return;
        if (id === qwen.special.imEnd) replies.push([]);
        else replies.at(-1)!.push(id);
      });
      expect(qwen.decode(replies.pop()!)).toBe('\n'); // the last turn's newline
      expect(replies).toHaveLength(ex.actions.length);
      replies.forEach((ids, i) => {
        // The previous turn's newline (after the first), the generation prompt's empty think block, the call.
        const turn = qwen.decode(ids);
        expect(turn).toMatch(i === 0 ? /^<think>\n\n<\/think>\n\n<tool_call>/ : /^\n<think>\n\n<\/think>\n\n<tool_call>/);
        const text = turn.replace(/^\n?<think>\n\n<\/think>\n\n/, '');
        expect(text.startsWith('<tool_call>\n{"name": ')).toBe(true);
        const action = parseCompletion(text).action;
        expect(action.type).not.toBe('INVALID');
        expect(ex.actions[i].action.split(' ')[0]).toBe(action.type);
      });
      // The unmasked part holds the question and the observations.
      const context = qwen.decode(ex.tokenIds.filter((_, t) => !ex.lossMask[t]));
      expect(context).toContain(ex.question);
      expect(context).toContain('<tool_response>');
    }
  });

  it('are skipped when they do not fit the token limit', async () => {
    const q = tiny.dataset.questions.filter((x) => x.split === 'train');
    const { examples, skipped } = await buildSftExamples(qwen, () => new SqlEnv(tiny.dataset, tiny.executor), q, { thinking: false, maxEpisodeTokens: 700, rewardWeights: weights });
    expect(skipped.length).toBeGreaterThan(0);
    expect(examples.length + skipped.length).toBe(q.length);
    for (const ex of examples) expect(ex.tokenIds.length).toBeLessThanOrEqual(700);
  });
});

describe('sftLoss', () => {
  it('is the mean NLL over the batch with gradient −1/N (finite differences)', () => {
    const lp = [-0.5, -2, -1.25];
    const r = sftLoss(lp, 5);
    expect(r.loss).toBeCloseTo(3.75 / 5, 12);
    const h = 1e-6;
    for (let i = 0; i < 3; i++) {
      const up = sftLoss(lp.map((v, j) => (j === i ? v + h : v)), 5).loss;
      const down = sftLoss(lp.map((v, j) => (j === i ? v - h : v)), 5).loss;
      expect(r.grad[i]).toBeCloseTo((up - down) / (2 * h), 6);
    }
    expect(() => sftLoss([], 0)).toThrow(RangeError);
  });
});
