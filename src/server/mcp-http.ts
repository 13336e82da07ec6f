/**
 * `POST /mcp`: the MCP endpoint, on the official SDK. http-routes.ts sends every `/mcp` request here once the access
 * policy (Host/Origin/token) has let it through. Three kinds of client are told apart by what they send:
 *
 *   1. An MCP client on the Streamable HTTP transport (the SDK's `Client`, Claude, …): `initialize` opens a session
 *      (reset parameters from the URL query: `/mcp?seed=3&split=eval`), its reply carries `Mcp-Session-Id`, and
 *      every later request with that header goes to the session's `StreamableHTTPServerTransport` (JSON replies, no
 *      SSE: the server never starts a message, so `GET /mcp` is 405). `DELETE /mcp` ends the session.
 *   2. OpenEnv's `MCPToolClient` in production mode (http_server.py `mcp_handler`): plain JSON-RPC bodies;
 *      `openenv/session/create` (params: reset parameters) opens a session and answers `{session_id, observation,
 *      reward, done}`, `tools/list` and `tools/call` name it with `params.session_id`, `openenv/session/close` ends it.
 *   3. Anything else, such as `openenv validate`'s `POST /mcp {}`: answered statelessly by a fresh SDK server with no
 *      episode (tools/list works; tools/call says how to start an episode), holding no session slot.
 *
 * JSON-RPC failures are JSON-RPC error bodies with HTTP 200, as OpenEnv answers them (a body that is not JSON:
 * -32700; not a JSON-RPC message: -32600; a full server: -32000 with active/max sessions); the Streamable HTTP
 * transport's own answers (400, 404 unknown session, 406, 415) are the SDK's. A body over the cap is 413 and the
 * connection closes, as on every route.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ErrorCode, isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DirectTransport, errorReply, readJsonRpcMessage } from './mcp-direct-transport.ts';
import { createMcpServer } from './mcp-server.ts';
import { McpSessions } from './mcp-sessions.ts';
import { parseRequestTarget } from './request-target.ts';
import type { ValidationIssue } from './protocol.ts';
import { SessionCapacityError, type SessionManager } from './sessions.ts';
import { errorMessage, isPlainObject, validateReset } from './wire.ts';

export const MCP_PATH = '/mcp';

export interface McpHttpOptions {
  manager: SessionManager;
  maxBodyBytes: number;
}

/**
 * Answers one `/mcp` request (any method but a CORS preflight, which http-routes.ts answers). CORS headers for an
 * allowed origin are already set on `res`.
 */
export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The request headers MCP adds, which a CORS preflight must allow. */
export const MCP_REQUEST_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'last-event-id'] as const;
const SESSION_HEADER = 'mcp-session-id';
/** JSON-RPC's generic server error, OpenEnv's SERVER_ERROR (the SDK calls -32000 ConnectionClosed). */
const SERVER_ERROR = -32000;
/** What the SDK's Streamable HTTP transport answers for an unknown Mcp-Session-Id (with HTTP 404). */
const SESSION_NOT_FOUND = -32001;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The body as text, or null when it is over `max` bytes (the rest is then drained and the connection closed). */
async function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reset parameters written as URL query values (`seed=3&split=eval`), checked as `/reset` checks its body. */
function resetFromQuery(query: URLSearchParams): ReturnType<typeof validateReset> {
  const params: Record<string, unknown> = {};
  for (const key of ['seed', 'episode_id', 'question_id', 'split', 'difficulty', 'db_id']) {
    const value = query.get(key);
    if (value !== null) params[key] = key === 'seed' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  }
  return validateReset(params, ['query']);
}

/** Validation issues in one line: `seed: Input should be … ; split: …`. */
function issuesText(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ');
}

