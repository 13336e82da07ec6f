/**
 * `createServer(options)`: SQLEnv as an OpenEnv environment server — HTTP routes (http-routes.ts) and the WebSocket
 * `/ws` (ws-handler.ts, on the `ws` library) on one node:http server, sessions over a shared pool of killable SQL
 * workers (sessions.ts, sql-pool.ts). Listens on 127.0.0.1 unless told otherwise; port 0 picks a free port.
 *
 * Defaults: 64 sessions (OpenEnv's default of 1 makes a trainer's parallel rollouts fail with CAPACITY_REACHED),
 * min(4, cores) SQL workers, 1 MiB per message, sessions closed after 15 minutes without a message.
 *
 * Against hostile clients and pages (docs/server-security.md): every request and upgrade passes the Host/Origin/token
 * policy (origin-policy.ts) after its target is read without throwing (request-target.ts), and a handler that still
 * throws is answered 400, never ending the process; unread replies are held within a server-wide budget
 * (send-budget.ts); connections are capped below the open-files limit (connection-limit.ts) and idle or slow
 * ones time out (headers within 10 s, a request within 30 s, keep-alive 5 s), so a flood of idle connections cannot
 * lock out a health check; the SQL pool keeps runaway sessions from stalling the others (sql-pool.ts).
 * With `webDir`, the built page is served at /web/ (static-web.ts), and /openapi.json and /docs describe the routes.
 * `close()` says goodbye to every socket (1001), drops queued SQL work, terminates statements still running, and
 * stops the workers; harmless twice.
 */
import { createServer as createHttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { WebSocketServer } from 'ws';
import type { Dataset } from '../data/types.ts';
import { ENV_VERSION } from '../env/env.ts';
import type { EnvConfig, ResetOptions } from '../env/types.ts';
import { connectionLimit, DEFAULT_MAX_CONNECTIONS, openFilesLimit } from './connection-limit.ts';
import { createHttpHandler } from './http-routes.ts';
import { createAccessPolicy, type AccessPolicy } from './origin-policy.ts';
import type { EnvironmentMetadata } from './protocol.ts';
import { parseRequestTarget } from './request-target.ts';
import { DEFAULT_SEND_BUDGET_BYTES, SendBudget } from './send-budget.ts';
import { SessionManager } from './sessions.ts';
import { SqlPool, type SqlWorkerFactory } from './sql-pool.ts';
import { loadStaticSite, type StaticSite } from './static-web.ts';
import { handleConnection } from './ws-handler.ts';

export interface ServerOptions {
  dataset: Dataset;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Concurrent sessions (WebSocket connections and HTTP requests in progress); default 64. */
  maxSessions?: number;
  /** SQL worker threads shared by all sessions; default min(4, cores). */
  sqlWorkers?: number;
  /** Largest WebSocket message or HTTP body, in bytes; default 1 MiB. */
  maxMessageBytes?: number;
  /** A session without a message for this long is closed; 0 never. Default 15 minutes. */
  idleTimeoutMs?: number;
  /** What a reset that names no split uses (the CLI's --split); the environment's default is 'train'. */
  resetDefaults?: ResetOptions;
  envConfig?: Partial<EnvConfig>;
  /** Makes one SQL worker executor over the pool's transport; tests inject shorter time limits through it. */
  createWorker?: SqlWorkerFactory;
  /** Origins allowed besides the page's own (`scheme://host[:port]`); `*` allows any. Default none. */
  allowOrigins?: readonly string[];
  /** Host names allowed besides loopback ones (and any IP literal when bound to 0.0.0.0 or ::); `*` allows any. */
  allowHosts?: readonly string[];
  /** When set, every request but GET /health must carry it (Authorization: Bearer, or ?token=). */
  token?: string | null;
  /** Connections at once; default 1,024, always below the open-files limit (connection-limit.ts). */
  maxConnections?: number;
  /** Bytes of replies written but unread, over every WebSocket; default 64 MiB (send-budget.ts). */
  sendBudgetBytes?: number;
  /** An HTTP request must send its headers within this many ms (slowloris); default 10 s. */
  headersTimeoutMs?: number;
  /** Where a handler that threw is reported; default stderr. */
  log?: (message: string) => void;
  /** The built page (`dist/`) to serve at /web/; default none (then /web/ answers 404 saying how to build it). */
  webDir?: string | null;
}

export interface RunningServer {
  /** http://host:port */
  url: string;
  port: number;
  /** The connection limit in force (the configured one, lowered below the open-files limit). */
  maxConnections: number;
  /** Whether a built page is served at /web/. */
  servesPage: boolean;
  /**
   * Sessions open now; session slots held (the open sessions and those still closing: a closed session keeps its slot
   * until its statement in flight settles, and CAPACITY_REACHED counts slots); SQL workers replaced after a timeout
   * or crash so far; SQL calls waiting for a worker; sockets closed for not reading their replies.
   */
  stats(): { activeSessions: number; sessionSlotsHeld: number; sqlRestarts: number; sqlWaiting: number; slowReadersClosed: number };
  close(): Promise<void>;
}

export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** The bare HTTP answer to an upgrade that is refused, then the socket is closed. */
function refuseUpgrade(socket: Duplex, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status] ?? 'Error';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, () => socket.destroy());
}

