/**
 * A fixed pool of killable SQL workers shared by every session of the server, with a scheduler that keeps one
 * session's runaway queries from stalling everyone else.
 *
 * Each `WorkerSqlExecutor` runs one request at a time and restarts its worker when a statement passes its time limit.
 * The pool hands a worker one executor call at a time (a call may send several requests, e.g. building copies and
 * running on them; they stay together), from one queue for the whole pool:
 *
 * - Order: waiting calls run in arrival order, except that a call of a *heavy* session (one whose query recently ran
 *   for `heavyCallMs` or more: a runaway, or close to one) lets up to HEAVY_YIELD later calls of other sessions go
 *   first. Each session has at most one call waiting (a session runs one operation at a time), so this is round-robin
 *   across sessions, with light ones ahead.
 * - Reserve: with two or more workers, work that may run away — calls of heavy sessions, queries of sessions not yet
 *   known to be light (no quick query so far: a fresh session could be a flood of one-shot runaways), and any call
 *   already running for `heavyCallMs` — may occupy at most workers − 1 of them. One worker always stays free for
 *   resets, DESCRIBE/SAMPLE and the queries of known-light sessions: their steps never wait for a runaway's time
 *   limit, whatever other sessions send. (A new session's first query may wait for one.)
 * - Affinity: a call goes to a free worker that already holds its database; when none is free it moves to another
 *   free worker, which opens the database from the bytes this session loaded (shared per content by the worker).
 * - Cancelling: a closed session's waiting calls are dropped at once (its socket went away: nobody reads the reply);
 *   `close()` drops every waiting call and terminates the workers, so shutdown never waits behind queued queries.
 */
import type { SqlExecutor } from '../sql/executor.ts';
import { spawnNodeSqlWorker } from '../sql/node-worker.ts';
import type { CopiesRun, ExecLimits, QueryResult, TableInfo } from '../sql/types.ts';
import { WorkerSqlExecutor } from '../sql/worker-executor.ts';
import type { WorkerPort } from '../sql/worker-protocol.ts';
import { CancelledError } from '../util/cancelled.ts';

/** A heavy session's waiting call lets this many later calls of other sessions run first (bounds its wait in calls). */
export const HEAVY_YIELD = 64;
/** A query running at least this long marks its session heavy (the environment's time limit is 2,000 ms). */
export const DEFAULT_HEAVY_CALL_MS = 250;
/** A heavy session becomes light again after this many quick queries in a row. */
const HEAVY_MEMORY = 8;

/** The session's executor, or the pool, was closed while a call was waiting: the one CancelledError. */
function sqlCallDropped(reason: string): CancelledError {
  return new CancelledError(`SQL call dropped: ${reason}.`);
}

/** Makes one worker executor over a transport; the pool passes its own spawner so `close` can terminate workers. */
export type SqlWorkerFactory = (spawn: () => WorkerPort) => WorkerSqlExecutor;

export interface SqlPoolOptions {
  create?: SqlWorkerFactory;
  heavyCallMs?: number;
  /** Milliseconds; injectable for tests. */
  now?: () => number;
}

interface Call {
  owner: SessionSqlExecutor;
  dbKey: string;
  /** Runs the session's own SQL: its duration decides whether the session is heavy. */
  isQuery: boolean;
  /** Arrival order; a heavy session's call is ordered HEAVY_YIELD places later. */
  rank: number;
  run: (worker: WorkerSqlExecutor, index: number) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Running {
  /** Whether the call could run away (see `mayRunAway`), as judged when it started. */
  risky: boolean;
  startedAt: number;
}

/** Calls the reserve keeps off the last free worker. */
function mayRunAway(call: Call): boolean {
  return call.owner.isHeavy || (call.isQuery && !call.owner.isKnownLight);
}

export class SqlPool {
  readonly workers: readonly WorkerSqlExecutor[];
  private readonly running: Array<Running | null>;
  /** Per worker: its restart count when it last ran a call (−1: never ran one, no thread started yet). */
  private readonly warmAt: number[];
  private readonly waiting: Call[] = [];
  private readonly ports = new Set<WorkerPort>();
  private readonly heavyCallMs: number;
  private readonly now: () => number;
  private arrivals = 0;
  private closing: Promise<void> | null = null;

