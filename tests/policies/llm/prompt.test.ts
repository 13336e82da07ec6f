/**
 * Prompts with the real Qwen3 tokenizer on the demo dataset: Oracle shots from the train split (the same transcripts
 * `runEpisode` records), a golden 1-shot render (markers, order, token count), thinking on and off, and fitting a
 * token budget by shortening old tool outputs (with notes), then dropping shots.
 */
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../../src/data/demo/build.ts';
import type { Dataset } from '../../../src/data/types.ts';
import { SqlEnv } from '../../../src/env/env.ts';
import { runEpisode } from '../../../src/eval/episode.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../../src/model/files-node.ts';
import type { Tokenizer } from '../../../src/model/tokenizer.ts';
import { OraclePolicy } from '../../../src/policies/oracle.ts';
import { buildOracleShots, buildPrompt, selectShotQuestions, SYSTEM_PROMPT, truncateOutput, type PromptEpisode, type Shot } from '../../../src/policies/llm/prompt.ts';
import { createNodeSqlExecutor } from '../../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../../src/sql/worker-executor.ts';

let tok: Tokenizer;
let dataset: Dataset;
let executor: WorkerSqlExecutor;
let env: SqlEnv;
let shots: Shot[];
let episode: PromptEpisode;

beforeAll(async () => {
  [tok, dataset] = await Promise.all([loadTokenizerFolder(dirname(qwen3TokenizerJsonPath())), buildDemoDataset()]);
  executor = createNodeSqlExecutor();
  env = new SqlEnv(dataset, executor);
  shots = await buildOracleShots(env, selectShotQuestions(dataset, 3, 7));
  // An eval question, part-way through: a DESCRIBE and a SAMPLE taken.
  const question = dataset.questions.find((q) => q.split === 'eval')!;
  const { observation } = await env.reset({ questionId: question.id, seed: 1 });
  const table = observation.tables[0];
  const d = await env.step({ type: 'DESCRIBE', table });
  const s = await env.step({ type: 'SAMPLE', table });
  episode = {
    first: observation.text,
    steps: [
      { action: d.info.action, observation: d.observation.text },
      { action: s.info.action, observation: s.observation.text },
    ],
  };
});

afterAll(async () => {
  await executor?.close();
});

describe('Oracle shots', () => {
  it('come from distinct train databases, deterministically', () => {
    const questions = selectShotQuestions(dataset, 3, 7);
    expect(questions.every((q) => q.split === 'train')).toBe(true);
    expect(new Set(questions.map((q) => q.dbId)).size).toBe(3);
    expect(selectShotQuestions(dataset, 3, 7)).toEqual(questions);
    expect(selectShotQuestions(dataset, 0, 7)).toEqual([]);
  });

  it('equal the transcripts runEpisode records for the Oracle, ending in a correct answer', async () => {
    for (const shot of shots) {
      const record = await runEpisode(env, new OraclePolicy(), { questionId: shot.questionId, seed: 0 });
      expect(shot.steps.map((s) => [s.action, s.observation])).toEqual(record.transcript.map((t) => [t.action, t.observation]));
      expect(record.success).toBe(true);
      expect(shot.first).toContain(`Question: ${record.question}`);
      expect(shot.steps.at(-1)!.observation).toContain('Answer submitted: correct.');
    }
  });
});

