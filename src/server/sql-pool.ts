/**
 * A fixed pool of killable SQL workers shared by every session of the server.
 *
 * Each `WorkerSqlExecutor` runs its requests one at a time and restarts its worker when a statement passes its time
 * limit, failing only that request (requests queued behind it are not yet sent, so they run on the fresh worker).
 * A session gets a `SessionSqlExecutor`, which sticks to one worker for an episode: `load` (called by every
 * `SqlEnv.reset`) moves it to the worker with the fewest requests in flight, so a runaway query slows only the
 * sessions queued on its worker, and only until its time limit.
 *
 * Memory: a session opens its database under its own key (sessions.ts), so each worker holds at most one copy per
 * session slot, replaced at each reset on that worker.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import type { ExecLimits, QueryResult, TableInfo } from '../sql/types.ts';
import type { WorkerSqlExecutor } from '../sql/worker-executor.ts';

export class SqlPool {
  readonly workers: readonly WorkerSqlExecutor[];
  /** Requests in flight (queued or running) per worker. */
  private readonly inFlight: number[];
  /** Per worker: settles when the calls given to it so far have settled. */
  private readonly turns: Array<Promise<void>>;

  constructor(size: number, create: () => WorkerSqlExecutor = () => createNodeSqlExecutor()) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`SQL pool size must be an integer ≥ 1, got ${size}.`);
    this.workers = Array.from({ length: size }, create);
    this.inFlight = new Array<number>(size).fill(0);
    this.turns = Array.from({ length: size }, () => Promise.resolve());
  }

  /** The worker with the fewest requests in flight (the lowest index on a tie). */
  leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.inFlight.length; i++) if (this.inFlight[i] < this.inFlight[best]) best = i;
    return best;
  }

  /**
   * Runs one executor call on worker `index`, after the calls queued there before it. The worker would serialise the
   * requests anyway; holding it for the whole call also keeps one call's requests together (a QUERY may send the
   * statement and then its empty-twin check as two requests), so no other session's request runs between them.
   */
  async track<T>(index: number, run: (worker: WorkerSqlExecutor) => Promise<T>): Promise<T> {
    this.inFlight[index]++;
    const task = this.turns[index].then(() => run(this.workers[index]));
    this.turns[index] = task.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await task;
    } finally {
      this.inFlight[index]--;
    }
  }

  /** Workers replaced after a timeout or crash, over the pool. */
  restarts(): number {
    return this.workers.reduce((n, w) => n + w.restarts, 0);
  }

  /** An executor for one session. It owns nothing: closing it leaves the pool open. */
  forSession(): SessionSqlExecutor {
    return new SessionSqlExecutor(this);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}

/** One session's view of the pool: the worker its current episode's database copy lives on. */
export class SessionSqlExecutor implements SqlExecutor {
  private readonly pool: SqlPool;
  private index = 0;

  constructor(pool: SqlPool) {
    this.pool = pool;
  }

  /** The worker this session's episode uses (for tests and the benchmark's fault injection). */
  get workerIndex(): number {
    return this.index;
  }

  async load(dbKey: string, bytes: Uint8Array): Promise<void> {
    this.index = this.pool.leastBusy();
    return this.pool.track(this.index, (w) => w.load(dbKey, bytes));
  }
  query(dbKey: string, sql: string, limits?: Partial<ExecLimits>): Promise<QueryResult> {
    return this.pool.track(this.index, (w) => w.query(dbKey, sql, limits));
  }
  tables(dbKey: string): Promise<string[]> {
    return this.pool.track(this.index, (w) => w.tables(dbKey));
  }
  describe(dbKey: string, table: string): Promise<TableInfo> {
    return this.pool.track(this.index, (w) => w.describe(dbKey, table));
  }
  sample(dbKey: string, table: string, rows: number): Promise<QueryResult> {
    return this.pool.track(this.index, (w) => w.sample(dbKey, table, rows));
  }
  /** The pool's workers outlive sessions; nothing to do. */
  async close(): Promise<void> {}
}
