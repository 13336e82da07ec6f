/**
 * MCP over `/ws` of a real `sqlenv serve`, as OpenEnv's clients send it: the `{"type": "mcp"}` message (JSON-RPC on
 * the connection's own episode) and OpenEnv's MCP actions in a step (`list_tools`, `call_tool`: what MCPToolClient
 * sends by default). Each plays an Oracle episode beside a plain `/ws` session and must get its replies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Question } from '../../src/data/types.ts';
import { SQL_TOOLS } from '../../src/policies/llm/tools.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { SqlEnvClient } from '../../src/server/client.ts';
import type { WireStepResult } from '../../src/server/protocol.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { questionsById, startServer } from './harness.ts';
import { playBeside, type ToolCaller } from './mcp-harness.ts';
import { testSeed } from '../fixtures/seed.ts';

let server: RunningServer;
let questions: Map<string, Question>;
/** Episode seeds start here (small, so an offset stays a valid episode seed). */
const BASE_SEED = testSeed('tests/server/mcp-ws.test.ts') % 1_000_000;

beforeAll(async () => {
  server = await startServer({ maxSessions: 4 });
  questions = await questionsById();
});
afterAll(async () => {
  await server.close();
});

describe('the /ws mcp message', () => {
  it('acts on the connection’s own episode: reset by the OpenEnv message, steps by tools/call, replies as /ws steps', async () => {
    const seed = BASE_SEED + 4;
    const agent = await SqlEnvClient.connect(server.url);
    const ws = await SqlEnvClient.connect(server.url);
    try {
      const mcp = async (data: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const reply = agent.next() as Promise<unknown>;
        agent.sendRaw(JSON.stringify({ type: 'mcp', data }));
        const message = (await reply) as { type: string; data: Record<string, unknown> };
        expect(message.type).toBe('mcp');
        return message.data;
      };
      // Before any reset there is no episode: the call is an error result.
      const early = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'describe', arguments: { table: 'x' } } });
      expect((early.result as { isError: boolean }).isError).toBe(true);
      const init = await mcp({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      expect(init.result).toMatchObject({ serverInfo: { name: 'sqlenv' }, capabilities: { tools: {} } });
      expect(await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ jsonrpc: '2.0', id: null, result: {} });
      const listed = await mcp({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
      expect(listed.id).toBe('list');
      expect((listed.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(SQL_TOOLS.map((t) => t.function.name));
      const start = await agent.reset({ seed, split: 'train', episode_id: 'ws-mcp' });
      expect(await ws.reset({ seed, split: 'train', episode_id: 'ws-mcp' })).toEqual(start);
      let id = 100;
      const caller: ToolCaller = async (name, args) => {
        const data = await mcp({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
        expect(data.id).toBe(id);
        const call = data.result as { content: Array<{ text: string }>; isError: boolean; structuredContent: WireStepResult };
        return { text: call.content[0].text, isError: call.isError, reply: call.structuredContent };
      };
      await playBeside(ws, caller, new OraclePolicy(), seed, start, questions);
      // The MCP steps were the connection's own episode steps.
      expect(await agent.state()).toEqual(await ws.state());
      // A JSON-RPC body that is not a message: an Invalid Request inside an mcp reply; data not an object: VALIDATION_ERROR.
      expect(await mcp({ method: 'tools/list' })).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      const reply = agent.next();
      agent.sendRaw(JSON.stringify({ type: 'mcp', data: [1, 2] }));
      expect(await reply).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    } finally {
      await agent.close();
      await ws.close();
    }
  });
});

describe("OpenEnv's MCP actions in a /ws step (MCPToolClient's default: step(ListToolsAction()), step(CallToolAction(…)))", () => {
  it('lists the tools and plays an Oracle episode with the /ws rewards; a refused call is an error with no reward', async () => {
    const seed = BASE_SEED + 5;
    const agent = await SqlEnvClient.connect(server.url);
    const ws = await SqlEnvClient.connect(server.url);
    try {
      const step = async (data: Record<string, unknown>): Promise<{ type: string; data: { observation: Record<string, unknown>; reward: number | null; done: boolean } }> => {
        const reply = agent.next() as Promise<unknown>;
        agent.sendRaw(JSON.stringify({ type: 'step', data }));
        return (await reply) as { type: string; data: { observation: Record<string, unknown>; reward: number | null; done: boolean } };
      };
      const listed = await step({ type: 'list_tools' });
      expect(listed.data).toEqual({
        observation: { tools: SQL_TOOLS.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters })) },
        reward: null,
        done: false,
      });
      const start = await agent.reset({ seed, split: 'eval', episode_id: 'tool-steps' });
      expect(await ws.reset({ seed, split: 'eval', episode_id: 'tool-steps' })).toEqual(start);
      const refused = await step({ type: 'call_tool', tool_name: 'drop', arguments: {} });
      expect(refused.data).toMatchObject({ observation: { tool_name: 'drop', error: { error_type: 'tool_not_found' } }, reward: null, done: false });
      const caller: ToolCaller = async (name, args) => {
        const reply = await step({ type: 'call_tool', tool_name: name, arguments: args });
        expect(reply.type).toBe('observation');
        const observation = reply.data.observation as { tool_name: string; error: unknown; metadata: unknown; result: { content: Array<{ text: string }>; isError: boolean; data: string; structuredContent: WireStepResult } };
        expect(observation.tool_name).toBe(name);
        expect(observation.error).toBeNull();
        // reward and done sit beside the observation, as in every /ws step reply.
        expect({ reward: reply.data.reward, done: reply.data.done, metadata: observation.metadata }).toEqual({ reward: observation.result.structuredContent.reward, done: observation.result.structuredContent.done, metadata: observation.result.structuredContent.observation.metadata });
        expect(observation.result.data).toBe(observation.result.content[0].text);
        return { text: observation.result.content[0].text, isError: observation.result.isError, reply: observation.result.structuredContent };
      };
      await playBeside(ws, caller, new OraclePolicy(), seed, start, questions);
      expect(await agent.state()).toEqual(await ws.state());
      expect(await step({ type: 'call_tool', tool_name: 'query', arguments: { sql: 'SELECT 1' }, extra: 1 })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    } finally {
      await agent.close();
      await ws.close();
    }
  });
});
