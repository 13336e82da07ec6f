/**
 * Rollouts (src/train/rollout.ts) against the real SqlEnv on the tiny concerts fixture, with a scripted model that
 * speaks through the real Qwen3 tokenizer and chat template: the episode's one token sequence (every generation
 * prompt is a prefix of it), its loss mask (exactly the replies' tokens), the sampled log-probs, rewards per
 * component, the ways an episode ends (answer, maxTurns, token limit with observations cut to fit), cut-off and
 * malformed replies; then seeded, batched rollouts of the toy model are repeatable.
 */
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import type { Tokenizer } from '../../src/model/tokenizer.ts';
import type { GenerateRequest, SampledGeneration, TrainableModel } from '../../src/train/policy-model.ts';
import { rollout, rolloutGroups, type RolloutSettings } from '../../src/train/rollout.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';
import { useToyTask } from './toy-fixture.ts';
import { STEP_COST } from '../../src/env/rewards.ts';

let qwen: Tokenizer;
beforeAll(async () => {
  qwen = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
});
const tiny = useTinyDataset();
const toy = useToyTask();

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** Replies from a script, turn by turn (turn = number of tool responses in the prompt); records every request. */
class ScriptedModel implements TrainableModel {
  readonly requests: GenerateRequest[] = [];
  readonly contextTokens = 8192;
  constructor(
    readonly tokenizer: Tokenizer,
    private readonly script: Array<{ text: string; end?: boolean }>,
  ) {}
  async generate(requests: readonly GenerateRequest[]): Promise<SampledGeneration[]> {
    return requests.map((r) => {
      this.requests.push({ ...r, promptTokenIds: [...r.promptTokenIds] });
      const turn = this.tokenizer.decode(r.promptTokenIds).split('<tool_response>').length - 1;
      const step = this.script[Math.min(turn, this.script.length - 1)];
      let ids = this.tokenizer.encode(step.text);
      if (step.end !== false) ids.push(this.tokenizer.special.imEnd);
      ids = ids.slice(0, r.maxNewTokens);
      const last = ids.at(-1);
      const shown = last === this.tokenizer.special.imEnd ? ids.slice(0, -1) : ids;
      return { tokenIds: ids, text: this.tokenizer.decode(shown), logProbs: ids.map((_, i) => -0.1 * (i + 1)) };
    });
  }
  forward(): Promise<Float32Array> {
    throw new Error('not used');
  }
  backward(): Promise<void> {
    throw new Error('not used');
  }
  optimizerStep(): Promise<{ gradNorm: number }> {
    throw new Error('not used');
  }
}

const SETTINGS: RolloutSettings = {
  maxTurns: 6,
  maxNewTokensPerTurn: 256,
  maxEpisodeTokens: 4096,
  temperature: 1,
  topP: 1,
  thinking: false,
  rewardWeights: { correctness: 1, progress: 0.2, operational: 1 },
};

const SOLVE = [
  { text: call('describe', { table: 'singer' }) },
  { text: call('query', { sql: 'SELECT count(*) FROM singer' }) },
  { text: call('answer', { value: 5 }) },
];

