/**
 * `SqlExecutor` over a worker that can be killed. Requests run one at a time; each gets a time limit. When a
 * statement runs past it, or the worker dies, the worker is terminated, the request fails with a clear SqlError,
 * and the next request starts a fresh worker and reloads the databases it needs from the bytes kept here. A worker
 * that answers 'crashed' (a WASM trap inside sql.js, wasm-trap.ts: its heap can no longer be trusted) is replaced
 * the same way, before any other request is sent to it, so no other session's database is read on corrupt memory.
 * Keys loaded from the same bytes share one read-only connection on the worker (a 'share' request, no bytes sent).
 */
import type { SqlExecutor } from './executor.ts';
import { DEFAULT_EXEC_LIMITS, SqlError, type CopiesRun, type ExecLimits, type QueryResult, type TableInfo } from './types.ts';
import { COPY_PLANS } from './perturbed-copies.ts';
import type { SqlRequest, SqlResponse, SqlResultValue, WorkerPort } from './worker-protocol.ts';
import { contentKeyOf } from './content-key.ts';
import { SerialQueue } from '../util/serial-queue.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type RequestBody = DistributiveOmit<SqlRequest, 'id'>;

interface Pending {
  resolve: (value: SqlResultValue) => void;
  reject: (error: SqlError) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface WorkerExecutorOptions {
  limits?: Partial<ExecLimits>;
  /** Called each time a worker is replaced, with the reason. */
  onRestart?: (reason: string) => void;
}

export class WorkerSqlExecutor implements SqlExecutor {
  private readonly spawn: () => WorkerPort;
  private readonly limits: ExecLimits;
  private readonly onRestart?: (reason: string) => void;
  private port: WorkerPort | null = null;
  /** Bytes of every database loaded, so a replacement worker can reopen them. */
  private readonly bytes = new Map<string, Uint8Array>();
  /** Databases the current worker has open. */
  private readonly loaded = new Set<string>();
  /** Contents (content keys) whose perturbed copies the current worker has built. */
  private readonly copiesBuilt = new Set<string>();
  /** Contents whose copies could not be built (too slow or a crash): not tried again. */
  private readonly copiesFailed = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Serialises requests (see `exclusive`). */
  private readonly queue = new SerialQueue();
  /** Number of workers replaced after a timeout or crash. */
  restarts = 0;

  constructor(spawn: () => WorkerPort, options: WorkerExecutorOptions = {}) {
    this.spawn = spawn;
    this.limits = { ...DEFAULT_EXEC_LIMITS, ...options.limits };
    this.onRestart = options.onRestart;
  }

  private ensurePort(): WorkerPort {
    if (this.port) return this.port;
    const port = this.spawn();
    port.onResponse((response) => this.settle(response));
    port.onFailure((error) => {
      if (this.port === port) this.replaceWorker(`SQL worker failed: ${error.message}`, 'crashed');
    });
    this.port = port;
    return port;
  }

  private settle(response: SqlResponse): void {
    const pending = this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id);
    clearTimeout(pending.timer);
    if (response.type === 'result') pending.resolve(response.value);
    else {
      if (response.kind === 'crashed') this.replaceWorker(response.message, 'crashed', false);
      pending.reject(new SqlError(response.kind, response.message));
    }
  }

