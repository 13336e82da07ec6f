/**
 * The MCP sessions of `POST /mcp`: each holds one slot of the SessionManager (so MCP counts against --max-sessions
 * like `/ws` connections do, and the idle reaper closes it), one episode, and the SDK server bound to it.
 *
 * Two kinds, one per way clients speak to `/mcp` (mcp-http.ts):
 *   streamable  MCP's Streamable HTTP transport (the SDK's `StreamableHTTPServerTransport`, JSON replies): opened by
 *               `initialize`, named by the `Mcp-Session-Id` header, ended by `DELETE /mcp` or idleness.
 *   direct      OpenEnv's plain JSON-RPC (`MCPToolClient` in production mode): opened by `openenv/session/create`,
 *               named by `params.session_id`, ended by `openenv/session/close` or idleness.
 * The session id is the SessionManager's session id in both.
 *
 * Opening a session starts its episode (reset with the given parameters): `reset` is no MCP tool (OpenEnv reserves
 * it for the control plane), and an MCP client has no other message that could start one.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DirectTransport } from './mcp-direct-transport.ts';
import { createMcpServer } from './mcp-server.ts';
import type { ResetParams, WireStepResult } from './protocol.ts';
import type { Session, SessionManager } from './sessions.ts';

export type McpSession =
  | { kind: 'streamable'; session: Session; server: Server; transport: StreamableHTTPServerTransport }
  | { kind: 'direct'; session: Session; server: Server; transport: DirectTransport };

export class McpSessions {
  private readonly manager: SessionManager;
  private readonly sessions = new Map<string, McpSession>();

  constructor(manager: SessionManager) {
    this.manager = manager;
  }

  /** The open session with this id and kind; a session closed under it (server shutdown) counts as gone. */
  get(id: string, kind: McpSession['kind']): McpSession | null {
    const entry = this.sessions.get(id);
    if (!entry || entry.kind !== kind) return null;
    if (entry.session.isClosed) {
      void this.close(entry);
      return null;
    }
    this.manager.touch(entry.session);
    return entry;
  }

  /**
   * Opens a session of `kind` and plays its reset. Throws SessionCapacityError when the server is full, and the
   * environment's error (an unknown question, say) when the reset fails; either way no slot stays taken.
   */
  async open(kind: McpSession['kind'], reset: ResetParams): Promise<{ entry: McpSession; first: WireStepResult }> {
    const session = this.manager.open();
    let first: WireStepResult;
    try {
      first = await session.run(() => session.reset(reset));
    } catch (e) {
      await this.manager.close(session);
      throw e;
    }
    // Requests of one HTTP session may arrive together: each step waits for the one before it.
    const server = createMcpServer({ step: (action) => session.run(() => session.step(action)), instructions: first.observation.text });
    const entry: McpSession =
      kind === 'streamable'
        ? { kind, session, server, transport: new StreamableHTTPServerTransport({ sessionIdGenerator: () => session.id, enableJsonResponse: true }) }
        : { kind, session, server, transport: new DirectTransport() };
    this.sessions.set(session.id, entry);
    session.onIdle = () => void this.close(entry);
    entry.transport.onclose = () => void this.close(entry);
    try {
      await server.connect(entry.transport);
    } catch (e) {
      await this.close(entry);
      throw e;
    }
    return { entry, first };
  }

  /** Ends the session: its transport, its episode and its slot. Harmless twice. */
  async close(entry: McpSession): Promise<void> {
    if (this.sessions.get(entry.session.id) !== entry) return;
    this.sessions.delete(entry.session.id);
    try {
      await entry.transport.close();
    } finally {
      await this.manager.close(entry.session);
    }
  }

  get size(): number {
    return this.sessions.size;
  }
}
