/**
 * LlmPolicy end to end on the demo dataset through the real environment (sql.js in a worker thread) and the real
 * Qwen3 tokenizer, with a scripted `generate` in place of a model: valid calls solve an episode; garbage (bad JSON,
 * unknown tool, no call, endless text cut by the token limit, wrong argument types) becomes invalid-action steps
 * and the episode goes on; sampling seeds come from the episode seed.
 */
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../../src/data/demo/build.ts';
import type { Dataset, Question } from '../../../src/data/types.ts';
import { normalizeAction } from '../../../src/env/actions.ts';
import { SqlEnv } from '../../../src/env/env.ts';
import { runEpisode } from '../../../src/eval/episode.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../../src/model/files-node.ts';
import type { Tokenizer } from '../../../src/model/tokenizer.ts';
import { answerText, tablesUsed } from '../../../src/policies/oracle.ts';
import type { Policy, PolicyContext } from '../../../src/policies/policy.ts';
import { LlmPolicy, type Generate, type GenerateOptions, type LlmDecision } from '../../../src/policies/llm/llm-policy.ts';
import { buildOracleShots, selectShotQuestions, type Shot } from '../../../src/policies/llm/prompt.ts';
import { createNodeSqlExecutor } from '../../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../../src/sql/worker-executor.ts';

let tok: Tokenizer;
let dataset: Dataset;
let executor: WorkerSqlExecutor;
let env: SqlEnv;
let shots: Shot[];
let question: Question;

beforeAll(async () => {
  [tok, dataset] = await Promise.all([loadTokenizerFolder(dirname(qwen3TokenizerJsonPath())), buildDemoDataset()]);
  executor = createNodeSqlExecutor();
  env = new SqlEnv(dataset, executor);
  shots = await buildOracleShots(env, selectShotQuestions(dataset, 1, 3));
  question = dataset.questions.find((q) => q.split === 'eval' && q.goldResult.rows.length === 1)!;
});

afterAll(async () => {
  await executor?.close();
});

const call = (name: string, args: Record<string, unknown>): string => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const ENDLESS = 'I will now think about the database at length. '.repeat(200);

interface Turn {
  prompt: string;
  options: GenerateOptions;
}

/** A `generate` that replays `replies` in order (then `fallback`), as a model would: ids end with <|im_end|> unless cut. */
function scripted(replies: readonly string[], fallback: string, turns: Turn[]): Generate {
  let i = 0;
  return (promptTokenIds, options) => {
    turns.push({ prompt: tok.decode(promptTokenIds), options });
    const text = replies[i++] ?? fallback;
    const ids = tok.encode(text);
    if (ids.length >= options.maxNewTokens) {
      const cut = ids.slice(0, options.maxNewTokens);
      return Promise.resolve({ tokenIds: cut, text: tok.decode(cut), logProbs: cut.map(() => -1) });
    }
    return Promise.resolve({ tokenIds: [...ids, tok.special.imEnd], text: `${text}<|im_end|>` });
  };
}

/** Wraps a policy to keep each decision it made. */
function recording(policy: LlmPolicy, decisions: LlmDecision[]): Policy {
  return {
    name: policy.name,
    act: async (context: PolicyContext) => {
      const decision = await policy.act(context);
      decisions.push(decision);
      return decision;
    },
  };
}

