/**
 * TRL export rows (src/eval/trl-export.ts) on the demo data with the real Qwen3 tokenizer: prompts rows are the
 * policy's first-turn prompt and cover the split once each; sft rows replay in a fresh environment to the same
 * observations and a correct answer, and render to exactly the token ids and loss mask of the in-page SFT
 * (`buildSftExamples`), zero-shot and with a shot and thinking on.
 */
import { dirname } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import type { Dataset, Question } from '../../src/data/types.ts';
import { normalizeAction } from '../../src/env/actions.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { buildTrlRows, fromTrlMessages, sftRowTokens, toTrlMessages, type PromptRow, type SftRow, type TrlMessage } from '../../src/eval/trl-export.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import type { ChatMessage, Tokenizer } from '../../src/model/tokenizer.ts';
import { buildOracleShots, buildPrompt, selectShotQuestions, SYSTEM_PROMPT, type Shot } from '../../src/policies/llm/prompt.ts';
import { SQL_TOOLS, TOOL_ACTION, TOOL_ARGUMENT, TOOL_NAMES, type ToolName } from '../../src/policies/llm/tools.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';
import { buildSftExamples } from '../../src/train/sft.ts';

let tok: Tokenizer;
let dataset: Dataset;
let executor: LocalSqlExecutor;
let oneShot: Shot[];
const env = (): SqlEnv => new SqlEnv(dataset, executor);
const split = (name: string): Question[] => dataset.questions.filter((q) => q.split === name);
const weights = { correctness: 1, progress: 0.2, operational: 1 };

beforeAll(async () => {
  [tok, dataset] = await Promise.all([loadTokenizerFolder(dirname(qwen3TokenizerJsonPath())), buildDemoDataset()]);
  executor = new LocalSqlExecutor(await initSqlJs());
  oneShot = await buildOracleShots(env(), selectShotQuestions(dataset, 1));
});
afterAll(() => executor?.close());

const settings = (over: Partial<{ shots: Shot[]; thinking: boolean; maxTokens: number }> = {}) => ({ tokenizer: tok, shots: [], thinking: false, maxTokens: 2048, ...over });

describe('prompts rows', () => {
  it('cover the split once each, in dataset order, with the reset keys', async () => {
    for (const name of ['train', 'eval'] as const) {
      const { rows, skipped } = await buildTrlRows('prompts', env(), split(name), settings({ maxTokens: 1792 }));
      expect(skipped).toEqual([]);
      const ids = rows.map((r) => r.question_id);
      expect(ids).toEqual(split(name).map((q) => q.id));
      expect(new Set(ids).size).toBe(ids.length);
      for (const [i, row] of (rows as PromptRow[]).entries()) {
        const q = split(name)[i];
        expect(Object.keys(row).sort()).toEqual(['db_id', 'difficulty', 'prompt', 'question', 'question_id', 'split']);
        expect(row).toMatchObject({ question: q.question, db_id: q.dbId, split: name, difficulty: q.difficulty });
        expect(row.prompt.map((m) => m.role)).toEqual(['system', 'user']);
        expect(row.prompt[0].content).toBe(SYSTEM_PROMPT);
        expect(row.prompt[1].content).toContain(`Question: ${q.question}\nDatabase: ${q.dbId}\n`);
      }
    }
  });

  it('render to the tokens LlmPolicy prompts its first turn with, shots included', async () => {
    const questions = split('eval').slice(0, 4);
    const { rows } = await buildTrlRows('prompts', env(), questions, settings({ shots: oneShot, maxTokens: 1792 }));
    for (const [i, row] of (rows as PromptRow[]).entries()) {
      const { observation } = await env().reset({ questionId: questions[i].id, seed: 0 });
      const policyPrompt = buildPrompt(tok, { first: observation.text, steps: [] }, { shots: oneShot, budgetTokens: 1792 });
      expect(row.prompt.length).toBeGreaterThan(2);
      expect(row.prompt.some((m) => m.role === 'assistant' && m.tool_calls?.length === 1)).toBe(true);
      expect(tok.encodeChat(fromTrlMessages(row.prompt), { tools: [...SQL_TOOLS], addGenerationPrompt: true })).toEqual(policyPrompt.tokenIds);
    }
  });

  it('are skipped, with the reason, when the prompt cannot fit the budget', async () => {
    const { rows, skipped } = await buildTrlRows('prompts', env(), split('eval').slice(0, 3), settings({ maxTokens: 100 }));
    expect(rows).toEqual([]);
    expect(skipped.map((s) => s.reason)).toEqual(['prompt-too-long', 'prompt-too-long', 'prompt-too-long']);
    expect(skipped[0].detail).toMatch(/over the budget of 100/);
  });
});

/** The call of an assistant message as the action the environment reads. */
function actionOf(m: TrlMessage): ReturnType<typeof normalizeAction> {
  if (m.role !== 'assistant' || m.tool_calls?.length !== 1) throw new Error(`not a single tool call: ${JSON.stringify(m)}`);
  const { name, arguments: args } = m.tool_calls[0].function;
  return normalizeAction({ type: TOOL_ACTION[name as ToolName], [TOOL_ARGUMENT[name as ToolName]]: args[TOOL_ARGUMENT[name as ToolName]] });
}

