/**
 * `SqlExecutor` over a worker that can be killed. Requests run one at a time; each gets a time limit. When a
 * statement runs past it, or the worker dies, the worker is terminated, the request fails with a clear SqlError,
 * and the next request starts a fresh worker and reloads the databases it needs from the bytes kept here.
 */
import type { SqlExecutor } from './executor.ts';
import { DEFAULT_EXEC_LIMITS, SqlError, type ExecLimits, type QueryResult, type TableInfo } from './types.ts';
import type { SqlRequest, SqlResponse, SqlResultValue, WorkerPort } from './worker-protocol.ts';
import { contentKeyOf } from './content-key.ts';

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
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
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
   * measures one statement, not the queue before it, and so requests that belong together (a query and its run on
   * the empty twin) are never interleaved with another caller's.
   */
  private exclusive<T>(dbKey: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    const task = this.queue.then(async () => {
      if (!this.loaded.has(dbKey)) {
        const bytes = this.bytes.get(dbKey);
        if (!bytes) throw new SqlError('no-database', `Database '${dbKey}' is not loaded.`);
        // Loading copies the bytes into WASM memory; give it its own, more generous, limit.
        await this.send({ type: 'load', dbKey, bytes, contentKey: contentKeyOf(bytes) }, Math.max(timeoutMs, 30_000));
        this.loaded.add(dbKey);
      }
      return work();
    });
    this.queue = task.catch(() => undefined);
    return task;
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
    const { maxRows, timeoutMs, compareWithEmpty = false } = { ...this.limits, ...limits };
    return this.exclusive(dbKey, timeoutMs, async () => {
      const result = (await this.send({ type: 'query', dbKey, sql, maxRows, keepForCompare: compareWithEmpty }, timeoutMs)) as QueryResult;
      if (!compareWithEmpty) return result;
      // The run on the empty twin is a request of its own with its own time limit, so a runaway statement is still
      // stopped at the limit, and a heavy constant one (a 100 MB printf) gets the same time on the twin. The twin has
      // no rows, so it never does more work than the database did unless the statement computes something heavy
      // without reading a table: a twin that runs out of time means "reads nothing" (so a constant statement that
      // happens to end near the limit cannot be paid). Any other failure there counts as reading the database.
      try {
        return { ...result, readsData: (await this.send({ type: 'reads-data', dbKey }, timeoutMs)) as boolean };
      } catch (e) {
        if (e instanceof SqlError) return { ...result, readsData: e.kind !== 'timeout' };
        throw e;
      }
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

  async close(): Promise<void> {
    await this.queue;
    this.port?.terminate();
    this.port = null;
    this.loaded.clear();
    this.bytes.clear();
  }
}
