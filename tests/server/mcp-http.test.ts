/**
 * MCP on POST /mcp of a real `sqlenv serve`: the official SDK's own `Client` (Streamable HTTP transport) plays whole
 * episodes, step for step beside a `/ws` session on the same question and seed, and must get the `/ws` replies; the
 * tool list is SQL_TOOLS; OpenEnv's plain JSON-RPC (MCPToolClient's production mode, `openenv validate`) plays and
 * fails the same way; hostile requests are refused before any session is made.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question, SplitSelector } from '../../src/data/types.ts';
import { SQL_TOOLS } from '../../src/policies/llm/tools.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import type { Policy } from '../../src/policies/policy.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { SqlEnvClient } from '../../src/server/client.ts';
import type { WireStepResult } from '../../src/server/protocol.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { eventually, questionsById, startServer } from './harness.ts';
import { playBeside, rpc, type ToolCaller } from './mcp-harness.ts';
import { testSeed } from '../fixtures/seed.ts';

let server: RunningServer;
let questions: Map<string, Question>;
/** Episode seeds start here (small, so an offset stays a valid episode seed). */
const BASE_SEED = testSeed('tests/server/mcp-http.test.ts') % 1_000_000;

beforeAll(async () => {
  server = await startServer({ maxSessions: 6 });
  questions = await questionsById();
});
afterAll(async () => {
  await server.close();
});

async function connectMcp(query: string): Promise<Client> {
  const client = new Client({ name: 'sqlenv-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`)));
  return client;
}

/** Ends the MCP session (DELETE /mcp, freeing its slot at once) and the client. */
async function closeMcp(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
}

function sdkCaller(client: Client): ToolCaller {
  return async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as Array<{ type: string; text?: string }>;
    return { text: content[0]?.text ?? '', isError: result.isError === true, reply: result.structuredContent as WireStepResult };
  };
}

describe('MCP over POST /mcp with the SDK client', () => {
  it('lists the four tools of SQL_TOOLS, in order, with their descriptions and schemas', async () => {
    const client = await connectMcp('');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))).toEqual(
        SQL_TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, inputSchema: t.function.parameters })),
      );
      expect(client.getServerVersion()?.name).toBe('sqlenv');
    } finally {
      await closeMcp(client);
    }
  });

  it('plays Oracle and Random episodes with the /ws replies, step for step, each in its own MCP session', async () => {
    const ws = await SqlEnvClient.connect(server.url);
    try {
      const cases: Array<[Policy, number, SplitSelector]> = [
        [new OraclePolicy(), BASE_SEED, 'train'],
        [new OraclePolicy(), BASE_SEED + 1, 'eval'],
        [new RandomPolicy(), BASE_SEED + 2, 'train'],
      ];
      for (const [policy, seed, split] of cases) {
        const episodeId = `mcp-${seed}`;
        const start = await ws.reset({ seed, split, episode_id: episodeId });
        const client = await connectMcp(`?seed=${seed}&split=${split}&episode_id=${episodeId}`);
        try {
          // The episode's first observation reaches the MCP client at initialize.
          expect(client.getInstructions()).toBe(start.observation.text);
          const rewards = await playBeside(ws, sdkCaller(client), policy, seed, start, questions);
          expect(rewards.length).toBeGreaterThan(0);
          // The episode is over: a further call takes no step and says why.
          const after = await client.callTool({ name: 'describe', arguments: { table: start.observation.tables[0] } });
          expect(after.isError).toBe(true);
        } finally {
          await closeMcp(client);
        }
      }
      expect(server.stats().activeSessions).toBe(1);
    } finally {
      await ws.close();
    }
  });

  it('answers a bad call with an error result and takes no step', async () => {
    const question = [...questions.values()].find((q) => q.split === 'eval');
    if (!question) throw new Error('demo has an eval question');
    const client = await connectMcp(`?question_id=${encodeURIComponent(question.id)}`);
    try {
      const unknown = await client.callTool({ name: 'drop_table', arguments: { table: 'x' } });
      expect(unknown.isError).toBe(true);
      expect(JSON.stringify(unknown.content)).toContain('Unknown tool');
      const wrongType = await client.callTool({ name: 'query', arguments: { sql: 42 } });
      expect(wrongType.isError).toBe(true);
      const missing = await client.callTool({ name: 'describe', arguments: {} });
      expect(missing.isError).toBe(true);
      // None of them cost a step: the first real step still has the whole budget but one.
      const described = await client.callTool({ name: 'describe', arguments: { table: firstTable(client) } });
      expect(described.isError).toBe(false);
      const reply = described.structuredContent as WireStepResult;
      expect(reply.observation.metadata.step_index).toBe(0);
      expect(reply.observation.question).toBe(question.question);
    } finally {
      await closeMcp(client);
    }
  });

  it('sends an answer given as a list of rows or a number as its JSON text, as /ws would get it', async () => {
    const all = [...questions.values()];
    const rowsQuestion = all.find((q) => q.goldResult.rows.length > 1 && q.goldResult.columns.length > 1);
    const numberQuestion = all.find((q) => q.goldResult.rows.length === 1 && typeof q.goldResult.rows[0][0] === 'number');
    if (!rowsQuestion || !numberQuestion) throw new Error('the demo has a rows question and a number question');
    const ws = await SqlEnvClient.connect(server.url);
    try {
      for (const [question, value] of [[rowsQuestion, rowsQuestion.goldResult.rows], [numberQuestion, numberQuestion.goldResult.rows[0][0]]] as const) {
        await ws.reset({ question_id: question.id, episode_id: 'json-answer' });
        const expected = await ws.step({ action_type: 'ANSWER', argument: JSON.stringify(value) });
        expect(expected.observation.metadata.correct).toBe(true);
        const client = await connectMcp(`?question_id=${encodeURIComponent(question.id)}&episode_id=json-answer`);
        try {
          const got = await client.callTool({ name: 'answer', arguments: { value } });
          expect(got.structuredContent).toEqual(expected);
        } finally {
          await closeMcp(client);
        }
      }
    } finally {
      await ws.close();
    }
  });

  it('refuses reset parameters that do not validate, and frees the slot when the client ends the session', async () => {
    await expect(connectMcp('?seed=-3')).rejects.toThrow(/seed/);
    await expect(connectMcp('?split=nowhere')).rejects.toThrow(/split/);
    const before = server.stats().activeSessions;
    const client = await connectMcp('?seed=1');
    expect(server.stats().activeSessions).toBe(before + 1);
    await closeMcp(client);
    expect(server.stats().activeSessions).toBe(before);
  });
});

