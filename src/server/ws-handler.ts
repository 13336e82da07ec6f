/**
 * The WebSocket endpoint `/ws`: one session (one `SqlEnv` episode at a time) per connection, as OpenEnv's
 * `websocket_endpoint` (http_server.py l.1298–1512) runs it:
 *
 *   → {"type": "reset", "data": {seed?, episode_id?, question_id?, split?, difficulty?, db_id?}}
 *   → {"type": "step",  "data": {"action_type": "QUERY", "argument": "SELECT …"}}
 *   → {"type": "state"}            → {"type": "close"}
 *   → {"type": "mcp", "data": {JSON-RPC}}   ← {"type": "mcp", "data": {JSON-RPC reply}}   (mcp-ws.ts)
 *   → {"type": "step", "data": {"type": "list_tools" | "call_tool", …}}   OpenEnv's MCP actions (mcp-ws.ts)
 *   ← {"type": "observation", "data": {"observation": {…}, "reward": r|null, "done": bool}}
 *   ← {"type": "state", "data": {"episode_id", "step_count", …}}
 *   ← {"type": "error", "data": {"message", "code", …}}
 *
 * Errors, as OpenEnv sends them: bad JSON → INVALID_JSON (l.1338–1348); a message that does not validate →
 * VALIDATION_ERROR with `errors` (l.1462–1470); an unknown type → UNKNOWN_TYPE (l.1452–1458); the environment
 * raising (step before reset, step after the end, an unknown question) → EXECUTION_ERROR (l.1471–1478); a full
 * server → CAPACITY_REACHED with active/max sessions, then the socket closes (l.1482–1491). Every error but the last
 * leaves the session open. Beyond OpenEnv: a message that is not a JSON object is a VALIDATION_ERROR (OpenEnv's
 * `.get` would end the session); a message over the size cap closes the socket with 1009 (the `ws` library's
 * maxPayload; uvicorn does the same at 16 MiB); an idle session gets SESSION_ERROR and is closed.
 *
 * Messages of one connection are handled in order, one at a time; while more than PAUSE_AFTER wait the socket is
 * paused, so a client that floods the server only fills its own TCP window, and a client that still gets more than
 * MAX_QUEUED_MESSAGES waiting (they arrive in one TCP read) is closed with 1008. Replies go out through the
 * server-wide send budget (send-budget.ts), which closes the slowest readers when unread replies pile up.
 */
import type { RawData, WebSocket } from 'ws';
import { createWsMcp, isToolAction, type McpWsReply, type ToolStepReply, type WsMcp } from './mcp-ws.ts';
import type { ValidationIssue, WSErrorData, WSOutgoing } from './protocol.ts';
import type { SendBudget } from './send-budget.ts';
import { SessionCapacityError, type Session, type SessionManager } from './sessions.ts';
import { errorMessage, isPlainObject, validateAction, validateReset } from './wire.ts';

/** Messages waiting before the socket is paused. */
const PAUSE_AFTER = 4;
/** Messages one connection may have waiting at most (OpenEnv's clients send one and wait for its reply). */
export const MAX_QUEUED_MESSAGES = 32;

/** Every reply of this endpoint: OpenEnv's messages and the MCP reply. */
type WSReply = WSOutgoing | McpWsReply | ToolStepReply;

const error = (data: WSErrorData): WSOutgoing => ({ type: 'error', data });
const invalid = (errors: ValidationIssue[]): WSOutgoing => error({ message: 'Invalid message', code: 'VALIDATION_ERROR', errors });

/** Issues for keys a message model forbids (WSStateMessage and WSCloseMessage have only `type`). */
function extraKeys(message: Record<string, unknown>, allowed: readonly string[]): ValidationIssue[] {
  return Object.keys(message)
    .filter((k) => !allowed.includes(k))
    .map((k) => ({ type: 'extra_forbidden', loc: [k], msg: 'Extra inputs are not permitted' }));
}

