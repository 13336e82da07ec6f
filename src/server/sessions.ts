/**
 * Sessions: one `SqlEnv` episode each, at most `maxSessions` at once, over a shared `SqlPool`.
 *
 * A session holds a slot (0 … maxSessions−1, reused); its database copy lives under the executor key
 * `session-<slot>`, so no two live sessions share a copy and memory stays bounded by the slot count. Work on a
 * session runs one operation at a time (`run`), and `close` drops its SQL calls still queued in the pool, then waits
 * for the operation in flight (a statement already running finishes, or hits its time limit, before the slot is
 * reused). A session idle for longer than
 * `idleTimeoutMs` is reported to its owner through `onIdle`, which closes it (OpenEnv's reaper, http_server.py
 * `_reap_idle_sessions`, checks every max(timeout/4, 5 s); here every timeout/4 so short timeouts work in tests).
 */
import { randomUUID } from 'node:crypto';
import type { Dataset } from '../data/types.ts';
import { SqlEnv } from '../env/env.ts';
import type { EnvConfig, ResetOptions } from '../env/types.ts';
import type { ResetParams, SqlActionWire, WireState, WireStepResult } from './protocol.ts';
import type { SessionSqlExecutor, SqlPool } from './sql-pool.ts';
import { toActionInput, wireReset, wireState, wireStep } from './wire.ts';
import { SerialQueue } from '../util/serial-queue.ts';

/** The server is full: OpenEnv's SessionCapacityError, sent as CAPACITY_REACHED. */
export class SessionCapacityError extends Error {
  readonly activeSessions: number;
  readonly maxSessions: number;
  constructor(activeSessions: number, maxSessions: number) {
    super(`Server at capacity: ${activeSessions}/${maxSessions} sessions are open. Close one, or start the server with a larger --max-sessions.`);
    this.name = 'SessionCapacityError';
    this.activeSessions = activeSessions;
    this.maxSessions = maxSessions;
  }
}

/** The session was closed (by its client, the idle reaper or shutdown) while work was still sent to it. */
export class SessionClosedError extends Error {
  constructor(id: string) {
    super(`Session ${id} is closed; open a new connection to play another episode.`);
    this.name = 'SessionClosedError';
  }
}

/** A dataset whose database bytes are read once and shared by every session (Spider files are read from disk). */
export function sharedBytes(dataset: Dataset): Dataset {
  const cache = new Map<string, Promise<Uint8Array>>();
  return {
    ...dataset,
    loadDatabase: (dbId) => {
      let bytes = cache.get(dbId);
      if (!bytes) {
        bytes = dataset.loadDatabase(dbId);
        cache.set(dbId, bytes);
        bytes.catch(() => cache.delete(dbId));
      }
      return bytes;
    },
  };
}

export class Session {
  readonly id = randomUUID();
  readonly slot: number;
  readonly executor: SessionSqlExecutor;
  lastActivity: number;
  /** Set by the owner: what to do when the reaper finds the session idle. */
  onIdle: (() => void) | null = null;
  private readonly env: SqlEnv;
  private readonly defaults: ResetOptions;
  private episodeId: string | null = null;
  private started = false;
  private closed = false;
  /** This session's operations, one at a time in arrival order. */
  private readonly operations = new SerialQueue();

  constructor(slot: number, env: SqlEnv, executor: SessionSqlExecutor, defaults: ResetOptions, now: number) {
    this.slot = slot;
    this.env = env;
    this.executor = executor;
    this.defaults = defaults;
    this.lastActivity = now;
  }

  get isBusy(): boolean {
    return this.operations.size > 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `work` after every earlier operation of this session; rejects with SessionClosedError once closed. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.operations.run(async () => {
      if (this.closed) throw new SessionClosedError(this.id);
      return work();
    });
  }