describe('one episode, one sequence', () => {
  it('masks exactly the replies, keeps their log-probs, and sums the reward components', async () => {
    const model = new ScriptedModel(qwen, SOLVE);
    const env = () => new SqlEnv(tiny.dataset, tiny.executor, { budget: 6 });
    const [e] = await rollout(model, env, [{ question: tiny.dataset.questions.find((q) => q.id === 'tiny-1')!, seed: 1 }], SETTINGS);
    expect(e.end).toBe('answered');
    expect(e.correct).toBe(true);
    expect(e.turns.map((t) => t.action.type)).toEqual(['DESCRIBE', 'QUERY', 'ANSWER']);
    expect(e.components.correctness).toBe(1);
    // The answer settles the shaping paid along the way (progress 1 from the gold query, two steps of new
    // information): a correct episode of 3 steps sums to (1, 0, −2 × STEP_COST).
    expect(e.components.progress).toBeCloseTo(0, 12);
    expect(e.components.operational).toBeCloseTo(-2 * STEP_COST, 12);
    expect(e.reward).toBeCloseTo(1 - 2 * STEP_COST, 12);

    // Every generation prompt is a prefix of the final sequence, followed by that turn's reply.
    expect(model.requests).toHaveLength(3);
    for (const r of model.requests) expect(e.tokenIds.slice(0, r.promptTokenIds.length)).toEqual(r.promptTokenIds);
    // The masked-in tokens are the replies (end token included), in order; everything else is prompt / tool turns.
    const masked = e.tokenIds.filter((_, t) => e.lossMask[t] === 1);
    const replies = SOLVE.flatMap((s) => [...qwen.encode(s.text), qwen.special.imEnd]);
    expect(masked).toEqual(replies);
    expect(Array.from(e.sampledLogProbs)).toEqual(SOLVE.flatMap((s) => [...qwen.encode(s.text), 0].map((_, i) => -0.1 * (i + 1))));
    const text = qwen.decode(e.tokenIds);
    expect(text.startsWith('<|im_start|>system\n')).toBe(true);
    expect(text).toContain('<|im_start|>user\nQuestion: How many singers are there?');
    expect(text).toContain('</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n> DESCRIBE singer');
    expect(text.endsWith(`${call('answer', { value: 5 })}<|im_end|>`)).toBe(true);
    expect(e.promptTokens).toBe(model.requests[0].promptTokenIds.length);
  });

  it('closes a reply cut by the token limit with an environment <|im_end|> and treats it as invalid', async () => {
    const model = new ScriptedModel(qwen, [{ text: 'I will think about this for a very long time and never call a tool at all', end: false }, ...SOLVE.slice(2)]);
    const settings = { ...SETTINGS, maxNewTokensPerTurn: 8, maxTurns: 2 };
    const [e] = await rollout(model, () => new SqlEnv(tiny.dataset, tiny.executor, { budget: 6 }), [{ question: tiny.dataset.questions[0], seed: 1 }], settings);
    expect(e.turns[0].cutByLimit).toBe(true);
    expect(e.turns[0].action.type).toBe('INVALID');
    expect(e.turns[0].outcome).toBe('error');
    expect(e.turns[0].replyTokens).toBe(8);
    const firstReplyEnd = model.requests[0].promptTokenIds.length + 8;
    expect(e.tokenIds[firstReplyEnd]).toBe(qwen.special.imEnd);
    expect(e.lossMask[firstReplyEnd]).toBe(0);
    expect(e.turns).toHaveLength(2); // the answer call is cut too
    expect(e.components.operational).toBeCloseTo(-0.1, 12);
  });

  it('ends after maxTurns replies, or when the token limit leaves no room (observations cut to fit first)', async () => {
    const loop = new ScriptedModel(qwen, [{ text: call('sample', { table: 'singer' }) }]);
    const env = () => new SqlEnv(tiny.dataset, tiny.executor, { budget: 10 });
    const [e] = await rollout(loop, env, [{ question: tiny.dataset.questions[0], seed: 1 }], { ...SETTINGS, maxTurns: 3 });
    expect(e.end).toBe('turns');
    expect(e.turns).toHaveLength(3);
    expect(e.turns.map((t) => t.outcome)).toEqual(['ok', 'repeat', 'repeat']);

    const first = await rollout(new ScriptedModel(qwen, SOLVE), env, [{ question: tiny.dataset.questions[0], seed: 1 }], SETTINGS);
    const limit = first[0].promptTokens + 60; // room for a reply and a shortened observation, not for a whole episode
    const tight = new ScriptedModel(qwen, [{ text: call('sample', { table: 'singer' }) }]);
    const [c] = await rollout(tight, env, [{ question: tiny.dataset.questions[0], seed: 1 }], { ...SETTINGS, maxEpisodeTokens: limit });
    expect(c.end).toBe('context');
    expect(c.tokenIds.length).toBeLessThanOrEqual(limit);
    expect(qwen.decode(c.tokenIds)).toContain('characters of this old output omitted');
  });

  it('refuses a first prompt that cannot fit the episode limit', async () => {
    const model = new ScriptedModel(qwen, SOLVE);
    await expect(rollout(model, () => new SqlEnv(tiny.dataset, tiny.executor), [{ question: tiny.dataset.questions[0], seed: 1 }], { ...SETTINGS, maxEpisodeTokens: 100 })).rejects.toThrow(/raise maxEpisodeTokens/);
  });
});

describe('groups of the toy model', () => {
  it('are G episodes per question, in order, repeatable for a seed and different across seeds', async () => {
    const model = toy.model();
    const env = () => new SqlEnv(toy.dataset, toy.executor, { budget: 2 });
    const settings = { ...SETTINGS, maxTurns: 2, maxNewTokensPerTurn: 3 };
    const questions = toy.dataset.questions.slice(0, 2);
    const a = await rolloutGroups(model, env, questions, 4, 11, 'x', settings);
    const b = await rolloutGroups(model, env, questions, 4, 11, 'x', settings);
    const c = await rolloutGroups(model, env, questions, 4, 12, 'x', settings);
    expect(a.map((g) => g.map((e) => e.questionId))).toEqual([Array(4).fill(questions[0].id), Array(4).fill(questions[1].id)]);
    expect(a.flat().map((e) => e.tokenIds)).toEqual(b.flat().map((e) => e.tokenIds));
    expect(a.flat().map((e) => e.tokenIds.join())).not.toEqual(c.flat().map((e) => e.tokenIds.join()));
    for (const e of a.flat()) {
      expect(e.sampledLogProbs.length).toBe(e.lossMask.reduce((x, m) => x + m, 0));
      expect(e.turns.length).toBeGreaterThan(0);
    }
  });
});