/** One message's answer; 'close' when the client asked to end the session. */
async function answer(session: Session, mcp: WsMcp, text: string): Promise<WSReply | 'close'> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (e) {
    return error({ message: `Invalid JSON: ${errorMessage(e)}`, code: 'INVALID_JSON' });
  }
  if (!isPlainObject(message)) return invalid([{ type: 'model_type', loc: [], msg: 'Input should be a JSON object with a "type"' }]);
  const type = message.type ?? '';
  try {
    switch (type) {
      case 'reset': {
        const extra = extraKeys(message, ['type', 'data']);
        const params = validateReset(message.data, ['data']);
        if (extra.length > 0 || !params.ok) return invalid([...extra, ...(params.ok ? [] : params.issues)]);
        return { type: 'observation', data: await session.reset(params.value) };
      }
      case 'step': {
        const extra = extraKeys(message, ['type', 'data']);
        if (message.data === undefined) return invalid([...extra, { type: 'missing', loc: ['data'], msg: 'Field required' }]);
        if (isToolAction(message.data)) {
          // OpenEnv's MCP actions (list_tools, call_tool), as MCPToolClient sends them: mcp-ws.ts.
          const reply = extra.length > 0 ? extra : await mcp.step(message.data);
          return Array.isArray(reply) ? invalid(reply) : reply;
        }
        const action = validateAction(message.data, ['data']);
        if (extra.length > 0 || !action.ok) return invalid([...extra, ...(action.ok ? [] : action.issues)]);
        return { type: 'observation', data: await session.step(action.value) };
      }
      case 'state': {
        const extra = extraKeys(message, ['type']);
        return extra.length > 0 ? invalid(extra) : { type: 'state', data: session.state() };
      }
      case 'close':
        return 'close';
      case 'mcp': {
        const extra = extraKeys(message, ['type', 'data']);
        if (message.data === undefined) return invalid([...extra, { type: 'missing', loc: ['data'], msg: 'Field required' }]);
        if (!isPlainObject(message.data)) return invalid([...extra, { type: 'dict_type', loc: ['data'], msg: 'Input should be a valid dictionary' }]);
        return extra.length > 0 ? invalid(extra) : mcp.handle(message.data);
      }
      default: {
        const name = typeof type === 'string' ? type : JSON.stringify(type);
        return error({ message: `Unknown message type: ${name.length > 100 ? `${name.slice(0, 100)}…` : name}`, code: 'UNKNOWN_TYPE' });
      }
    }
  } catch (e) {
    return error({ message: errorMessage(e), code: 'EXECUTION_ERROR' });
  }
}

function asText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}

/** Serves one connection until it closes; its session is closed (and its slot freed) when it does. */
export function handleConnection(socket: WebSocket, manager: SessionManager, budget: SendBudget): void {
  budget.add(socket);
  const sendMessage = (target: WebSocket, message: WSReply): void => budget.send(target, JSON.stringify(message));
  let session: Session;
  try {
    session = manager.open();
  } catch (e) {
    const data: WSErrorData =
      e instanceof SessionCapacityError
        ? { message: e.message, code: 'CAPACITY_REACHED', active_sessions: e.activeSessions, max_sessions: e.maxSessions }
        : { message: errorMessage(e), code: 'FACTORY_ERROR' };
    sendMessage(socket, error(data));
    socket.close(1000, data.code === 'CAPACITY_REACHED' ? 'capacity reached' : 'session error');
    return;
  }
  const mcp = createWsMcp(session);
  let queued = 0;
  let ending = false;
  const end = (code: number, reason: string): void => {
    if (ending) return;
    ending = true;
    socket.close(code, reason);
    // The session ends now, not when the close handshake does: its queued work is dropped at once.
    void manager.close(session);
  };
  session.onIdle = () => {
    if (ending) return;
    sendMessage(socket, error({ message: 'Session closed after being idle; open a new connection to play on.', code: 'SESSION_ERROR' }));
    end(1000, 'idle timeout');
  };

  socket.on('message', (data, isBinary) => {
    manager.touch(session);
    if (ending) return;
    if (++queued > MAX_QUEUED_MESSAGES) {
      end(1008, `More than ${MAX_QUEUED_MESSAGES} messages waiting: wait for each reply before sending the next.`);
      return;
    }
    if (queued > PAUSE_AFTER) socket.pause();
    const text = isBinary ? null : asText(data);
    session
      .run(async () => (text === null ? error({ message: 'Invalid JSON: binary frames are not accepted; send JSON as text.', code: 'INVALID_JSON' }) : answer(session, mcp, text)))
      .then(
        (reply) => {
          if (reply === 'close') end(1000, 'closed by client');
          else sendMessage(socket, reply);
        },
        // Only a closed session rejects here (the socket is gone); nothing to answer.
        () => undefined,
      )
      .finally(() => {
        manager.touch(session);
        if (--queued <= PAUSE_AFTER && socket.isPaused && !ending) socket.resume();
      });
  });
  // An oversized message or a protocol violation: `ws` closes the socket itself (1009, 1002); 'close' cleans up.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    ending = true;
    void manager.close(session);
  });
}