describe('sft rows', () => {
  let rows: SftRow[];
  beforeAll(async () => {
    const out = await buildTrlRows('sft', env(), split('train'), settings());
    expect(out.skipped).toEqual([]);
    rows = out.rows as SftRow[];
  });

  it('are Oracle transcripts in the tool-calling format, one per question in order', () => {
    expect(rows.map((r) => r.question_id)).toEqual(split('train').map((q) => q.id));
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['chat_template_kwargs', 'db_id', 'difficulty', 'messages', 'question', 'question_id', 'split', 'tools']);
      expect(row.tools).toEqual(SQL_TOOLS);
      expect(row.chat_template_kwargs).toEqual({ enable_thinking: false });
      const roles = row.messages.map((m) => m.role);
      expect(roles.slice(0, 2)).toEqual(['system', 'user']);
      // assistant, tool, assistant, tool, …, assistant
      expect(roles.slice(2)).toEqual(roles.slice(2).map((_, i) => (i % 2 === 0 ? 'assistant' : 'tool')));
      expect(roles.at(-1)).toBe('assistant');
      row.messages.forEach((m, i) => {
        if (m.role === 'assistant') {
          expect(m.content).toBe('');
          expect(m.tool_calls).toHaveLength(1);
          const call = m.tool_calls![0];
          expect(call.type).toBe('function');
          expect(TOOL_NAMES).toContain(call.function.name);
          expect(Object.keys(call.function.arguments)).toEqual([TOOL_ARGUMENT[call.function.name as ToolName]]);
        }
        if (m.role === 'tool') {
          const before = row.messages[i - 1];
          expect(before.role === 'assistant' && before.tool_calls?.[0].function.name).toBe(m.name);
        }
      });
      const last = row.messages.at(-1)!;
      expect(last.role === 'assistant' && last.tool_calls?.[0].function.name).toBe('answer');
    }
  });

  it('replay in a fresh environment to the same observations and a correct final answer', async () => {
    const replay = env();
    for (const row of rows) {
      const { observation } = await replay.reset({ questionId: row.question_id, seed: 0 });
      expect(row.messages[1].content).toBe(observation.text);
      const calls = row.messages.slice(2).filter((m) => m.role === 'assistant');
      const tools = row.messages.slice(2).filter((m) => m.role === 'tool');
      for (const [i, m] of calls.entries()) {
        const result = await replay.step(actionOf(m));
        if (i < calls.length - 1) {
          expect(result.done).toBe(false);
          expect(tools[i].content).toBe(result.observation.text);
        } else {
          expect(result.done).toBe(true);
          expect(result.info.correct).toBe(true);
        }
      }
    }
  });

  it('render to exactly the token ids and loss mask the in-page SFT trains on', async () => {
    const { examples, skipped } = await buildSftExamples(tok, env, split('train'), { thinking: false, maxEpisodeTokens: 2048, rewardWeights: weights });
    expect(skipped).toEqual([]);
    expect(examples.map((e) => e.questionId)).toEqual(rows.map((r) => r.question_id));
    for (const [i, row] of rows.entries()) {
      const rendered = sftRowTokens(tok, JSON.parse(JSON.stringify(row)) as SftRow); // as read back from the file
      expect(rendered.tokenIds).toEqual(examples[i].tokenIds);
      expect(rendered.lossMask).toEqual(examples[i].lossMask);
    }
  });

  it('refuse to render a row the in-page SFT could not have made', () => {
    const row = rows[0];
    const withText = row.messages.map((m, i) => (i === 2 ? { ...m, content: 'Let me look.' } : m));
    expect(() => sftRowTokens(tok, { ...row, messages: withText })).toThrow(/one tool call and no text/);
    expect(() => sftRowTokens(tok, { ...row, messages: row.messages.filter((m) => m.role !== 'user') })).toThrow(/no user message/);
  });

  it('match the in-page SFT with a shot and thinking on too', async () => {
    const questions = split('train').slice(0, 6);
    const { rows: shotRows } = await buildTrlRows('sft', env(), questions, settings({ shots: oneShot, thinking: true }));
    const { examples } = await buildSftExamples(tok, env, questions, { thinking: true, maxEpisodeTokens: 2048, rewardWeights: weights, shots: oneShot });
    expect(shotRows).toHaveLength(questions.length);
    for (const [i, row] of (shotRows as SftRow[]).entries()) {
      expect(row.chat_template_kwargs).toEqual({ enable_thinking: true });
      expect(row.messages.filter((m) => m.role === 'user')).toHaveLength(2); // the shot's question, then this one
      const rendered = sftRowTokens(tok, row);
      expect(rendered.tokenIds).toEqual(examples[i].tokenIds);
      // Thinking on: the empty think block is the model's to write (mask 1), not the generation prompt's.
      expect(rendered.lossMask).toEqual(examples[i].lossMask);
    }
  });

  it('are skipped, with the reason, when the demonstration is over the token limit (as the in-page SFT skips it)', async () => {
    const questions = split('train').slice(0, 10);
    const { rows: kept, skipped } = await buildTrlRows('sft', env(), questions, settings({ maxTokens: 700 }));
    const page = await buildSftExamples(tok, env, questions, { thinking: false, maxEpisodeTokens: 700, rewardWeights: weights });
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.map((s) => s.questionId)).toEqual(page.skipped);
    expect(skipped.every((s) => s.reason === 'episode-too-long')).toBe(true);
    expect(kept.length + skipped.length).toBe(questions.length);
  });
});

describe('message conversion', () => {
  it('round-trips project chat messages and names each tool result after its call', () => {
    const chat: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'sample', arguments: { table: 't' } }] },
      { role: 'tool', content: 'rows' },
      { role: 'assistant', content: 'not a call' },
    ];
    const trl = toTrlMessages(chat);
    expect(trl[2]).toEqual({ role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'sample', arguments: { table: 't' } } }] });
    expect(trl[3]).toEqual({ role: 'tool', name: 'sample', content: 'rows' });
    expect(fromTrlMessages(trl)).toEqual(chat);
  });
});
