/**
 * One MCP server (the official SDK's low-level `Server`) per MCP session, bound to one SQLEnv episode: `initialize`
 * (answered by the SDK, with the episode's first observation as `instructions` when the session started one),
 * `tools/list` (the four tools, mcp-tools.ts) and `tools/call` (one environment step per call).
 *
 * How an episode starts follows OpenEnv: `reset` is not a tool (RFC 003 reserves reset/step/state/close for the
 * control plane), so the session's owner resets — the `/ws` `reset` message, or the start of an HTTP MCP session
 * (mcp-http.ts) — and the agent only ever sees the four actions.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ENV_VERSION } from '../env/env.ts';
import { callTool, JSON_SCHEMA_VALIDATOR, MCP_TOOLS } from './mcp-tools.ts';
import type { SqlActionWire, WireStepResult } from './protocol.ts';

export interface McpServerOptions {
  /** Plays one action on the session's episode (the caller decides how calls are ordered). */
  step: (action: SqlActionWire) => Promise<WireStepResult>;
  /** What the client is told at `initialize`: the episode's first observation, when there is one. */
  instructions?: string;
}

export const MCP_SERVER_NAME = 'sqlenv';

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: String(ENV_VERSION) },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: JSON_SCHEMA_VALIDATOR, ...(options.instructions !== undefined && { instructions: options.instructions }) },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...MCP_TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => (await callTool(request.params.name, request.params.arguments, options.step)).result);
  return server;
}