  /** Kills the current worker; fails whatever was in flight with `message`. */
  private replaceWorker(message: string, kind: 'timeout' | 'crashed', failPending = true): void {
    this.port?.terminate();
    this.port = null;
    this.loaded.clear();
    this.copiesBuilt.clear();
    this.restarts++;
    this.onRestart?.(message);
    if (!failPending) return;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new SqlError(kind, message));
      this.pending.delete(id);
    }
  }

  private send(body: RequestBody, timeoutMs: number): Promise<SqlResultValue> {
    const port = this.ensurePort();
    const id = this.nextId++;
    return new Promise<SqlResultValue>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.replaceWorker(`Query stopped: it ran longer than the ${timeoutMs} ms time limit.`, 'timeout');
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      port.send({ ...body, id });
    });
  }

  /**
   * Runs `work` alone on the worker, after opening `dbKey` there if needed: requests are serialised so a time limit
   * measures one statement, not the queue before it, and so requests that belong together (building copies and running
   * on them) are never interleaved with another caller's.
   */
  private exclusive<T>(dbKey: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      if (!this.loaded.has(dbKey)) {
        const bytes = this.bytes.get(dbKey);
        if (!bytes) throw new SqlError('no-database', `Database '${dbKey}' is not loaded.`);
        const contentKey = contentKeyOf(bytes);
        if (this.workerHasContent(bytes)) {
          // Another key on this worker was loaded from the same bytes: share its read-only connection, so N sessions
          // on one database cost one copy per worker, not N (and the bytes are not sent again).
          await this.send({ type: 'share', dbKey, contentKey }, timeoutMs);
        } else {
          // Loading copies the bytes into WASM memory; give it its own, more generous, limit.
          await this.send({ type: 'load', dbKey, bytes, contentKey }, Math.max(timeoutMs, 30_000));
        }
        this.loaded.add(dbKey);
      }
      return work();
    });
  }

  /** Whether a key the current worker has open was loaded from `bytes` (every loaded key's bytes are what it opened). */
  private workerHasContent(bytes: Uint8Array): boolean {
    for (const key of this.loaded) if (this.bytes.get(key) === bytes) return true;
    return false;
  }

  private run<T extends SqlResultValue>(dbKey: string, body: RequestBody, timeoutMs = this.limits.timeoutMs): Promise<T> {
    return this.exclusive(dbKey, timeoutMs, async () => (await this.send(body, timeoutMs)) as T);
  }

  async load(dbKey: string, bytes: Uint8Array): Promise<void> {
    this.bytes.set(dbKey, bytes);
    this.loaded.delete(dbKey);
    // Open now so a corrupt file is reported by `load`, not by the first query.
    await this.run<null>(dbKey, { type: 'tables', dbKey });
  }

  query(dbKey: string, sql: string, limits?: Partial<ExecLimits>): Promise<QueryResult> {
    const { maxRows, timeoutMs } = { ...this.limits, ...limits };
    return this.run<QueryResult>(dbKey, { type: 'query', dbKey, sql, maxRows }, timeoutMs);
  }

  /**
   * The copies are built by a request of their own with a generous limit (once per content and worker; a content
   * whose build failed is not tried again and has no copies). The runs on the copies then share one limit of
   * `timeoutMs` per copy: the statement already ran within `timeoutMs` on the database itself.
   */
  runOnCopies(dbKey: string, sql: string, goldSql: string, limits?: Partial<ExecLimits>): Promise<CopiesRun> {
    const { maxRows, timeoutMs } = { ...this.limits, ...limits };
    return this.exclusive(dbKey, timeoutMs, async () => {
      const bytes = this.bytes.get(dbKey);
      const content = bytes ? contentKeyOf(bytes) : dbKey;
      if (this.copiesFailed.has(content)) return { copies: [] };
      if (!this.copiesBuilt.has(content)) {
        try {
          await this.send({ type: 'build-copies', dbKey }, Math.max(timeoutMs, 30_000));
        } catch (e) {
          if (e instanceof SqlError) this.copiesFailed.add(content);
          throw e;
        }
        this.copiesBuilt.add(content);
      }
      return (await this.send({ type: 'run-on-copies', dbKey, sql, goldSql, maxRows }, timeoutMs * COPY_PLANS.length)) as CopiesRun;
    });
  }

  tables(dbKey: string): Promise<string[]> {
    return this.run<string[]>(dbKey, { type: 'tables', dbKey });
  }

  describe(dbKey: string, table: string): Promise<TableInfo> {
    return this.run<TableInfo>(dbKey, { type: 'describe', dbKey, table });
  }

  sample(dbKey: string, table: string, rows: number): Promise<QueryResult> {
    return this.run<QueryResult>(dbKey, { type: 'sample', dbKey, table, rows });
  }

  /**
   * Forgets `dbKey` (a session that ended): the worker closes its connection when no other key uses it, and the
   * bytes kept for reloads are let go. Harmless for a key that is not loaded.
   */
  unload(dbKey: string): Promise<void> {
    return this.queue.run(async () => {
      this.bytes.delete(dbKey);
      if (!this.loaded.delete(dbKey)) return;
      await this.send({ type: 'unload', dbKey }, this.limits.timeoutMs);
    });
  }

  async close(): Promise<void> {
    await this.queue.idle();
    this.port?.terminate();
    this.port = null;
    this.loaded.clear();
    this.bytes.clear();
  }
}
