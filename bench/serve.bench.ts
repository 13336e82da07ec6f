/**
 * `npm run bench:serve -- [--sessions 64] [--episodes 4] [--saboteurs 4] [--runaways 3] [--workers N]
 * [--timeout-ms 500]`: a bounded load test of `sqlenv serve` on loopback (127.0.0.1 only, demo dataset).
 *
 * Phase 1: `--sessions` concurrent WebSocket sessions each play `--episodes` episodes, Random and Oracle in turn,
 * with policies computed client-side (`playPolicy`, as `runEpisode` plays them in process). Prints steps/s, p50/p99
 * step round-trip latency, errors (must be 0) and Oracle success. Phase 2: the same episodes again while
 * `--saboteurs` extra sessions send runaway queries (each kills its SQL worker at the time limit, mid-query, with
 * other sessions' requests queued behind it) and half of them close their socket mid-query. Every session must
 * finish, with 0 errors, and every episode must return exactly what it returned in phase 1.
 *
 * Peak RSS is the whole bench process: server, SQL worker threads and the clients. The SQL time limit is
 * `--timeout-ms` (the environment's default is 2,000 ms) so the fault phase stays short; it is the same in both
 * phases. The run is bounded: a phase past its deadline fails the bench.
 */
import { parseArgs } from 'node:util';
import { buildDemoDataset } from '../src/data/demo/build.ts';
import { OraclePolicy } from '../src/policies/oracle.ts';
import type { Policy } from '../src/policies/policy.ts';
import { RandomPolicy } from '../src/policies/random.ts';
import { playPolicy, SqlEnvClient } from '../src/server/client.ts';
import { createServer, defaultSqlWorkers, type RunningServer } from '../src/server/server.ts';
import type { Question } from '../src/data/types.ts';

const RUNAWAY_SQL = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
const PHASE_DEADLINE_MS = 300_000;

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '64' },
    episodes: { type: 'string', default: '4' },
    saboteurs: { type: 'string', default: '4' },
    runaways: { type: 'string', default: '3' },
    workers: { type: 'string', default: String(defaultSqlWorkers()) },
    'timeout-ms': { type: 'string', default: '500' },
  },
});
const count = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got '${values[name]}'.`);
  return n;
};
const SESSIONS = count('sessions');
const EPISODES = count('episodes');
const SABOTEURS = count('saboteurs');
const RUNAWAYS = count('runaways');
const WORKERS = Math.max(1, count('workers'));
const TIMEOUT_MS = Math.max(1, count('timeout-ms'));

interface PhaseResult {
  returns: Map<string, number>;
  latencies: number[];
  steps: number;
  errors: string[];
  wallMs: number;
  oracle: { episodes: number; successes: number };
  sabotage: { runaways: number; abandoned: number };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function player(server: RunningServer, session: number, questions: Map<string, Question>, result: PhaseResult): Promise<void> {
  const client = await SqlEnvClient.connect(server.url);
  try {
    for (let e = 0; e < EPISODES; e++) {
      const policy: Policy = e % 2 === 0 ? new RandomPolicy() : new OraclePolicy();
      const seed = session * 1000 + e;
      const played = await playPolicy(client, policy, { seed, split: 'all' }, questions, (ms) => result.latencies.push(ms));
      result.steps += played.steps;
      result.returns.set(`${policy.name}/${seed}`, played.episodeReturn);
      if (policy.name === 'oracle') {
        result.oracle.episodes++;
        if (played.success) result.oracle.successes++;
      }
    }
  } catch (e) {
    result.errors.push(`session ${session}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Sends runaway queries; odd saboteurs close their socket in the middle of the last one. */