describe('LlmPolicy in the environment', () => {
  it('solves an episode with well-formed calls (1-shot, thinking in the raw text)', async () => {
    const table = tablesUsed(question.gold, dataset.databases.find((d) => d.id === question.dbId)!.tables)[0];
    const replies = [
      `<think>\nI should look at ${table}.\n</think>\n\n${call('describe', { table })}`,
      call('query', { sql: question.gold }),
      call('answer', { value: answerText(question.goldResult) }),
    ];
    const turns: Turn[] = [];
    const decisions: LlmDecision[] = [];
    const policy = new LlmPolicy({ generate: scripted(replies, '', turns), tokenizer: tok, shots, maxNewTokens: 128 });
    const record = await runEpisode(env, recording(policy, decisions), { questionId: question.id, seed: 5 });
    expect(record.success).toBe(true);
    expect(record.transcript.map((s) => s.action.type)).toEqual(['DESCRIBE', 'QUERY', 'ANSWER']);
    expect(record.transcript[0].rawText).toContain(`<think>\nI should look at ${table}.\n</think>`);
    expect(decisions[0].completion.thinking).toBe(`I should look at ${table}.`);
    // Each turn's prompt holds the shot and the episode so far, and ends with the generation prompt.
    expect(turns[0].prompt).toContain(shots[0].first);
    expect(turns[2].prompt).toContain(record.transcript[1].observation);
    for (const t of turns) expect(t.prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
    for (const d of decisions) {
      expect(d.stats.promptTokens).toBe(d.promptTokenIds.length);
      expect(d.stats.newTokens).toBe(d.tokenIds.length);
      expect(d.stats.cutByLimit).toBe(false);
      expect(d.stats.promptFits).toBe(true);
      expect(d.stats.tokensPerSecond).toBeGreaterThanOrEqual(0);
    }
    expect(turns.map((t) => t.options.maxNewTokens)).toEqual([128, 128, 128]);
  });

  it('turns garbage into invalid-action steps and goes on to the answer', async () => {
    const replies = [
      '<tool_call>\n{"name": "describe", "arguments": {"table": }\n</tool_call>', // bad JSON
      call('drop_table', { table: 'x' }), // unknown tool
      'DESCRIBE teachers', // no tool call
      ENDLESS, // endless text, cut by the token limit
      call('query', { sql: 42 }), // wrongly typed argument
      call('sample', {}), // missing argument
      '', // empty reply
      call('answer', { value: answerText(question.goldResult) }),
    ];
    const turns: Turn[] = [];
    const decisions: LlmDecision[] = [];
    const policy = new LlmPolicy({ generate: scripted(replies, '', turns), tokenizer: tok, shots: [], maxNewTokens: 64 });
    const record = await runEpisode(env, recording(policy, decisions), { questionId: question.id, seed: 6 });
    expect(record.transcript.map((s) => s.action.type)).toEqual([...Array<string>(7).fill('INVALID'), 'ANSWER']);
    expect(record.transcript.slice(0, 7).every((s) => s.outcome === 'error' && s.components.operational < 0)).toBe(true);
    expect(record.success).toBe(true);
    expect(record.terminated).toBe(true);
    const reasons = decisions.map((d) => (d.parsed.type === 'INVALID' ? d.parsed.reason : null));
    expect(reasons.slice(0, 7)).toEqual([
      expect.stringMatching(/not valid JSON/),
      expect.stringMatching(/Unknown tool 'drop_table'/),
      expect.stringMatching(/No tool call/),
      expect.stringMatching(/cut at the 64-token limit before any tool call/),
      expect.stringMatching(/'sql' must be a string; got number/),
      expect.stringMatching(/sample needs the argument 'table'/),
      expect.stringMatching(/No tool call/),
    ]);
    expect(decisions[3].stats.cutByLimit).toBe(true);
    expect(decisions[3].tokenIds).toHaveLength(64);
    expect(decisions[3].logProbs).toHaveLength(64);
    // The environment's observation carries the reason, and the next prompt shows the failed turn and its error.
    expect(record.transcript[1].observation).toContain("Unknown tool 'drop_table'");
    expect(record.transcript[1].rawText).toContain('drop_table');
    expect(turns[2].prompt).toContain("Unknown tool 'drop_table'");
    expect(record.transcript[3].observation.length).toBeLessThan(600);
  });

  it('ends by the budget when every reply is garbage, without a crash', async () => {
    const policy = new LlmPolicy({ generate: scripted([], ENDLESS, []), tokenizer: tok, shots, maxNewTokens: 32, contextTokens: 2048 });
    const record = await runEpisode(env, policy, { questionId: question.id, seed: 7 });
    expect(record.truncated).toBe(true);
    expect(record.steps).toBe(env.config.budget);
    expect(record.transcript.every((s) => s.action.type === 'INVALID' && s.outcome === 'error')).toBe(true);
    expect(record.success).toBe(false);
  });

  it('keeps the prompt within the context as turns pile up', async () => {
    const decisions: LlmDecision[] = [];
    const policy = new LlmPolicy({ generate: scripted([], call('sample', { table: 'teachers' }), []), tokenizer: tok, shots, maxNewTokens: 64, contextTokens: 1200 });
    await runEpisode(env, recording(policy, decisions), { questionId: question.id, seed: 8 });
    for (const d of decisions) expect(d.stats.promptTokens).toBeLessThanOrEqual(1200 - 64);
    expect(decisions.every((d) => d.stats.promptFits)).toBe(true);
    expect(decisions.at(-1)!.stats.truncatedOutputs).toBeGreaterThan(0);
  });

  it('draws sampling seeds from the episode seed', async () => {
    const seedsOf = async (seed: number): Promise<number[]> => {
      const turns: Turn[] = [];
      const policy = new LlmPolicy({ generate: scripted([], 'garbage', turns), tokenizer: tok, temperature: 0.5, topP: 0.9 });
      await runEpisode(env, policy, { questionId: question.id, seed });
      expect(turns.every((t) => t.options.temperature === 0.5 && t.options.topP === 0.9)).toBe(true);
      return turns.map((t) => t.options.seed);
    };
    const a = await seedsOf(11);
    expect(await seedsOf(11)).toEqual(a);
    expect(await seedsOf(12)).not.toEqual(a);
    expect(new Set(a).size).toBe(a.length);
  });

  it('hands invalid turns to the environment with their own reason', () => {
    expect(normalizeAction({ type: 'INVALID', raw: 'x', reason: 'No tool call in the reply.' })).toEqual({ type: 'INVALID', raw: 'x', reason: 'No tool call in the reply.' });
  });
});
