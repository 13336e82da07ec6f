/**
 * Shared by the MCP tests: a policy played on `/ws` and, call for call, through MCP (whatever carries the calls),
 * with every MCP step reply expected to be the `/ws` reply.
 */
import { expect } from 'vitest';
import type { Question } from '../../src/data/types.ts';
import { normalizeAction } from '../../src/env/actions.ts';
import { policyRng } from '../../src/eval/episode.ts';
import { toolCallForAction } from '../../src/policies/llm/tools.ts';
import type { HistoryEntry, Policy } from '../../src/policies/policy.ts';
import { actionToWire, observationFromWire, type SqlEnvClient } from '../../src/server/client.ts';
import type { WireStepResult } from '../../src/server/protocol.ts';

/** What a step over MCP gave, as `/ws` gives a step. */
export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<{ text: string; isError: boolean; reply: WireStepResult }>;

/**
 * Plays `policy` on `/ws` and, with the same tool calls the page's model would make for its actions, on `call`;
 * expects every MCP reply to be the `/ws` reply. Returns the per-step rewards.
 */
export async function playBeside(ws: SqlEnvClient, call: ToolCaller, policy: Policy, seed: number, start: WireStepResult, questions: ReadonlyMap<string, Question>): Promise<number[]> {
  const question = questions.get(String(start.observation.metadata.question_id));
  if (!question) throw new Error('unknown question');
  const first = observationFromWire(start.observation);
  const rng = policyRng(seed);
  const history: HistoryEntry[] = [];
  const rewards: number[] = [];
  let observation = first;
  for (let done = false; !done; ) {
    const action = normalizeAction((await policy.act({ first, history, observation, question, rng })).action);
    const wire = actionToWire(action);
    if (!wire || action.type === 'INVALID') throw new Error('policy chose an action a tool cannot carry');
    const toolCall = toolCallForAction(action);
    // The tool call carries the answer as JSON (a list, a number): send /ws the same JSON text, as a client would.
    const expected = await ws.step(wire.action_type === 'ANSWER' && typeof toolCall.arguments.value !== 'string' ? { ...wire, argument: JSON.stringify(toolCall.arguments.value) } : wire);
    const got = await call(toolCall.name, toolCall.arguments);
    expect(got.isError).toBe(false);
    expect(got.reply).toEqual(expected);
    expect(got.text).toBe(expected.observation.text);
    observation = observationFromWire(expected.observation);
    history.push({ action, observation, reward: expected.reward ?? 0 });
    rewards.push(expected.reward ?? 0);
    done = expected.done;
  }
  return rewards;
}

/** One plain JSON-RPC request to POST /mcp, as OpenEnv's MCPToolClient (httpx) sends it. */
export async function rpc(url: string, method: string, params: Record<string, unknown> = {}, id: number | null = 1): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method, params, ...(id !== null && { id }) }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
