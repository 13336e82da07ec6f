/**
 * The page's SFT trains what TRL trains: on demo rows, the loss mask of `buildSftExamples` equals the mask TRL's
 * SFTTrainer builds with `assistant_only_loss=True`, computed here from the rendered text with TRL's rule: its Qwen3
 * training template (trl/chat_templates/qwen3_training.jinja) wraps every assistant turn from after
 * `<|im_start|>assistant\n` through `<|im_end|>\n` in `{% generation %}`, and transformers' `apply_chat_template(…,
 * return_assistant_tokens_mask=True)` marks every token from the one holding a span's first character to the one
 * holding its last. The text must also be that template's rendering: each assistant turn opens with the (empty)
 * think block and the text ends with `<|im_end|>\n`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { DEFAULT_REWARD_WEIGHTS } from '../../src/env/rewards.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { buildSftExamples } from '../../src/train/sft.ts';
import { openDemoWithQwen } from '../fixtures/demo-qwen.ts';

let tok: Tokenizer;
let dataset: Dataset;
let executor: WorkerSqlExecutor;

beforeAll(async () => {
  ({ tok, dataset, executor } = await openDemoWithQwen());
}, 60_000);

afterAll(async () => {
  await executor?.close();
});

/** TRL's assistant mask of `ids` (see the header), from the text each token decodes to. */
function trlAssistantMask(ids: readonly number[]): { mask: number[]; text: string } {
  const pieces = ids.map((id) => tok.decode([id]));
  const text = pieces.join('');
  const tokenAt: number[] = []; // character index → token index
  pieces.forEach((p, i) => {
    for (let c = 0; c < p.length; c++) tokenAt.push(i);
  });
  const mask = ids.map(() => 0);
  for (const m of text.matchAll(/<\|im_start\|>assistant\n/g)) {
    const start = m.index + m[0].length;
    const end = text.indexOf('<|im_end|>\n', start) + '<|im_end|>\n'.length; // exclusive
    for (let t = tokenAt[start]; t <= tokenAt[end - 1]; t++) mask[t] = 1;
  }
  return { mask, text };
}

describe('SFT mask', () => {
  it.each([false, true])('equals TRL\'s assistant_only_loss mask on demo rows (thinking %s)', async (thinking) => {
    const questions = dataset.questions.filter((q) => q.split === 'train' && !q.freePlay).slice(0, 8);
    const { examples } = await buildSftExamples(tok, () => new SqlEnv(dataset, executor), questions, { thinking, maxEpisodeTokens: 4096, rewardWeights: DEFAULT_REWARD_WEIGHTS });
    expect(examples.length).toBeGreaterThan(4);
    for (const ex of examples) {
      const { mask, text } = trlAssistantMask(ex.tokenIds);
      expect(text).toBe(tok.decode(ex.tokenIds)); // token pieces cover the text exactly
      // The shape of TRL's Qwen3 training template: every assistant turn opens with the think block; the text ends the turn.
      const turns = text.split('<|im_start|>assistant\n').slice(1);
      expect(turns).toHaveLength(ex.actions.length);
      for (const turn of turns) expect(turn.startsWith('<think>\n\n</think>\n\n<tool_call>\n')).toBe(true);
      expect(text.endsWith('</tool_call><|im_end|>\n')).toBe(true);
      // Position 0 is never scored; TRL's mask is 0 there too (the system turn).
      expect(Array.from(ex.lossMask), ex.questionId).toEqual(mask);
    }
  });
});