export function defaultSqlWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

function metadataOf(dataset: Dataset): EnvironmentMetadata {
  return {
    name: 'sqlenv',
    description: `SQLEnv: answer a natural-language question about a SQLite database by exploring it with DESCRIBE, SAMPLE, QUERY and ANSWER. Dataset '${dataset.name}': ${dataset.description}`,
    readme_content: null,
    version: String(ENV_VERSION),
    author: 'SQLEnv Web',
    documentation_url: null,
  };
}

export async function createServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const log = options.log ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const accessOptions = { bindHost: host, allowOrigins: options.allowOrigins, allowHosts: options.allowHosts };
  const access: AccessPolicy = createAccessPolicy({ ...accessOptions, token: options.token });
  // The page is the same public build for everyone and holds no session: Host and Origin checks, but no token.
  const pageAccess: AccessPolicy = createAccessPolicy({ ...accessOptions, token: null });
  const site: StaticSite | null = options.webDir ? await loadStaticSite(options.webDir) : null;
  const pool = new SqlPool(options.sqlWorkers ?? defaultSqlWorkers(), { create: options.createWorker });
  const manager = new SessionManager({
    dataset: options.dataset,
    pool,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    resetDefaults: options.resetDefaults,
    envConfig: options.envConfig,
  });
  const budget = new SendBudget(options.sendBudgetBytes ?? DEFAULT_SEND_BUDGET_BYTES);
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const handleHttp = createHttpHandler({ manager, metadata: metadataOf(options.dataset), maxBodyBytes: maxMessageBytes, access, pageAccess, site, log });
  /** Sockets with a request being answered (a step may wait for SQL): the idle timeout leaves them alone. */
  const answering = new WeakSet<object>();
  const http = createHttpServer(
    // Idle and half-sent requests are checked this often (node's default is every 30 s).
    { connectionsCheckingInterval: Math.max(50, Math.min(1_000, headersTimeout / 4)), headersTimeout, requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout) },
    (req, res) => {
      answering.add(req.socket);
      res.once('close', () => answering.delete(req.socket));
      handleHttp(req, res);
    },
  );
  http.keepAliveTimeout = Math.min(KEEP_ALIVE_TIMEOUT_MS, headersTimeout);
  // headersTimeout does not cover a connection that never sends a byte: any socket silent for as long, and not
  // waiting for its answer, is closed (`ws` clears the timeout of sockets it upgrades).
  http.timeout = headersTimeout;
  http.on('timeout', (socket: Duplex) => {
    if (!answering.has(socket)) socket.destroy();
  });
  const maxConnections = connectionLimit(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, openFilesLimit());
  http.maxConnections = maxConnections;
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes });
  wss.on('connection', (socket) => handleConnection(socket, manager, budget));
  http.on('upgrade', (req, socket: Duplex, head) => {
    // node:http leaves an upgraded socket without an error listener: a reset would be an uncaught 'error'.
    socket.on('error', () => undefined);
    try {
      const target = parseRequestTarget(req.url);
      if (!target) return refuseUpgrade(socket, 400, 'Bad Request: the request target is not a path.');
      if (target.path !== '/ws') return refuseUpgrade(socket, 404, 'Not Found');
      const decision = access({ method: req.method ?? 'GET', path: target.path, query: target.query, headers: req.headers });
      if (!decision.ok) return refuseUpgrade(socket, decision.status, decision.reason);
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    } catch (e) {
      log(`sqlenv serve: a WebSocket upgrade failed (answered 400, still serving): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      refuseUpgrade(socket, 400, 'Bad Request');
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 8000, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await manager.closeAll();
    await pool.close();
    throw e;
  }
  const port = (http.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    maxConnections,
    servesPage: site !== null,
    stats: () => ({ activeSessions: manager.active, sessionSlotsHeld: manager.slotsHeld, sqlRestarts: pool.restarts(), sqlWaiting: pool.waitingCalls, slowReadersClosed: budget.closedSlowReaders }),
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        for (const socket of wss.clients) socket.close(1001, 'server shutting down');
        // Queued SQL work is dropped and running statements are terminated, so sessions close at once.
        await pool.close();
        await manager.closeAll();
        for (const socket of wss.clients) socket.terminate();
        wss.close();
        http.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
