/**
 * The WebSocket `/ws` of `sqlenv serve` against a real server: every message type, episodes that match the
 * in-process environment reward for reward, and OpenEnv's error replies for bad input, each leaving the session
 * usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../src/data/types.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { playPolicy, ServerReplyError, SqlEnvClient } from '../../src/server/client.ts';
import type { SqlActionWire, WSOutgoing } from '../../src/server/protocol.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { demoDataset, questionsById, referenceEnv, startServer } from './harness.ts';

let server: RunningServer;
let questions: Map<string, Question>;

beforeAll(async () => {
  server = await startServer({ maxSessions: 8 });
  questions = await questionsById();
});
afterAll(async () => {
  await server.close();
});

async function errorOf(client: SqlEnvClient, raw: string): Promise<Extract<WSOutgoing, { type: 'error' }>['data']> {
  const reply = client.next();
  client.sendRaw(raw);
  const message = await reply;
  if (message.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(message)}`);
  return message.data;
}

describe('episodes over /ws', () => {
  it('Oracle and Random episodes give the in-process rewards, step by step, on every split', async () => {
    const { env, executor } = await referenceEnv();
    const client = await SqlEnvClient.connect(server.url);
    try {
      for (const [policy, seeds] of [[new OraclePolicy(), [0, 1, 2, 3]], [new RandomPolicy(), [4, 5, 6]]] as const) {
        for (const seed of seeds) {
          for (const split of ['train', 'eval'] as const) {
            const expected = await runEpisode(env, policy, { seed, split });
            const played = await playPolicy(client, policy, { seed, split }, questions);
            expect(played.questionId).toBe(expected.questionId);
            expect(played.rewards).toEqual(expected.transcript.map((s) => s.reward));
            expect(played.episodeReturn).toBe(expected.episodeReturn);
            expect(played.success).toBe(expected.success);
          }
        }
      }
    } finally {
      await client.close();
      await executor.close();
    }
  });

  it('plays a chosen question and reports metadata, state and episode id', async () => {
    const question = (await demoDataset()).questions.find((q) => q.split === 'eval');
    if (!question) throw new Error('demo has an eval question');
    const client = await SqlEnvClient.connect(server.url);
    try {
      expect(await client.state()).toEqual({ episode_id: null, step_count: 0 });
      const start = await client.reset({ question_id: question.id, episode_id: 'run-7' });
      expect(start.observation).toMatchObject({ question: question.question, db_id: question.dbId, result: null, table: null, error: null });
      expect(start.observation.metadata).toMatchObject({ question_id: question.id, episode_id: 'run-7', split: 'eval' });
      const table = start.observation.tables[0];
      const described = await client.step({ action_type: 'DESCRIBE', argument: table });
      expect(described.observation.table?.name).toBe(table);
      expect(described.observation.text).toContain(`> DESCRIBE ${table}`);
      const queried = await client.step({ action_type: 'QUERY', argument: question.gold });
      expect(queried.observation.result?.columns).toEqual(question.goldResult.columns);
      expect(queried.observation.metadata).toMatchObject({ outcome: 'ok', similarity: 1, step_index: 1, episode_id: 'run-7' });
      const answered = await client.step({ action_type: 'ANSWER', argument: 'certainly not this' });
      expect(answered.done).toBe(true);
      expect(answered.observation.metadata).toMatchObject({ correct: false, terminated: true, truncated: false });
      // Environment v3: a wrong answer costs one step (0.01) and keeps the progress potential.
      expect(answered.observation.metadata.components).toEqual({ correctness: 0, progress: 0, operational: -0.01 });
      const state = await client.state();
      expect(state).toMatchObject({ episode_id: 'run-7', step_count: 3, question_id: question.id, done: true, terminated: true, steps_left: 7 });
      expect(state.episode_return).toBe(answered.observation.metadata.episode_return);
    } finally {
      await client.close();
    }
  });

  it('gives each concurrent session its own episode over one shared SQL worker, rewards unchanged', async () => {
    const single = await startServer({ sqlWorkers: 1 });
    const { env, executor } = await referenceEnv();
    try {
      const qs = (await demoDataset()).questions.slice(0, 12);
      // Content-free queries (a literal, the schema table) earn nothing only if each QUERY's run on the perturbed
      // copies judges its own statement: interleaving sessions on one worker must not change that.
      const script = (q: Question): SqlActionWire[] => [
        { action_type: 'QUERY', argument: 'SELECT 5' },
        { action_type: 'QUERY', argument: q.gold },
        { action_type: 'QUERY', argument: 'SELECT name FROM sqlite_master' },
        { action_type: 'ANSWER', argument: 'no' },
      ];
      const expected: number[][] = [];
      for (const q of qs) {
        await env.reset({ questionId: q.id });
        const rewards: number[] = [];
        for (const a of script(q)) rewards.push((await env.step(a.action_type === 'ANSWER' ? { type: 'ANSWER', value: a.argument } : { type: 'QUERY', sql: a.argument })).reward);
        expected.push(rewards);
      }
      const played = await Promise.all(
        qs.map(async (q) => {
          const client = await SqlEnvClient.connect(single.url);
          await client.reset({ question_id: q.id });
          const rewards: number[] = [];
          for (const a of script(q)) rewards.push((await client.step(a)).reward ?? NaN);
          await client.close();
          return rewards;
        }),
      );
      expect(played).toEqual(expected);
    } finally {
      await single.close();
      await executor.close();
    }
  });
});

describe('bad input over /ws', () => {
  it('answers each bad message with its OpenEnv error code and keeps the session', async () => {
    const client = await SqlEnvClient.connect(server.url);
    try {
      expect(await errorOf(client, '{"type": "reset",')).toMatchObject({ code: 'INVALID_JSON', message: expect.stringMatching(/^Invalid JSON: /) as unknown });
      expect(await errorOf(client, '{"type": "jump"}')).toEqual({ code: 'UNKNOWN_TYPE', message: 'Unknown message type: jump' });
      expect(await errorOf(client, '{"data": {}}')).toEqual({ code: 'UNKNOWN_TYPE', message: 'Unknown message type: ' });
      expect(await errorOf(client, '[1, 2]')).toMatchObject({ code: 'VALIDATION_ERROR' });
      // Before any reset, a valid step is the environment refusing: EXECUTION_ERROR.
      expect(await errorOf(client, JSON.stringify({ type: 'step', data: { action_type: 'DESCRIBE', argument: 'book' } }))).toMatchObject({ code: 'EXECUTION_ERROR', message: expect.stringMatching(/reset\(\)/) as unknown });
      await client.reset({ seed: 3 });
      const unknownAction = await errorOf(client, JSON.stringify({ type: 'step', data: { action_type: 'DROP', argument: 'book' } }));
      expect(unknownAction).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid message', errors: [{ type: 'literal_error', loc: ['data', 'action_type'] }] });
      expect(await errorOf(client, JSON.stringify({ type: 'step', data: { action_type: 'QUERY', argument: 'SELECT 1', sql: 'x' } }))).toMatchObject({ errors: [{ type: 'extra_forbidden', loc: ['data', 'sql'] }] });
      expect(await errorOf(client, JSON.stringify({ type: 'step' }))).toMatchObject({ errors: [{ type: 'missing', loc: ['data'] }] });
      expect(await errorOf(client, JSON.stringify({ type: 'reset', data: { split: 'test' } }))).toMatchObject({ errors: [{ type: 'literal_error', loc: ['data', 'split'] }] });
      expect(await errorOf(client, JSON.stringify({ type: 'state', extra: 1 }))).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(await errorOf(client, JSON.stringify({ type: 'reset', data: { question_id: 'nope' } }))).toMatchObject({ code: 'EXECUTION_ERROR' });
      const binary = client.next();
      client.sendRaw(Buffer.from('{"type":"state"}'), { binary: true });
      expect(await binary).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
      // None of it cost a step or ended the episode.
      expect(await client.state()).toMatchObject({ step_count: 0, seed: 3 });
      const invalid = await client.step({ action_type: 'DESCRIBE', argument: '' });
      expect(invalid.observation.error).toMatch(/needs a table name/);
      expect(invalid.observation.metadata.outcome).toBe('error');
    } finally {
      await client.close();
    }
  });

  it('refuses steps after the episode ended until the next reset', async () => {
    const client = await SqlEnvClient.connect(server.url);
    try {
      await client.reset({ seed: 1 });
      expect((await client.step({ action_type: 'ANSWER', argument: '0' })).done).toBe(true);
      await expect(client.step({ action_type: 'ANSWER', argument: '0' })).rejects.toSatisfy((e) => e instanceof ServerReplyError && e.data.code === 'EXECUTION_ERROR');
      expect((await client.reset({ seed: 1 })).done).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('answers pipelined messages in order', async () => {
    const client = await SqlEnvClient.connect(server.url);
    try {
      const messages = [{ type: 'reset', data: { seed: 2 } }, { type: 'state' }, { type: 'nope' }, { type: 'step', data: { action_type: 'QUERY', argument: 'SELECT 1' } }, { type: 'state' }];
      const replies = messages.map(() => client.next());
      for (const m of messages) client.sendRaw(JSON.stringify(m));
      expect((await Promise.all(replies)).map((r) => r.type)).toEqual(['observation', 'state', 'error', 'observation', 'state']);
    } finally {
      await client.close();
    }
  });

  it('closes the socket on {"type": "close"} and frees the slot', async () => {
    const client = await SqlEnvClient.connect(server.url);
    client.sendRaw(JSON.stringify({ type: 'close' }));
    expect((await client.closed).code).toBe(1000);
  });
});
