/**
 * MCP over the `/ws` connection, as OpenEnv's `websocket_endpoint` runs its `"mcp"` case (http_server.py):
 *
 *   → {"type": "mcp", "data": {"jsonrpc": "2.0", "method": "tools/call", "params": {…}, "id": 1}}
 *   ← {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "result": {…}}}
 *
 * The tools act on the connection's own session, so the episode started by the `reset` message is the one
 * `tools/call` steps: one connection can mix OpenEnv messages and MCP calls (the training loop resets, the agent
 * acts through tools). `data` that is not a JSON-RPC message gets an Invalid Request error inside an `mcp` reply,
 * as OpenEnv sends it; a notification gets an empty result with id null, so every message still has one reply.
 *
 * The same tools as OpenEnv's MCP actions in a `step` (what `MCPToolClient.list_tools()`/`call_tool()` send by
 * default, mcp_client.py `_step_payload`; observations as mcp_types.py's ListToolsObservation/CallToolObservation):
 *
 *   → {"type": "step", "data": {"type": "list_tools"}}
 *   ← {"type": "observation", "data": {"observation": {"tools": [{name, description, input_schema}]}, "reward": null, "done": false}}
 *   → {"type": "step", "data": {"type": "call_tool", "tool_name": "query", "arguments": {"sql": "SELECT …"}}}
 *   ← {"type": "observation", "data": {"observation": {"tool_name", "result", "error", "metadata"}, "reward", "done"}}
 *
 * A call that takes a step carries the step's reward and done, and the step's metadata (reward parts); `result` is
 * the MCP tool result with `data` added, the observation text (what `call_tool()` returns, as for FastMCP tools).
 * A call that takes no step has `error: {error_type, message}`, reward null and done false.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DirectTransport, NOTIFICATION_ACK, readJsonRpcMessage } from './mcp-direct-transport.ts';
import { createMcpServer } from './mcp-server.ts';
import { callTool, MCP_TOOLS } from './mcp-tools.ts';
import type { ValidationIssue } from './protocol.ts';
import type { Session } from './sessions.ts';
import { isPlainObject } from './wire.ts';

export interface McpWsReply {
  type: 'mcp';
  data: JSONRPCMessage;
}

/** The reply to a `list_tools` or `call_tool` step: an observation message whose observation is OpenEnv's. */
export interface ToolStepReply {
  type: 'observation';
  data: { observation: Record<string, unknown>; reward: number | null; done: boolean };
}

export interface WsMcp {
  /** The reply to one `mcp` message's `data`. Called inside the session's `run`, one message at a time. */
  handle(data: Record<string, unknown>): Promise<McpWsReply>;
  /** The reply to a step whose data is a `list_tools` or `call_tool` action, or what does not validate in it. */
  step(data: Record<string, unknown>): Promise<ToolStepReply | ValidationIssue[]>;
}

/** Whether a step's data is one of OpenEnv's MCP actions rather than a SQLAction. */
export function isToolAction(data: unknown): data is Record<string, unknown> {
  return isPlainObject(data) && (data.type === 'list_tools' || data.type === 'call_tool');
}

/** CallToolAction's fields (OpenEnv's Action forbids others). */
function toolActionIssues(data: Record<string, unknown>): ValidationIssue[] {
  const allowed = data.type === 'list_tools' ? ['type', 'metadata'] : ['type', 'tool_name', 'arguments', 'metadata'];
  const issues: ValidationIssue[] = Object.keys(data)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({ type: 'extra_forbidden', loc: ['data', k], msg: 'Extra inputs are not permitted' }));
  if (data.type === 'call_tool') {
    if (typeof data.tool_name !== 'string') issues.push({ type: data.tool_name === undefined ? 'missing' : 'string_type', loc: ['data', 'tool_name'], msg: data.tool_name === undefined ? 'Field required' : 'Input should be a valid string' });
    if (data.arguments !== undefined && !isPlainObject(data.arguments)) issues.push({ type: 'dict_type', loc: ['data', 'arguments'], msg: 'Input should be a valid dictionary' });
  }
  if (data.metadata !== undefined && !isPlainObject(data.metadata)) issues.push({ type: 'dict_type', loc: ['data', 'metadata'], msg: 'Input should be a valid dictionary' });
  return issues;
}

/** The connection's MCP endpoint; its SDK server is made on the first `mcp` message. */
export function createWsMcp(session: Session): WsMcp {
  let connected: Promise<{ server: Server; transport: DirectTransport }> | null = null;
  const connect = async (): Promise<{ server: Server; transport: DirectTransport }> => {
    // Already inside the session's `run` (ws-handler.ts): step directly, or the call would wait for itself.
    const server = createMcpServer({ step: (action) => session.step(action) });
    const transport = new DirectTransport();
    await server.connect(transport);
    return { server, transport };
  };
  return {
    async handle(data) {
      const read = readJsonRpcMessage(data);
      if ('error' in read) return { type: 'mcp', data: read.error };
      connected ??= connect();
      const { transport } = await connected;
      return { type: 'mcp', data: (await transport.exchange(read.message)) ?? NOTIFICATION_ACK };
    },
    async step(data) {
      const issues = toolActionIssues(data);
      if (issues.length > 0) return issues;
      if (data.type === 'list_tools') {
        const tools = MCP_TOOLS.map((t) => ({ name: t.name, description: t.description ?? '', input_schema: t.inputSchema }));
        return { type: 'observation', data: { observation: { tools }, reward: null, done: false } };
      }
      const name = data.tool_name as string;
      const outcome = await callTool(name, data.arguments as Record<string, unknown> | undefined, (action) => session.step(action));
      const observation = {
        tool_name: name,
        result: outcome.step ? { ...outcome.result, data: outcome.step.observation.text } : outcome.result,
        error: outcome.errorType ? { error_type: outcome.errorType, message: errorText(outcome.result) } : null,
        metadata: outcome.step?.observation.metadata ?? {},
      };
      return { type: 'observation', data: { observation, reward: outcome.step?.reward ?? null, done: outcome.step?.done ?? false } };
    },
  };
}

function errorText(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}
