/**
 * `createServer(options)`: SQLEnv as an OpenEnv environment server — HTTP routes (http-routes.ts) and the WebSocket
 * `/ws` (ws-handler.ts, on the `ws` library) on one node:http server, sessions over a shared pool of killable SQL
 * workers (sessions.ts, sql-pool.ts). Listens on 127.0.0.1 unless told otherwise; port 0 picks a free port.
 *
 * Defaults: 64 sessions (OpenEnv's default of 1 makes a trainer's parallel rollouts fail with CAPACITY_REACHED),
 * min(4, cores) SQL workers, 1 MiB per message, sessions closed after 15 minutes without a message.
 * `close()` says goodbye to every socket (1001), waits for steps in flight, and stops the workers; harmless twice.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { WebSocketServer } from 'ws';
import type { Dataset } from '../data/types.ts';
import { ENV_VERSION } from '../env/env.ts';
import type { EnvConfig, ResetOptions } from '../env/types.ts';
import type { WorkerSqlExecutor } from '../sql/worker-executor.ts';
import { createHttpHandler } from './http-routes.ts';
import type { EnvironmentMetadata } from './protocol.ts';
import { SessionManager } from './sessions.ts';
import { SqlPool } from './sql-pool.ts';
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
  /** Makes one SQL worker; tests inject shorter time limits through it. */
  createWorker?: () => WorkerSqlExecutor;
}

export interface RunningServer {
  /** http://host:port */
  url: string;
  port: number;
  /** Sessions open now, and SQL workers replaced after a timeout or crash so far. */
  stats(): { activeSessions: number; sqlRestarts: number };
  close(): Promise<void>;
}

export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;

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
  const pool = new SqlPool(options.sqlWorkers ?? defaultSqlWorkers(), options.createWorker);
  const manager = new SessionManager({
    dataset: options.dataset,
    pool,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    resetDefaults: options.resetDefaults,
    envConfig: options.envConfig,
  });
  const http = createHttpServer(createHttpHandler({ manager, metadata: metadataOf(options.dataset), maxBodyBytes: maxMessageBytes }));
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes });
  wss.on('connection', (socket) => handleConnection(socket, manager));
  http.on('upgrade', (req, socket: Socket, head) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
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
    stats: () => ({ activeSessions: manager.active, sqlRestarts: pool.restarts() }),
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        for (const socket of wss.clients) socket.close(1001, 'server shutting down');
        await manager.closeAll();
        for (const socket of wss.clients) socket.terminate();
        wss.close();
        http.closeAllConnections();
        await stopped;
        await pool.close();
      })();
      return closing;
    },
  };
}