/** The first table of the client's episode, read from the instructions (the reset observation's "Tables: a, b"). */
function firstTable(client: Client): string {
  const text = client.getInstructions() ?? '';
  const match = /^Tables: ([^\n,]+)/m.exec(text);
  if (!match) throw new Error(`no table list in: ${text}`);
  return match[1].trim();
}

describe("OpenEnv's plain JSON-RPC on POST /mcp (MCPToolClient, production mode)", () => {
  it('opens a session with reset parameters, plays an Oracle episode with the /ws replies, and closes it', async () => {
    const seed = BASE_SEED + 3;
    const ws = await SqlEnvClient.connect(server.url);
    try {
      const start = await ws.reset({ seed, split: 'eval', episode_id: 'plain' });
      const created = await rpc(server.url, 'openenv/session/create', { seed, split: 'eval', episode_id: 'plain' });
      const result = created.body.result as WireStepResult & { session_id: string };
      expect(created.status).toBe(200);
      expect({ observation: result.observation, reward: result.reward, done: result.done }).toEqual(start);
      const sessionId = result.session_id;
      let id = 10;
      const caller: ToolCaller = async (name, args) => {
        const reply = await rpc(server.url, 'tools/call', { name, arguments: args, session_id: sessionId }, ++id);
        expect(reply.body.id).toBe(id);
        const call = reply.body.result as { content: Array<{ text: string }>; isError: boolean; structuredContent: WireStepResult };
        return { text: call.content[0].text, isError: call.isError, reply: call.structuredContent };
      };
      await playBeside(ws, caller, new OraclePolicy(), seed, start, questions);
      const listed = await rpc(server.url, 'tools/list', { session_id: sessionId });
      expect((listed.body.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(SQL_TOOLS.map((t) => t.function.name));
      const active = server.stats().activeSessions;
      expect((await rpc(server.url, 'openenv/session/close', { session_id: sessionId })).body.result).toEqual({ session_id: sessionId, closed: true });
      expect(server.stats().activeSessions).toBe(active - 1);
      const gone = await rpc(server.url, 'tools/call', { name: 'describe', arguments: { table: 'x' }, session_id: sessionId });
      expect((gone.body.error as { code: number }).code).toBe(-32602);
    } finally {
      await ws.close();
    }
  });

  it("answers what OpenEnv's validator sends, and bad bodies, with JSON-RPC errors at HTTP 200", async () => {
    // `openenv validate --url` posts `{}` and wants 200 with "jsonrpc": "2.0".
    const empty = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const notJson = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc": "2.0",' });
    expect(await notJson.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const batch = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]' });
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    expect((await rpc(server.url, 'no/such/method', {}, 7)).body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
    // Without a session: tools are listed, a call takes no step and says how to start an episode.
    const active = server.stats().activeSessions;
    const tools = (await rpc(server.url, 'tools/list')).body.result as { tools: unknown[] };
    expect(tools.tools).toHaveLength(SQL_TOOLS.length);
    const call = (await rpc(server.url, 'tools/call', { name: 'query', arguments: { sql: 'SELECT 1' } })).body.result as { isError: boolean; content: Array<{ text: string }> };
    expect(call.isError).toBe(true);
    expect(call.content[0].text).toMatch(/openenv\/session\/create/);
    expect(server.stats().activeSessions).toBe(active);
    expect((await rpc(server.url, 'tools/call', { name: 'query', arguments: { sql: 'SELECT 1' }, session_id: 'nope' })).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc(server.url, 'openenv/session/create', { seed: 'three' })).body).toMatchObject({ error: { code: -32602 } });
  });
});

describe('hostile clients on /mcp', () => {
  it('refuses foreign origins and requests without the token before any session is made', async () => {
    const guarded = await startServer({ token: 's3cret', sqlWorkers: 1 });
    try {
      const post = (headers: Record<string, string>): Promise<Response> =>
        fetch(`${guarded.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create' }) });
      expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
      expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
      expect(guarded.stats().activeSessions).toBe(0);
      const ok = await post({});
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { session_id: string } }).result.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(guarded.stats().activeSessions).toBe(1);
    } finally {
      await guarded.close();
    }
  });

  it('lets an allowed origin in with CORS: the preflight allows the MCP headers and the session id can be read', async () => {
    const shared = await startServer({ allowOrigins: ['https://app.example'], sqlWorkers: 1 });
    try {
      const preflight = await fetch(`${shared.url}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-session-id, mcp-protocol-version' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(preflight.headers.get('access-control-allow-headers')?.split(', ')).toEqual(expect.arrayContaining(['content-type', 'mcp-session-id', 'mcp-protocol-version']));
      const init = await fetch(`${shared.url}/mcp`, {
        method: 'POST',
        headers: { origin: 'https://app.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(init.headers.get('access-control-expose-headers')).toBe('mcp-session-id');
      expect(init.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await shared.close();
    }
  });

  it('caps bodies, refuses GET and unknown session ids, and answers a full server with a JSON-RPC error', async () => {
    const small = await startServer({ maxSessions: 1, maxMessageBytes: 4_096, sqlWorkers: 1 });
    try {
      const huge = await fetch(`${small.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(10_000) } }) });
      expect(huge.status).toBe(413);
      expect((await fetch(`${small.url}/mcp`)).status).toBe(405);
      const stale = await fetch(`${small.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'not-a-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(stale.status).toBe(404);
      const first = await rpc(small.url, 'openenv/session/create');
      expect(first.body.result).toBeDefined();
      const full = await rpc(small.url, 'openenv/session/create', {}, 2);
      expect(full.body).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32000, data: { active_sessions: 1, max_sessions: 1 } } });
      // A Streamable HTTP client is told the same at initialize.
      const client = new Client({ name: 'late', version: '1' });
      await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${small.url}/mcp`)))).rejects.toThrow(/capacity/);
      expect(small.stats().activeSessions).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('closes an idle MCP session and frees its slot, as for /ws connections', async () => {
    // One slot, so "frees its slot" is observable: a second session can be made only once the first was closed.
    // (No "1 active right after create" premise: on a loaded machine the 200 ms idle limit can pass before it is read.)
    const idle = await startServer({ idleTimeoutMs: 200, maxSessions: 1, sqlWorkers: 1 });
    try {
      const created = await rpc(idle.url, 'openenv/session/create', { seed: 1 });
      const sessionId = (created.body.result as { session_id: string }).session_id;
      expect(sessionId).toMatch(/\S/);
      await eventually(() => idle.stats().activeSessions === 0);
      expect((await rpc(idle.url, 'tools/list', { session_id: sessionId })).body).toMatchObject({ error: { code: -32602 } });
      const again = await rpc(idle.url, 'openenv/session/create', { seed: 2 }, 2);
      expect(again.body.error).toBeUndefined();
      expect((again.body.result as { session_id: string }).session_id).not.toBe(sessionId);
    } finally {
      await idle.close();
    }
  });
});
