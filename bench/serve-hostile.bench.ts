/**
 * `npm run bench:serve-hostile -- [--flooders 8] [--normal-steps 30] [--abandoners 64] [--slow-readers 60]
 * [--slow-messages 400] [--phases flood,abandon,slow]`: `sqlenv serve` under hostile clients, on loopback only.
 *
 * The server is the real CLI (`bin/sqlenv.mjs serve --port 0`, demo dataset, its default SQL time limit of 2 s and
 * default SQL workers) in a child process, so the memory figures are the server's alone (VmHWM/VmRSS from /proc,
 * Linux only). Each phase gets a fresh server.
 *
 *   flood    A normal session (a trainer's, already playing: reset and two steps) is open; then `--flooders` new
 *            sessions loop runaway queries (each stopped by the time limit); meanwhile the normal session plays
 *            cheap steps (DESCRIBE, then a count query, in turn) until `--normal-steps` steps or 60 s. Prints its
 *            steps/s and p50/p99 step latency; then how long a brand-new session's reset and first QUERY take
 *            under the same flood.
 *   abandon  `--abandoners` sessions each reset, send one runaway query and drop their socket at once; then a new
 *            client connects and resets. Prints how long that reset waited.
 *   slow     `--slow-readers` raw WebSocket clients send `--slow-messages` messages each, 8 every 100 ms (so
 *            fewer than 32 ever wait: this measures unread replies, not the per-connection queue limit), and never
 *            read a byte. Each message is a `state` request with 1,500 unknown keys, answered with 1,500
 *            validation issues (~110 KB; no SQL, so the server keeps up). Prints the server's idle RSS and its
 *            peak, how many of those sockets the server closed, and whether a new client is still served.
 *
 * Bounded: every phase has a deadline (FLOOD 60 s of normal play, ABANDON 150 s for the reset, SLOW 90 s of
 * watching), after which it reports what it got.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SqlEnvClient } from '../src/server/client.ts';

const RUNAWAY_SQL = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
/** A message whose reply is ~110 KB: 1,500 `extra_forbidden` issues. */
const FAT_STATE = JSON.stringify({ type: 'state', ...Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`k${i}`, 0])) });
const FLOOD_DEADLINE_MS = 60_000;
const ABANDON_DEADLINE_MS = 150_000;
const SLOW_WATCH_MS = 90_000;
const BIN = fileURLToPath(new URL('../bin/sqlenv.mjs', import.meta.url));

const { values } = parseArgs({
  options: {
    flooders: { type: 'string', default: '8' },
    'normal-steps': { type: 'string', default: '30' },
    abandoners: { type: 'string', default: '64' },
    'slow-readers': { type: 'string', default: '60' },
    'slow-messages': { type: 'string', default: '400' },
    phases: { type: 'string', default: 'flood,abandon,slow' },
  },
});
const count = (name: 'flooders' | 'normal-steps' | 'abandoners' | 'slow-readers' | 'slow-messages'): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new Error(`--${name} must be a whole number up to 10000, got '${values[name]}'.`);
  return n;
};
const FLOODERS = count('flooders');
const NORMAL_STEPS = count('normal-steps');
const ABANDONERS = count('abandoners');
const SLOW_READERS = count('slow-readers');
const SLOW_MESSAGES = count('slow-messages');
const PHASES = new Set(values.phases.split(','));

interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `sqlenv serve` on a free loopback port with room for every session of the phase. */
async function startServe(maxSessions: number): Promise<Child> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--max-sessions', String(maxSessions)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`sqlenv serve exited before listening: ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      const started = performance.now();
      await exited;
      console.log(`  shutdown (SIGTERM to exit): ${((performance.now() - started) / 1000).toFixed(2)} s`);
    },
  };
}

function procStatusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function flood(): Promise<void> {
  const server = await startServe(FLOODERS + 4);
  const normal = await SqlEnvClient.connect(server.url);
  const table = (await normal.reset({ seed: 7 })).observation.tables[0];
  await normal.step({ action_type: 'DESCRIBE', argument: table });
  await normal.step({ action_type: 'QUERY', argument: `SELECT count(*) FROM ${table}` });
  let stop = false;
  let runaways = 0;
  let started = 0;
  const flooders = Array.from({ length: FLOODERS }, async (_, i) => {
    const client = await SqlEnvClient.connect(server.url);
    try {
      let first = true;
      while (!stop) {
        await client.reset({ seed: i });
        let done = false;
        while (!done && !stop) {
          if (first) started++;
          first = false;
          done = (await client.step({ action_type: 'QUERY', argument: RUNAWAY_SQL })).done;
          runaways++;
        }
      }
    } catch {
      // The server closing at the end of the phase.
    }
    client.socket.terminate();
  });
  while (started < FLOODERS) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));

  const latencies: number[] = [];
  const begin = performance.now();
  let done = false;
  while (latencies.length < NORMAL_STEPS && performance.now() - begin < FLOOD_DEADLINE_MS) {
    // The same seed, so the same database and table in every episode.
    if (done) await normal.reset({ seed: 7 });
    const action = latencies.length % 2 === 0 ? { action_type: 'DESCRIBE' as const, argument: table } : { action_type: 'QUERY' as const, argument: `SELECT count(*) FROM ${table}` };
    const t0 = performance.now();
    done = (await normal.step(action)).done;
    latencies.push(performance.now() - t0);
  }
  const wallS = (performance.now() - begin) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    `flood: ${FLOODERS} sessions looping runaway queries; the normal session: ${latencies.length} steps in ${wallS.toFixed(2)} s = ` +
      `${(latencies.length / wallS).toFixed(2)} steps/s, step p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms; ` +
      `runaway queries answered meanwhile: ${runaways}`,
  );
  const fresh = await SqlEnvClient.connect(server.url);
  const t0 = performance.now();
  const freshTable = (await fresh.reset({ seed: 8 })).observation.tables[0];
  const freshResetMs = performance.now() - t0;
  await Promise.race([fresh.step({ action_type: 'QUERY', argument: `SELECT count(*) FROM ${freshTable}` }), new Promise((r) => setTimeout(r, FLOOD_DEADLINE_MS))]);
  console.log(`flood: a new session under the flood: reset ${freshResetMs.toFixed(0)} ms, reset + first QUERY ${((performance.now() - t0) / 1000).toFixed(2)} s (deadline ${FLOOD_DEADLINE_MS / 1000} s)`);
  stop = true;
  normal.socket.terminate();
  fresh.socket.terminate();
  await server.stop();
  await Promise.all(flooders);
}