function capacityError(e: SessionCapacityError): JSONRPCMessage {
  return errorReply(null, SERVER_ERROR, e.message, { active_sessions: e.activeSessions, max_sessions: e.maxSessions });
}

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const sessions = new McpSessions(options.manager);
  /** Answers a request that carries no session: no episode, so every step is refused with what to do instead. */
  const stateless = async (message: JSONRPCMessage): Promise<JSONRPCMessage | null> => {
    const server = createMcpServer({
      step: () => Promise.reject(new Error('No episode: start one first (MCP initialize over Streamable HTTP, or openenv/session/create), then call tools in that session.')),
    });
    const transport = new DirectTransport();
    await server.connect(transport);
    try {
      return await transport.exchange(message);
    } finally {
      await server.close();
    }
  };

  /** OpenEnv's plain JSON-RPC (kind 2 and 3 above). */
  const plain = async (body: unknown): Promise<JSONRPCMessage | null> => {
    const read = readJsonRpcMessage(body);
    if ('error' in read) return read.error;
    const message = read.message;
    if (!isJSONRPCRequest(message)) return stateless(message);
    const params: Record<string, unknown> = isPlainObject(message.params) ? { ...message.params } : {};
    if (message.method === 'openenv/session/create') {
      const { session_id: _ignored, ...resetParams } = params;
      const reset = validateReset(resetParams, ['params']);
      if (!reset.ok) return errorReply(message.id, ErrorCode.InvalidParams, `Invalid reset parameters: ${issuesText(reset.issues)}.`, reset.issues);
      const opened = await sessions.open('direct', reset.value);
      return { jsonrpc: '2.0', id: message.id, result: { session_id: opened.entry.session.id, ...opened.first } };
    }
    const sessionId = params.session_id;
    if (sessionId === undefined || sessionId === null) {
      if (message.method === 'openenv/session/close') return errorReply(message.id, ErrorCode.InvalidParams, "Invalid params - 'session_id' is required");
      return stateless(message);
    }
    const entry = typeof sessionId === 'string' ? sessions.get(sessionId, 'direct') : null;
    if (!entry || entry.kind !== 'direct') return errorReply(message.id, ErrorCode.InvalidParams, `Unknown session_id: ${JSON.stringify(sessionId).slice(0, 100)}`);
    if (message.method === 'openenv/session/close') {
      await sessions.close(entry);
      return { jsonrpc: '2.0', id: message.id, result: { session_id: entry.session.id, closed: true } };
    }
    delete params.session_id;
    return entry.transport.exchange({ ...message, params });
  };

  /** `initialize` without a session header: a new Streamable HTTP session (kind 1). */
  const initialize = async (req: IncomingMessage, res: ServerResponse, query: URLSearchParams, body: unknown): Promise<void> => {
    const id = isPlainObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    const reset = resetFromQuery(query);
    if (!reset.ok) return sendJson(res, 200, errorReply(id, ErrorCode.InvalidParams, `Invalid reset parameters in the /mcp URL query: ${issuesText(reset.issues)}.`, reset.issues));
    const opened = await sessions.open('streamable', reset.value);
    if (opened.entry.kind !== 'streamable') throw new Error('unreachable: a streamable session was asked for');
    await opened.entry.transport.handleRequest(req, res, body);
    // The transport refused the request (no Accept: text/event-stream, say): nobody can reach the session.
    if (opened.entry.transport.sessionId === undefined) await sessions.close(opened.entry);
  };

  return async (req, res) => {
    const method = req.method ?? 'GET';
    // A page allowed to call (CORS) may read the session id; the SDK transport's answers carry it too.
    if (res.hasHeader('access-control-allow-origin')) res.setHeader('access-control-expose-headers', SESSION_HEADER);
    const header = req.headers[SESSION_HEADER];
    const sessionId = typeof header === 'string' ? header : null;
    if (method === 'DELETE' && sessionId === null) return sendJson(res, 400, errorReply(null, SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required'));
    if (method === 'DELETE' && sessionId !== null) {
      const entry = sessions.get(sessionId, 'streamable');
      if (!entry || entry.kind !== 'streamable') return sendJson(res, 404, errorReply(null, SESSION_NOT_FOUND, 'Session not found'));
      await entry.transport.handleRequest(req, res);
      await sessions.close(entry);
      return;
    }
    if (method !== 'POST') {
      return sendJson(res, 405, errorReply(null, SERVER_ERROR, 'Method Not Allowed: POST /mcp, and DELETE to end a session; this server opens no SSE streams.'), { allow: 'POST, DELETE' });
    }
    const text = await readBody(req, options.maxBodyBytes);
    if (text === null) {
      req.resume();
      return sendJson(res, 413, errorReply(null, ErrorCode.InvalidRequest, `Request body over ${options.maxBodyBytes} bytes.`), { connection: 'close' });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return sendJson(res, sessionId === null ? 200 : 400, errorReply(null, ErrorCode.ParseError, `Parse error: ${errorMessage(e)}`));
    }
    try {
      if (sessionId !== null) {
        const entry = sessions.get(sessionId, 'streamable');
        if (!entry || entry.kind !== 'streamable') return sendJson(res, 404, errorReply(null, SESSION_NOT_FOUND, 'Session not found'));
        await entry.transport.handleRequest(req, res, body);
        return;
      }
      if (isInitializeRequest(body)) return await initialize(req, res, parseRequestTarget(req.url)?.query ?? new URLSearchParams(), body);
      const reply = await plain(body);
      if (reply === null) {
        res.writeHead(202);
        res.end();
      } else sendJson(res, 200, reply);
    } catch (e) {
      if (res.headersSent) throw e;
      const id = isPlainObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
      if (e instanceof SessionCapacityError) return sendJson(res, 200, { ...capacityError(e), id });
      sendJson(res, 200, errorReply(id, ErrorCode.InternalError, errorMessage(e)));
    }
  };
}
