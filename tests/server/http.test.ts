/**
 * The HTTP endpoints of `sqlenv serve` against a real server: OpenEnv's paths, shapes and status codes, stateless
 * per request as OpenEnv's http_server does them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_VERSION } from '../../src/env/env.ts';
import type { RunningServer } from '../../src/server/server.ts';
import type { WireStepResult } from '../../src/server/protocol.ts';
import { referenceEnv, startServer } from './harness.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ maxSessions: 4, maxMessageBytes: 64 * 1024 });
});
afterAll(async () => {
  await server.close();
});

async function call(method: string, path: string, body?: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.url}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
  return { status: res.status, json: (await res.json()) as unknown };
}

type Detail = { detail: Array<{ type: string; loc: Array<string | number> }> };

describe('GET endpoints', () => {
  it('/health says healthy', async () => {
    expect(await call('GET', '/health')).toEqual({ status: 200, json: { status: 'healthy' } });
  });

  it('/metadata names the environment and its version', async () => {
    const { status, json } = await call('GET', '/metadata');
    expect(status).toBe(200);
    expect(json).toMatchObject({ name: 'sqlenv', version: String(ENV_VERSION), readme_content: null, documentation_url: null });
    expect((json as { description: string }).description).toMatch(/dataset 'demo'/i);
  });

  it('/schema gives the action, observation and state schemas', async () => {
    const { status, json } = await call('GET', '/schema');
    expect(status).toBe(200);
    const schema = json as { action: { properties: { action_type: { enum: string[] } }; required: string[] }; observation: { properties: object }; state: { properties: object } };
    expect(schema.action.properties.action_type.enum).toEqual(['DESCRIBE', 'SAMPLE', 'QUERY', 'ANSWER']);
    expect(schema.action.required).toEqual(['action_type', 'argument']);
    expect(Object.keys(schema.observation.properties)).toEqual(expect.arrayContaining(['text', 'question', 'db_id', 'tables', 'steps_left', 'result', 'done', 'reward', 'metadata']));
    expect(Object.keys(schema.state.properties)).toEqual(expect.arrayContaining(['episode_id', 'step_count']));
  });

  it('/state of a fresh environment is the empty State', async () => {
    expect(await call('GET', '/state')).toEqual({ status: 200, json: { episode_id: null, step_count: 0 } });
  });

  it('unknown paths are 404 and wrong methods 405', async () => {
    expect((await call('GET', '/nope')).status).toBe(404);
    expect((await call('DELETE', '/health')).status).toBe(405);
    expect((await call('GET', '/reset')).status).toBe(405);
  });
});

describe('POST /reset', () => {
  it('gives the same first observation as the in-process environment', async () => {
    const { env, executor } = await referenceEnv();
    try {
      const expected = await env.reset({ seed: 11 });
      const { status, json } = await call('POST', '/reset', JSON.stringify({ seed: 11, episode_id: 'ep-1' }));
      expect(status).toBe(200);
      const reply = json as WireStepResult;
      expect(reply.reward).toBeNull();
      expect(reply.done).toBe(false);
      expect(reply.observation.text).toBe(expected.observation.text);
      expect(reply.observation.tables).toEqual(expected.observation.tables);
      expect(reply.observation.metadata).toMatchObject({ seed: 11, episode_id: 'ep-1', question_id: expected.info.questionId, env_version: ENV_VERSION });
    } finally {
      await executor.close();
    }
  });

  it('takes an empty body, and ignores parameters reset does not take', async () => {
    expect((await call('POST', '/reset')).status).toBe(200);
    expect((await call('POST', '/reset', JSON.stringify({ seed: 1, temperature: 0.7 }))).status).toBe(200);
  });

  it.each([
    ['{"seed": -1}', 'greater_than_equal', ['body', 'seed']],
    ['{"seed": 1.5}', 'int_type', ['body', 'seed']],
    ['{"split": "test"}', 'literal_error', ['body', 'split']],
    ['{"seed": ', 'json_invalid', ['body', 0]],
    ['[1]', 'dict_type', ['body']],
  ])('answers %s with 422 %s', async (body, type, loc) => {
    const { status, json } = await call('POST', '/reset', body);
    expect(status).toBe(422);
    expect((json as Detail).detail[0]).toMatchObject({ type, loc });
  });

  it('answers an unknown question with 500 and the environment message, as OpenEnv does when reset raises', async () => {
    const { status, json } = await call('POST', '/reset', JSON.stringify({ question_id: 'no-such-question' }));
    expect(status).toBe(500);
    expect((json as { detail: string }).detail).toMatch(/No question 'no-such-question'/);
  });

  it('refuses a body over the message cap with 413', async () => {
    const { status } = await call('POST', '/reset', JSON.stringify({ episode_id: 'x'.repeat(100_000) }));
    expect(status).toBe(413);
    expect((await call('GET', '/health')).status).toBe(200);
  });
});

describe('POST /step', () => {
  it('validates the action with 422 before anything runs', async () => {
    const cases: Array<[unknown, string, Array<string | number>]> = [
      [{ action: { action_type: 'DROP', argument: 'singer' } }, 'literal_error', ['body', 'action', 'action_type']],
      [{ action: { action_type: 'QUERY' } }, 'missing', ['body', 'action', 'argument']],
      [{ action: { action_type: 'QUERY', argument: 7 } }, 'string_type', ['body', 'action', 'argument']],
      [{ action: { action_type: 'QUERY', argument: 'SELECT 1', extra: 1 } }, 'extra_forbidden', ['body', 'action', 'extra']],
      [{}, 'missing', ['body', 'action']],
    ];
    for (const [body, type, loc] of cases) {
      const { status, json } = await call('POST', '/step', JSON.stringify(body));
      expect(status, JSON.stringify(body)).toBe(422);
      expect((json as Detail).detail[0]).toMatchObject({ type, loc });
    }
  });

  it('is stateless as in OpenEnv: a fresh environment has no episode, so a valid step is a 500 that says to reset', async () => {
    const { status, json } = await call('POST', '/step', JSON.stringify({ action: { action_type: 'DESCRIBE', argument: 'book' } }));
    expect(status).toBe(500);
    expect((json as { detail: string }).detail).toMatch(/reset\(\)/);
  });

  it('leaves no session open after the requests', () => {
    expect(server.stats().activeSessions).toBe(0);
  });
});