  constructor(size: number, options: SqlPoolOptions = {}) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`SQL pool size must be an integer ≥ 1, got ${size}.`);
    const create = options.create ?? ((spawn) => new WorkerSqlExecutor(spawn));
    this.workers = Array.from({ length: size }, () => create(() => this.track(spawnNodeSqlWorker())));
    this.running = new Array<Running | null>(size).fill(null);
    this.warmAt = new Array<number>(size).fill(-1);
    this.heavyCallMs = options.heavyCallMs ?? DEFAULT_HEAVY_CALL_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** Keeps each live worker transport, so `close` can terminate a statement still running. */
  private track(port: WorkerPort): WorkerPort {
    this.ports.add(port);
    return {
      send: (request) => port.send(request),
      onResponse: (handler) => port.onResponse(handler),
      onFailure: (handler) => port.onFailure(handler),
      terminate: () => {
        this.ports.delete(port);
        port.terminate();
      },
    };
  }

  /** Workers replaced after a timeout or crash, over the pool. */
  restarts(): number {
    return this.workers.reduce((n, w) => n + w.restarts, 0);
  }

  /** Calls waiting for a worker, over every session. */
  get waitingCalls(): number {
    return this.waiting.length;
  }

  /** An executor for one session. Closing it drops its waiting calls and leaves the pool open. */
  forSession(): SessionSqlExecutor {
    return new SessionSqlExecutor(this);
  }

