/**
 * One rendering for training and deployment: a model that makes the same replies sees, at turn 3, the same prompt
 * text (and token ids) in a GRPO rollout (src/train/rollout.ts, the training sequence) and in Evaluate (runEpisode
 * with LlmPolicy, as Watch, Compare and the CLI play). Real Qwen3 tokenizer and chat template, demo dataset; the
 * "model" is a script whose replies are Qwen tool calls written out here by hand. Before the fix, Evaluate
 * re-rendered past replies through the stock template, which drops their empty think block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { DEFAULT_REWARD_WEIGHTS } from '../../src/env/rewards.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import { LlmPolicy } from '../../src/policies/llm/llm-policy.ts';
import type { GenerateRequest, SampledGeneration, TrainableModel } from '../../src/train/policy-model.ts';
import { rollout } from '../../src/train/rollout.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
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

const BUDGET = 3;
const SEED = 11;

/**
 * The k-th reply of the script: describe, sample, then answer — Qwen3's tool-call format, typed out; with thinking
 * on, Qwen3 opens its reply with its (here empty) thinking.
 */
function replyText(table: string, k: number, thinking: boolean): string {
  const call = k === 0 ? `{"name": "describe", "arguments": {"table": "${table}"}}` : k === 1 ? `{"name": "sample", "arguments": {"table": "${table}"}}` : '{"name": "answer", "arguments": {"value": 0}}';
  return `${thinking ? '<think>\n\n</think>\n\n' : ''}<tool_call>\n${call}\n</tool_call>`;
}

describe('one rendering for training and deployment', () => {
  it('gives the same turn-3 prompt in a training rollout and in Evaluate (thinking off and on)', async () => {
    const question = dataset.questions.find((q) => q.split === 'train' && !q.freePlay)!;
    const createEnv = () => new SqlEnv(dataset, executor, { budget: BUDGET });
    const probe = createEnv();
    const table = (await probe.reset({ questionId: question.id, seed: SEED })).observation.tables[0];
    probe.close();

    for (const thinking of [false, true]) {
      // Training: the rollout's turn prompts are the sequence so far.
      const trainPrompts: number[][] = [];
      const model: TrainableModel = {
        tokenizer: tok,
        contextTokens: 8192,
        generate: async (requests: readonly GenerateRequest[]): Promise<SampledGeneration[]> =>
          requests.map((r) => {
            const text = replyText(table, trainPrompts.length, thinking);
            trainPrompts.push([...r.promptTokenIds]);
            return { text, tokenIds: [...tok.encode(text), tok.special.imEnd], logProbs: [] };
          }),
        forward: () => Promise.reject(new Error('not used')),
        backward: () => Promise.reject(new Error('not used')),
        optimizerStep: () => Promise.reject(new Error('not used')),
      };
      const [episode] = await rollout(model, createEnv, [{ question, seed: SEED }], {
        maxTurns: BUDGET,
        maxNewTokensPerTurn: 64,
        maxEpisodeTokens: 8192,
        temperature: 1,
        topP: 1,
        thinking,
        rewardWeights: DEFAULT_REWARD_WEIGHTS,
      });
      expect(episode.turns.map((t) => t.action.type)).toEqual(['DESCRIBE', 'SAMPLE', 'ANSWER']);

      // Evaluate: LlmPolicy through runEpisode, the same replies.
      const evalPrompts: number[][] = [];
      const policy = new LlmPolicy({
        tokenizer: tok,
        thinking,
        contextTokens: 8192,
        maxNewTokens: 64,
        generate: async (promptTokenIds) => {
          const text = replyText(table, evalPrompts.length, thinking);
          evalPrompts.push([...promptTokenIds]);
          return { text, tokenIds: [...tok.encode(text), tok.special.imEnd] };
        },
      });
      const env = createEnv();
      const record = await runEpisode(env, policy, { questionId: question.id, seed: SEED });
      env.close();
      expect(record.transcript.map((t) => t.action.type)).toEqual(['DESCRIBE', 'SAMPLE', 'ANSWER']);

      expect(evalPrompts).toHaveLength(3);
      const trainText = tok.decode(trainPrompts[2]);
      const evalText = tok.decode(evalPrompts[2]);
      // The turn-3 context holds both past replies after the generation prompt's (empty, with thinking off) think block.
      expect(evalText).toBe(trainText);
      expect(evalPrompts[2]).toEqual(trainPrompts[2]);
      if (!thinking) expect(trainText.split('<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>')).toHaveLength(3);
    }
  });
});