async function abandon(): Promise<void> {
  const server = await startServe(ABANDONERS + 4);
  const clients = await Promise.all(Array.from({ length: ABANDONERS }, () => SqlEnvClient.connect(server.url)));
  await Promise.all(clients.map((c, i) => c.reset({ seed: i })));
  for (const c of clients) {
    c.sendRaw(JSON.stringify({ type: 'step', data: { action_type: 'QUERY', argument: RUNAWAY_SQL } }));
    c.socket.terminate();
  }
  const begin = performance.now();
  const fresh = await SqlEnvClient.connect(server.url);
  const reset = await Promise.race([fresh.reset({ seed: 1 }).then(() => 'ok'), new Promise<string>((r) => setTimeout(() => r('deadline'), ABANDON_DEADLINE_MS))]);
  console.log(`abandon: ${ABANDONERS} sessions sent a runaway query and disconnected; a new client's reset: ${reset === 'ok' ? `${((performance.now() - begin) / 1000).toFixed(2)} s` : `not answered within ${ABANDON_DEADLINE_MS / 1000} s`}`);
  fresh.socket.terminate();
  await server.stop();
}

/** One masked client text frame (RFC 6455 §5.2). */
function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const length = payload.length;
  const header = length < 126 ? Buffer.from([0x81, 0x80 | length]) : Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff]);
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

/** A WebSocket client that writes its messages (8 per 100 ms) and never reads: its replies pile up in the server. */
function slowReader(url: string, messages: string[], onClose: () => void): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  socket.on('error', () => undefined);
  socket.once('close', onClose);
  const key = randomBytes(16).toString('base64');
  socket.write(`GET /ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  let sent = 0;
  const timer = setInterval(() => {
    for (let i = 0; i < 8 && sent < messages.length; i++, sent++) socket.write(frame(messages[sent]));
    if (sent >= messages.length) clearInterval(timer);
  }, 100);
  socket.once('close', () => clearInterval(timer));
  return socket;
}

async function slow(): Promise<void> {
  const server = await startServe(SLOW_READERS + 4);
  const pid = server.process.pid ?? 0;
  await new Promise((r) => setTimeout(r, 1000));
  const idle = procStatusMiB(pid, 'VmRSS');
  const messages = Array.from({ length: SLOW_MESSAGES }, () => FAT_STATE);
  let closed = 0;
  const sockets = Array.from({ length: SLOW_READERS }, () => slowReader(server.url, messages, () => closed++));
  const begin = performance.now();
  let last = idle;
  let flatSince = begin;
  while (performance.now() - begin < SLOW_WATCH_MS) {
    await new Promise((r) => setTimeout(r, 250));
    const rss = procStatusMiB(pid, 'VmRSS');
    if (Math.abs(rss - last) > last * 0.02) flatSince = performance.now();
    last = rss;
    if (performance.now() - begin > 10_000 && performance.now() - flatSince > 8_000) break;
  }
  const peak = procStatusMiB(pid, 'VmHWM');
  const watchedS = (performance.now() - begin) / 1000;
  // A paused socket does not report the server's close: read what is left, then count the closed ones.
  for (const s of sockets) s.resume();
  await new Promise((r) => setTimeout(r, 3000));
  const t0 = performance.now();
  const health = await fetch(`${server.url}/health`).then((r) => r.status, (e: unknown) => String(e));
  const probe = await SqlEnvClient.connect(server.url);
  const probed = await probe.reset({ seed: 3 }).then(() => 'ok', (e: unknown) => String(e));
  console.log(
    `slow: ${SLOW_READERS} clients × ${SLOW_MESSAGES} messages, never reading: server RSS idle ${idle.toFixed(0)} MiB, peak (VmHWM) ${peak.toFixed(0)} MiB, now ${last.toFixed(0)} MiB ` +
      `after ${watchedS.toFixed(0)} s; sockets the server had closed (seen once reading): ${closed}/${SLOW_READERS}; ` +
      `then GET /health ${health} and a new client's reset ${probed} in ${(performance.now() - t0).toFixed(0)} ms`,
  );
  probe.socket.terminate();
  for (const s of sockets) s.destroy();
  await server.stop();
}

console.log(`serve-hostile bench on 127.0.0.1 (sqlenv serve, demo dataset, default SQL workers and 2 s time limit), ${new Date().toISOString()}`);
if (PHASES.has('flood')) await flood();
if (PHASES.has('abandon')) await abandon();
if (PHASES.has('slow')) await slow();