  /** Queues `run` for a worker; see the header for the order. */
  submit<T>(owner: SessionSqlExecutor, dbKey: string, isQuery: boolean, run: (worker: WorkerSqlExecutor, index: number) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(sqlCallDropped('the server is shutting down'));
    if (owner.isClosed) return Promise.reject(sqlCallDropped('the session is closed'));
    return new Promise<T>((resolve, reject) => {
      const rank = this.arrivals++ + (owner.isHeavy ? HEAVY_YIELD : 0);
      this.waiting.push({ owner, dbKey, isQuery, rank, run, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Gives back `dbKey` on worker `index` (a closed session's copy); a failure there only leaves it loaded. */
  release(index: number, dbKey: string): Promise<void> {
    return this.workers[index].unload(dbKey).catch(() => undefined);
  }

  /** Drops the waiting calls of `owner`. */
  cancel(owner: SessionSqlExecutor, reason: string): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i].owner !== owner) continue;
      this.waiting.splice(i, 1)[0].reject(sqlCallDropped(reason));
    }
  }

  private isRiskyRun(r: Running, now: number): boolean {
    return r.risky || now - r.startedAt >= this.heavyCallMs;
  }

  /** Starts waiting calls on free workers while any can start. */
  private dispatch(): void {
    for (;;) {
      const free = this.running.flatMap((r, i) => (r === null ? [i] : []));
      if (free.length === 0 || this.waiting.length === 0) return;
      const now = this.now();
      const riskyRunning = this.running.filter((r) => r !== null && this.isRiskyRun(r, now)).length;
      const riskyAllowed = this.workers.length === 1 || riskyRunning < this.workers.length - 1;
      let best = -1;
      for (let i = 0; i < this.waiting.length; i++) {
        const call = this.waiting[i];
        if (!riskyAllowed && mayRunAway(call)) continue;
        if (best === -1 || call.rank < this.waiting[best].rank) best = i;
      }
      if (best === -1) return;
      const call = this.waiting.splice(best, 1)[0];
      this.start(call, this.pick(call, free));
    }
  }

  /**
   * The free worker for `call`: one that holds its database if possible. Work that may run away prefers workers
   * that must restart anyway (a thread start costs 0.1–5 s); other work prefers warm ones.
   */
  private pick(call: Call, free: number[]): number {
    const warm = (i: number): boolean => this.warmAt[i] === this.workers[i].restarts;
    const wantWarm = !mayRunAway(call);
    const holds = (i: number): boolean => call.owner.holds(call.dbKey, i);
    return free.find((i) => warm(i) === wantWarm && holds(i)) ?? free.find((i) => warm(i) === wantWarm) ?? free.find(holds) ?? free[0];
  }

  /** Starts the thread of a worker replaced after a timeout (and reopens `dbKey`), keeping it busy meanwhile. */
  private async warmUp(index: number, dbKey: string): Promise<void> {
    const worker = this.workers[index];
    await worker.tables(dbKey).catch(() => undefined);
    this.warmAt[index] = worker.restarts;
  }

  private start(call: Call, index: number): void {
    const running: Running = { risky: mayRunAway(call), startedAt: this.now() };
    this.running[index] = running;
    const worker = this.workers[index];
    void (async () => {
      try {
        await call.owner.openOn(worker, index, call.dbKey);
        // A worker not started yet starts its thread (and reopens the database) first, so a quick query is not
        // timed (and marked heavy) with a thread start.
        if (this.warmAt[index] !== worker.restarts) await this.warmUp(index, call.dbKey);
        running.startedAt = this.now();
        const value = await call.run(worker, index);
        if (call.isQuery) call.owner.record(this.now() - running.startedAt >= this.heavyCallMs);
        call.resolve(value);
      } catch (e) {
        if (call.isQuery) call.owner.record(this.now() - running.startedAt >= this.heavyCallMs);
        call.reject(e);
      } finally {
        // A worker replaced during the call (a timeout) is started again now, before anyone needs it.
        if (this.warmAt[index] !== worker.restarts && !this.closing) await this.warmUp(index, call.dbKey);
        this.running[index] = null;
        this.dispatch();
      }
    })();
  }

  /** Drops every waiting call, terminates statements still running, and closes the workers. Harmless twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const call of this.waiting.splice(0)) call.reject(sqlCallDropped('the server is shutting down'));
      for (const port of [...this.ports]) port.terminate();
      this.ports.clear();
      await Promise.all(this.workers.map((w) => w.close()));
    })();
    return this.closing;
  }
}

/**
 * One session's view of the pool. It remembers the bytes of each database it loaded, so any worker can open them,
 * and on which workers each is open now.
 */
export class SessionSqlExecutor implements SqlExecutor {
  private readonly pool: SqlPool;
  private readonly bytes = new Map<string, Uint8Array>();
  /** Per database key: the workers that were given these bytes. */
  private readonly openOnWorkers = new Map<string, Set<number>>();
  /** Quick queries still needed before the session counts as light again. */
  private heavyCredits = 0;
  private quickQueries = 0;
  private closed = false;

  constructor(pool: SqlPool) {
    this.pool = pool;
  }

  get isHeavy(): boolean {
    return this.heavyCredits > 0;
  }

  /** At least one quick query so far, and not heavy now. */
  get isKnownLight(): boolean {
    return this.quickQueries > 0 && this.heavyCredits === 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether worker `index` holds this session's current copy of `dbKey`. */
  holds(dbKey: string, index: number): boolean {
    return this.openOnWorkers.get(dbKey)?.has(index) ?? false;
  }

  /** Gives worker `index` this session's bytes of `dbKey` if it does not hold them yet (a call moved there). */
  async openOn(worker: WorkerSqlExecutor, index: number, dbKey: string): Promise<void> {
    const bytes = this.bytes.get(dbKey);
    if (!bytes || this.holds(dbKey, index)) return;
    await worker.load(dbKey, bytes);
    this.openOnWorkers.get(dbKey)?.add(index);
  }

  /** Notes how one query went: slow ones make the session heavy for its next HEAVY_MEMORY queries. */
  record(slow: boolean): void {
    this.heavyCredits = slow ? HEAVY_MEMORY : Math.max(0, this.heavyCredits - 1);
    if (!slow) this.quickQueries++;
  }

  load(dbKey: string, bytes: Uint8Array): Promise<void> {
    this.bytes.delete(dbKey);
    this.openOnWorkers.delete(dbKey);
    return this.pool.submit(this, dbKey, false, async (w, index) => {
      await w.load(dbKey, bytes);
      this.bytes.set(dbKey, bytes);
      this.openOnWorkers.set(dbKey, new Set([index]));
    });
  }
  query(dbKey: string, sql: string, limits?: Partial<ExecLimits>): Promise<QueryResult> {
    return this.pool.submit(this, dbKey, true, (w) => w.query(dbKey, sql, limits));
  }
  runOnCopies(dbKey: string, sql: string, goldSql: string, limits?: Partial<ExecLimits>): Promise<CopiesRun> {
    // The agent's statement runs again on each copy, so it may run away like a query.
    return this.pool.submit(this, dbKey, true, (w) => w.runOnCopies(dbKey, sql, goldSql, limits));
  }
  tables(dbKey: string): Promise<string[]> {
    return this.pool.submit(this, dbKey, false, (w) => w.tables(dbKey));
  }
  describe(dbKey: string, table: string): Promise<TableInfo> {
    return this.pool.submit(this, dbKey, false, (w) => w.describe(dbKey, table));
  }
  sample(dbKey: string, table: string, rows: number): Promise<QueryResult> {
    return this.pool.submit(this, dbKey, false, (w) => w.sample(dbKey, table, rows));
  }
  /**
   * Drops this session's waiting calls and gives back its database keys on every worker that opened them (a worker
   * closes a shared read-only connection when no session uses it any more); the pool's workers outlive sessions.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.cancel(this, 'the session is closed');
    const opened = [...this.openOnWorkers].flatMap(([dbKey, indices]) => [...indices].map((index) => ({ dbKey, index })));
    this.openOnWorkers.clear();
    this.bytes.clear();
    await Promise.all(opened.map(({ dbKey, index }) => this.pool.release(index, dbKey)));
  }
}
