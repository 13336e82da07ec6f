/**
 * An in-process MCP transport (the SDK's `Transport` interface): one JSON-RPC message in, the server's reply out.
 * It carries the JSON-RPC bodies that arrive without the Streamable HTTP framing — OpenEnv's `{"type": "mcp"}`
 * WebSocket message and its plain `POST /mcp` requests — to an SDK `Server`, which does all the JSON-RPC work
 * (dispatch, ids, error codes). MCP allows such custom transports (RFC 003 "Transport").
 *
 * `exchange` resolves with the reply to a request, and with null for a notification or a response (they get none).
 * Two requests in flight with one id cannot be told apart: the second is refused with an Invalid Request error.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export class DirectTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly pending = new Map<RequestId, (reply: JSONRPCMessage) => void>();
  private closed = false;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Only replies are expected: this server sends no requests or notifications of its own.
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    const id = message.id;
    if (id === undefined) return;
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    resolve(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, resolve] of this.pending) resolve(errorReply(id, ErrorCode.ConnectionClosed, 'The MCP session was closed.'));
    this.pending.clear();
    this.onclose?.();
  }

  /** Hands `message` to the server; the reply to a request, or null. */
  exchange(message: JSONRPCMessage): Promise<JSONRPCMessage | null> {
    if (this.closed) return Promise.resolve(isJSONRPCRequest(message) ? errorReply(message.id, ErrorCode.ConnectionClosed, 'The MCP session is closed.') : null);
    if (!isJSONRPCRequest(message)) {
      this.onmessage?.(message);
      return Promise.resolve(null);
    }
    if (this.pending.has(message.id)) return Promise.resolve(errorReply(message.id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(message.id)} is already in flight in this session.`));
    const reply = new Promise<JSONRPCMessage>((resolve) => this.pending.set(message.id, resolve));
    this.onmessage?.(message);
    return reply;
  }
}

export function errorReply(id: RequestId | null, code: number, message: string, data?: unknown): JSONRPCMessage {
  // JSON-RPC 2.0 answers an unreadable request with id null; the SDK's type has no null, hence the cast.
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message, ...(data !== undefined && { data }) } };
}

/** `value` as one JSON-RPC message (the SDK's schema decides), or the Invalid Request error to answer instead. */
export function readJsonRpcMessage(value: unknown): { message: JSONRPCMessage } | { error: JSONRPCMessage } {
  if (Array.isArray(value)) return { error: errorReply(null, ErrorCode.InvalidRequest, 'Invalid Request: send one JSON-RPC message per request (batches are not supported here).') };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const raw = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).id : undefined;
  const id = typeof raw === 'string' || (typeof raw === 'number' && Number.isFinite(raw)) ? raw : null;
  return { error: errorReply(id, ErrorCode.InvalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 message ({"jsonrpc": "2.0", "method": …, "id": …}).') };
}

/** What answers a notification where the carrier needs one reply per message (the `/ws` `mcp` message). */
export const NOTIFICATION_ACK: JSONRPCMessage = { jsonrpc: '2.0', id: null as unknown as RequestId, result: {} };