describe('buildPrompt', () => {
  it('renders a golden 1-shot prompt: system and tools, the shot, then the episode, thinking off', () => {
    const built = buildPrompt(tok, episode, { shots: shots.slice(0, 1), budgetTokens: 8192 });
    const text = built.text;
    expect(built.fits).toBe(true);
    expect(built.truncatedOutputs).toBe(0);
    expect(text.startsWith(`<|im_start|>system\n${SYSTEM_PROMPT}\n\n# Tools`)).toBe(true);
    for (const name of ['describe', 'sample', 'query', 'answer']) expect(text).toContain(`"name": "${name}"`);
    // Order: tools, the shot's question, its calls and responses, the episode's question, its steps, generation prompt.
    const order = [
      '</tools>',
      shots[0].first,
      '<tool_call>\n{"name": "describe"',
      '<tool_response>\n> DESCRIBE',
      '{"name": "query", "arguments": {"sql": ',
      '{"name": "answer", "arguments": {"value": ',
      'Answer submitted: correct.',
      episode.first,
      episode.steps[1].observation,
    ];
    const positions = order.map((marker) => text.indexOf(marker));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text.endsWith(`${episode.steps[1].observation}\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`)).toBe(true);
    expect(text.match(/<\|im_start\|>user\n(?!<tool_response>)/g)).toHaveLength(2);
    expect(built.tokenIds).toEqual(tok.encode(text));
    expect(built.tokenIds.filter((id) => id === tok.special.toolCallStart)).toHaveLength(2 + shots[0].steps.length + episode.steps.length); // 2 in the tools section
    // Golden size (catches a template, tokenizer, observation or system prompt change): 1349 tokens as Qwen's stock
    // template renders the whole chat, plus the empty think block each of the episode's 2 past replies keeps (the
    // training sequences' rendering, turn-text.ts).
    expect(built.tokenIds.length).toBe(1349 + 2 * tok.encode('<think>\n\n</think>\n\n').length);
    expect(text.split('<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>')).toHaveLength(1 + episode.steps.length);
  });

  it('leaves the think block open when thinking is on (past replies: the template\'s reply to a call, empty think included)', () => {
    const text = buildPrompt(tok, episode, { shots: [], thinking: true, budgetTokens: 8192 }).text;
    expect(text.endsWith('</tool_response><|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    expect(text.split('<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>')).toHaveLength(1 + episode.steps.length);
  });

  it('grows with the number of shots', () => {
    const sizes = [0, 1, 3].map((n) => buildPrompt(tok, episode, { shots: shots.slice(0, n), budgetTokens: 1e6 }).tokenIds.length);
    expect(sizes[0]).toBeLessThan(sizes[1]);
    expect(sizes[1]).toBeLessThan(sizes[2]);
  });

  it('fits a budget by shortening old tool outputs first, oldest first, with a note', () => {
    const full = buildPrompt(tok, episode, { shots, budgetTokens: 1e6 });
    const budget = full.tokenIds.length - 40;
    const built = buildPrompt(tok, episode, { shots, budgetTokens: budget, keepChars: 40 });
    expect(built.fits).toBe(true);
    expect(built.tokenIds.length).toBeLessThanOrEqual(budget);
    expect(built.droppedShots).toBe(0);
    expect(built.truncatedOutputs).toBeGreaterThan(0);
    const tools = built.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    const firstShortened = tools.findIndex((c) => /\[… \d+ of \d+ characters of this old output omitted to fit the context\]$/.test(c));
    expect(firstShortened).toBeGreaterThanOrEqual(0);
    // Oldest first: every long output before the first shortened one was already short... none is left long before it.
    const originals = full.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(originals.slice(0, firstShortened).every((c) => c.length <= 40)).toBe(true);
    // The newest observation is intact.
    expect(tools.at(-1)).toBe(episode.steps[1].observation);
    expect(built.text).toContain('characters of this old output omitted to fit the context');
  });

  it('drops shots, oldest first, when shortening is not enough, and says when nothing fits', () => {
    const bare = buildPrompt(tok, episode, { shots: [], budgetTokens: 1e6, keepChars: 40 }).tokenIds.length;
    const built = buildPrompt(tok, episode, { shots, budgetTokens: bare + 5, keepChars: 40 });
    expect(built.fits).toBe(true);
    expect(built.droppedShots).toBe(3);
    const impossible = buildPrompt(tok, episode, { shots, budgetTokens: 50 });
    expect(impossible.fits).toBe(false);
    expect(impossible.droppedShots).toBe(3);
    const outputs = impossible.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(outputs.slice(0, -1).every((c) => c.startsWith('[… '))).toBe(true);
    expect(outputs.at(-1)!.length).toBeLessThanOrEqual(200 + 90);
  });

  it('truncates text with a note of what was cut', () => {
    expect(truncateOutput('short', 10)).toBe('short');
    expect(truncateOutput('abcdefghij', 4)).toBe('abcd\n[… 6 of 10 characters of this old output omitted to fit the context]');
    expect(truncateOutput('abcdefghij', 0)).toBe('[… 10 of 10 characters of this old output omitted to fit the context]');
  });
});