  async reset(params: ResetParams): Promise<WireStepResult> {
    const options: ResetOptions = {
      ...this.defaults,
      ...(params.seed !== undefined && { seed: params.seed }),
      ...(params.question_id !== undefined && { questionId: params.question_id }),
      ...(params.split !== undefined && { split: params.split }),
      ...(params.difficulty !== undefined && { difficulty: params.difficulty }),
      ...(params.db_id !== undefined && { dbId: params.db_id }),
    };
    const reset = await this.env.reset(options);
    this.started = true;
    this.episodeId = params.episode_id ?? randomUUID();
    return wireReset(reset, this.episodeId);
  }

  async step(action: SqlActionWire): Promise<WireStepResult> {
    const result = await this.env.step(toActionInput(action));
    return wireStep(result, this.episodeId ?? '');
  }

  state(): WireState {
    return wireState(this.started ? this.env.state() : null, this.episodeId);
  }

  /**
   * Drops the session's SQL calls still waiting for a worker (nobody will read their replies), waits for the operation
   * in flight (a statement already running ends by itself or at its time limit), then ends the episode. Harmless twice.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.executor.close();
    await this.operations.idle();
    this.env.close();
  }
}

export interface SessionManagerOptions {
  dataset: Dataset;
  pool: SqlPool;
  maxSessions: number;
  /** Reset options a reset without them uses (the CLI's --split). */
  resetDefaults?: ResetOptions;
  envConfig?: Partial<EnvConfig>;
  /** Close a session after this long without a message; 0 disables. */
  idleTimeoutMs: number;
  /** Milliseconds; injectable for tests. */
  now?: () => number;
}

export class SessionManager {
  readonly maxSessions: number;
  private readonly options: SessionManagerOptions;
  private readonly dataset: Dataset;
  private readonly now: () => number;
  private readonly sessions = new Map<string, Session>();
  private readonly freeSlots: number[];
  private reaper: ReturnType<typeof setInterval> | null = null;

  constructor(options: SessionManagerOptions) {
    if (!Number.isInteger(options.maxSessions) || options.maxSessions < 1) throw new RangeError(`maxSessions must be an integer ≥ 1, got ${options.maxSessions}.`);
    this.options = options;
    this.maxSessions = options.maxSessions;
    this.dataset = sharedBytes(options.dataset);
    this.now = options.now ?? (() => Date.now());
    // Lowest slot first, so a quiet server reuses the same few database keys.
    this.freeSlots = Array.from({ length: options.maxSessions }, (_, i) => options.maxSessions - 1 - i);
    if (options.idleTimeoutMs > 0) {
      this.reaper = setInterval(() => this.reap(), Math.max(10, options.idleTimeoutMs / 4));
      this.reaper.unref();
    }
  }

  get active(): number {
    return this.sessions.size;
  }

  /** Slots taken: the open sessions and the closed ones whose operation in flight has not settled yet. */
  get slotsHeld(): number {
    return this.maxSessions - this.freeSlots.length;
  }

  /** A new session, or SessionCapacityError when every slot is taken (slots free when a close completes). */
  open(): Session {
    const slot = this.freeSlots.pop();
    if (slot === undefined) throw new SessionCapacityError(this.slotsHeld, this.maxSessions);
    const executor = this.options.pool.forSession();
    const env = new SqlEnv(this.dataset, executor, this.options.envConfig, { dbKey: () => `session-${slot}` });
    const session = new Session(slot, env, executor, this.options.resetDefaults ?? {}, this.now());
    this.sessions.set(session.id, session);
    return session;
  }

  touch(session: Session): void {
    session.lastActivity = this.now();
  }

  /** Closes the session and frees its slot once its operation in flight has settled. */
  async close(session: Session): Promise<void> {
    if (!this.sessions.has(session.id)) return;
    this.sessions.delete(session.id);
    try {
      await session.close();
    } finally {
      this.freeSlots.push(session.slot);
    }
  }

  private reap(): void {
    const now = this.now();
    for (const session of this.sessions.values()) {
      if (!session.isBusy && now - session.lastActivity > this.options.idleTimeoutMs) {
        if (session.onIdle) session.onIdle();
        else void this.close(session);
      }
    }
  }

  /** Closes every session (after its operation in flight) and stops the reaper. */
  async closeAll(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = null;
    await Promise.all([...this.sessions.values()].map((s) => this.close(s)));
  }
}
