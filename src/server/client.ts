/**
 * A small Node client for the server's WebSocket protocol (what OpenEnv's Python EnvClient does), for tests and
 * the load benchmark: `reset`/`step`/`state` resolve with the reply's `data` and reject with `ServerReplyError` on an
 * error reply. `observationFromWire` turns a wire observation back into the environment's `Observation`, so the
 * project's policies can play against a server exactly as they play in process.
 *
 * Replies come in order, one per message, so a FIFO of waiters is enough. Lower-level `sendRaw`/`next` exist for
 * tests that send malformed input. `playPolicy` plays a project policy through the server as `runEpisode` does in
 * process, so the two can be compared step by step.
 */
import WebSocket from 'ws';
import type { Question } from '../data/types.ts';
import { formatAction, normalizeAction } from '../env/actions.ts';
import type { Observation } from '../env/types.ts';
import { policyRng } from '../eval/episode.ts';
import type { HistoryEntry, Policy } from '../policies/policy.ts';
import type { SqlValue, TableInfo } from '../sql/types.ts';
import type { ResetParams, SqlActionWire, WireObservation, WireState, WireStepResult, WireTable, WireValue, WSErrorData, WSOutgoing } from './protocol.ts';

/** The server answered with `{"type": "error"}`. */
export class ServerReplyError extends Error {
  readonly data: WSErrorData;
  constructor(data: WSErrorData) {
    super(`Server error: ${data.message} (code: ${data.code})`);
    this.name = 'ServerReplyError';
    this.data = data;
  }
}

interface Waiter {
  resolve: (message: WSOutgoing) => void;
  reject: (error: Error) => void;
}

export class SqlEnvClient {
  readonly socket: WebSocket;
  /** Settles with the close code and reason when the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly inbox: WSOutgoing[] = [];
  private readonly waiters: Waiter[] = [];
  private closeError: Error | null = null;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as WSOutgoing;
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(message);
      else this.inbox.push(message);
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        this.closeError = new Error(`WebSocket closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`);
        for (const w of this.waiters.splice(0)) w.reject(this.closeError);
        resolve({ code, reason: reason.toString() });
      });
    });
    socket.on('error', () => undefined);
  }

  /** Connects to `baseUrl` (http:// or ws://), path /ws. */
  static connect(baseUrl: string): Promise<SqlEnvClient> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new SqlEnvClient(socket)));
      socket.once('error', reject);
    });
  }

  sendRaw(data: string | Buffer, options: { binary?: boolean } = {}): void {
    this.socket.send(data, { binary: options.binary ?? false });
  }

  /** The next message from the server, in order. */
  next(): Promise<WSOutgoing> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (this.closeError) return Promise.reject(this.closeError);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private async request(message: unknown): Promise<WSOutgoing> {
    const reply = this.next();
    this.sendRaw(JSON.stringify(message));
    const answer = await reply;
    if (answer.type === 'error') throw new ServerReplyError(answer.data);
    return answer;
  }

  async reset(params: ResetParams = {}): Promise<WireStepResult> {
    const reply = await this.request({ type: 'reset', data: params });
    if (reply.type !== 'observation') throw new Error(`Expected an observation, got '${reply.type}'.`);
    return reply.data;
  }

  async step(action: SqlActionWire): Promise<WireStepResult> {
    const reply = await this.request({ type: 'step', data: action });
    if (reply.type !== 'observation') throw new Error(`Expected an observation, got '${reply.type}'.`);
    return reply.data;
  }

  async state(): Promise<WireState> {
    const reply = await this.request({ type: 'state' });
    if (reply.type !== 'state') throw new Error(`Expected a state, got '${reply.type}'.`);
    return reply.data;
  }

  /** Sends `close` and waits for the socket to close. */
  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.sendRaw(JSON.stringify({ type: 'close' }));
    await this.closed;
  }
}

function sqlValue(value: WireValue): SqlValue {
  return typeof value === 'object' && value !== null ? new Uint8Array(Buffer.from(value.$blob, 'hex')) : value;
}

function tableInfo(table: WireTable): TableInfo {
  return {
    name: table.name,
    columns: table.columns.map((c) => ({ name: c.name, type: c.type, notNull: c.not_null, primaryKey: c.primary_key })),
    foreignKeys: table.foreign_keys.map((f) => ({ column: f.column, refTable: f.ref_table, refColumn: f.ref_column })),
    rowCount: table.row_count,
  };
}

/** The environment's Observation for a wire observation (the inverse of wire.ts's conversion). */
export function observationFromWire(o: WireObservation): Observation {
  return {
    text: o.text,
    question: o.question,
    dbId: o.db_id,
    tables: o.tables,
    stepsLeft: o.steps_left,
    ...(o.result && { result: { columns: o.result.columns, rows: o.result.rows.map((r) => r.map(sqlValue)), totalRows: o.result.total_rows } }),
    ...(o.table && { table: tableInfo(o.table) }),
    ...(o.error !== null && { error: o.error }),
  };
}

/** A SQLAction for an action object of the environment (what a policy returns), or null for one it cannot express. */
export function actionToWire(action: unknown): SqlActionWire | null {
  if (typeof action !== 'object' || action === null) return null;
  const a = action as Record<string, unknown>;
  switch (a.type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return typeof a.table === 'string' ? { action_type: a.type, argument: a.table } : null;
    case 'QUERY':
      return typeof a.sql === 'string' ? { action_type: 'QUERY', argument: a.sql } : null;
    case 'ANSWER':
      return a.value === undefined ? null : { action_type: 'ANSWER', argument: typeof a.value === 'string' ? a.value : JSON.stringify(a.value) };
    default:
      return null;
  }
}

export interface PlayedEpisode {
  questionId: string;
  rewards: number[];
  texts: string[];
  episodeReturn: number;
  success: boolean;
  steps: number;
}

/**
 * Plays one episode of `policy` through the server, as `runEpisode` (src/eval/episode.ts) plays it in process: the
 * same reset, the same policy generator, the same history. `questions` gives the policy the episode's question (only
 * Oracle reads its gold). `onStep` sees each step's round trip time in milliseconds (for the benchmark).
 */
export async function playPolicy(
  client: SqlEnvClient,
  policy: Policy,
  reset: ResetParams & { seed: number },
  questions: ReadonlyMap<string, Question>,
  onStep?: (ms: number) => void,
): Promise<PlayedEpisode> {
  const start = await client.reset(reset);
  const questionId = String(start.observation.metadata.question_id);
  const question = questions.get(questionId);
  if (!question) throw new Error(`The server played question '${questionId}', which the client's dataset does not have.`);
  const first = observationFromWire(start.observation);
  const rng = policyRng(reset.seed);
  const history: HistoryEntry[] = [];
  const played: PlayedEpisode = { questionId, rewards: [], texts: [first.text], episodeReturn: 0, success: false, steps: 0 };
  let observation = first;
  let done = false;
  while (!done) {
    const decision = await policy.act({ first, history, observation, question, rng });
    const action = normalizeAction(decision.action);
    const wire = actionToWire(action);
    if (!wire) throw new Error(`Policy '${policy.name}' chose an action a SQLAction cannot carry: ${formatAction(action)}`);
    const started = performance.now();
    const result = await client.step(wire);
    onStep?.(performance.now() - started);
    observation = observationFromWire(result.observation);
    history.push({ action, observation, reward: result.reward ?? 0 });
    played.rewards.push(result.reward ?? 0);
    played.texts.push(observation.text);
    played.episodeReturn = Number(result.observation.metadata.episode_return);
    played.success = result.observation.metadata.correct === true;
    played.steps++;
    done = result.done;
  }
  return played;
}