async function saboteur(server: RunningServer, index: number, result: PhaseResult): Promise<void> {
  const client = await SqlEnvClient.connect(server.url);
  await client.reset({ seed: index });
  for (let i = 0; i < RUNAWAYS; i++) {
    const last = i === RUNAWAYS - 1;
    if (last && index % 2 === 1) {
      client.sendRaw(JSON.stringify({ type: 'step', data: { action_type: 'QUERY', argument: RUNAWAY_SQL } }));
      client.socket.terminate();
      result.sabotage.abandoned++;
      return;
    }
    const step = await client.step({ action_type: 'QUERY', argument: RUNAWAY_SQL });
    result.sabotage.runaways++;
    if (!step.observation.error?.includes('time limit')) result.errors.push(`saboteur ${index}: a runaway query was not stopped by the time limit`);
    if (step.done) await client.reset({ seed: index + i + 1 });
  }
  await client.close();
}

async function phase(server: RunningServer, questions: Map<string, Question>, saboteurs: number): Promise<PhaseResult> {
  const result: PhaseResult = { returns: new Map(), latencies: [], steps: 0, errors: [], wallMs: 0, oracle: { episodes: 0, successes: 0 }, sabotage: { runaways: 0, abandoned: 0 } };
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`phase passed its ${PHASE_DEADLINE_MS / 1000} s deadline`)), PHASE_DEADLINE_MS);
  });
  const work = Promise.all([
    ...Array.from({ length: SESSIONS }, (_, s) => player(server, s, questions, result)),
    ...Array.from({ length: saboteurs }, (_, i) => saboteur(server, i, result).catch((e: unknown) => void result.errors.push(`saboteur ${i}: ${String(e)}`))),
  ]);
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
  result.wallMs = performance.now() - started;
  return result;
}

function report(name: string, r: PhaseResult): void {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  console.log(
    `${name.padEnd(8)} ${String(r.steps).padStart(6)} steps in ${(r.wallMs / 1000).toFixed(2)} s: ${(r.steps / (r.wallMs / 1000)).toFixed(0)} steps/s, ` +
      `step p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms, errors ${r.errors.length}, ` +
      `Oracle ${r.oracle.successes}/${r.oracle.episodes} solved`,
  );
  for (const e of r.errors.slice(0, 5)) console.log(`  error: ${e}`);
}

const dataset = await buildDemoDataset();
const questions = new Map(dataset.questions.map((q) => [q.id, q]));
const server = await createServer({ dataset, host: '127.0.0.1', port: 0, maxSessions: SESSIONS + SABOTEURS, sqlWorkers: WORKERS, envConfig: { queryTimeoutMs: TIMEOUT_MS } });
console.log(`sqlenv serve on ${server.url}: ${SESSIONS} sessions × ${EPISODES} episodes (Random/Oracle), ${WORKERS} SQL workers, SQL time limit ${TIMEOUT_MS} ms`);
let failed: boolean;
try {
  const clean = await phase(server, questions, 0);
  report('clean', clean);
  const restartsBefore = server.stats().sqlRestarts;
  const faulty = await phase(server, questions, SABOTEURS);
  report('faults', faulty);
  const restarts = server.stats().sqlRestarts - restartsBefore;
  const changed = [...clean.returns].filter(([key, value]) => faulty.returns.get(key) !== value).length;
  const finished = faulty.returns.size === SESSIONS * EPISODES;
  console.log(
    `faults: ${faulty.sabotage.runaways} runaway queries stopped, ${faulty.sabotage.abandoned} sockets closed mid-query, ${restarts} SQL worker restarts; ` +
      `${faulty.returns.size}/${SESSIONS * EPISODES} episodes finished, ${changed} returns differ from the clean phase`,
  );
  await new Promise((r) => setTimeout(r, 100));
  console.log(`open sessions after both phases: ${server.stats().activeSessions}; peak RSS (server + workers + clients): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  failed = clean.errors.length > 0 || faulty.errors.length > 0 || !finished || changed > 0 || (SABOTEURS > 0 && RUNAWAYS > 0 && restarts === 0) || clean.oracle.successes !== clean.oracle.episodes;
} finally {
  await server.close();
}
if (failed) {
  console.log('FAILED: see above.');
  process.exitCode = 1;
}
