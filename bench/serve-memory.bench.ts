/**
 * `npm run bench:serve-memory -- [--mb 150] [--sessions 24] [--workers N] [--db /tmp/sqlenv-serve-memory.sqlite]`:
 * peak memory of the OpenEnv server when many sessions play on one large database. `--workers` defaults to the
 * server's own default (min(4, cores)).
 *
 * Builds (once, outside the repository) a SQLite file of about `--mb` MB: one table `t(id, payload)` of random
 * 64-byte hex strings. Then starts the server in a child process (so its peak RSS is the server's alone: the main
 * thread and every SQL worker thread), opens `--sessions` WebSocket sessions, and in each one resets (which loads
 * the database on a SQL worker), DESCRIBEs `t` and runs one QUERY (`--no-query` leaves the QUERY out, and with it
 * the perturbed copies a QUERY builds: what is left is the sessions' own database memory). Prints the child's peak RSS (VmHWM) and its RSS
 * at the end (VmRSS), read from /proc (Linux only), and the database's size, so the figure reads as
 * "sessions × size" or "workers × size".
 *
 * The same file is the child: `--serve <db>` starts the server on a one-question dataset over that file and prints
 * its URL as one JSON line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import initSqlJs from 'sql.js';
import type { Dataset } from '../src/data/types.ts';
import { SqlEnvClient } from '../src/server/client.ts';
import { createServer, defaultSqlWorkers } from '../src/server/server.ts';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '150' },
    sessions: { type: 'string', default: '24' },
    workers: { type: 'string', default: String(defaultSqlWorkers()) },
    db: { type: 'string', default: '/tmp/sqlenv-serve-memory.sqlite' },
    serve: { type: 'string' },
    'no-query': { type: 'boolean', default: false },
  },
});

function whole(name: 'mb' | 'sessions' | 'workers'): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got '${values[name]}'.`);
  return n;
}

/** Bytes per row: an integer id and a 128-character hex payload, plus SQLite's record and page overhead. */
const APPROX_ROW_BYTES = 140;

async function buildDatabase(path: string, mb: number): Promise<void> {
  const sql = await initSqlJs();
  const db = new sql.Database();
  const rows = Math.ceil((mb * 1024 * 1024) / APPROX_ROW_BYTES);
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
  db.run(`INSERT INTO t (payload) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${rows}) SELECT hex(randomblob(64)) FROM c`);
  writeFileSync(path, db.export());
  db.close();
}

async function serve(dbPath: string, workers: number, sessions: number): Promise<void> {
  const rowCount = Number(readFileSync(`${dbPath}.rows`, 'utf8'));
  const dataset: Dataset = {
    name: 'serve-memory',
    description: 'one large generated database (bench/serve-memory.bench.ts)',
    license: 'generated',
    databases: [{ id: 'big', file: 'big.sqlite', tables: ['t'] }],
    questions: [
      {
        id: 'big-0',
        dbId: 'big',
        question: 'How many rows does t have?',
        gold: 'SELECT count(*) FROM t',
        goldResult: { columns: ['count(*)'], rows: [[rowCount]] },
        orderMatters: false,
        difficulty: 'easy',
        split: 'train',
      },
    ],
    loadDatabase: async () => new Uint8Array(await readFile(dbPath)),
  };
  const server = await createServer({ dataset, port: 0, sqlWorkers: workers, maxSessions: sessions + 4 });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

function procStatusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field} (Linux only).`);
  return Number(line.split(/\s+/)[1]);
}

function childUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve((JSON.parse(buffered.slice(0, newline)) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`server child exited with code ${code} before listening`)));
  });
}

async function main(): Promise<void> {
  const dbPath = values.db;
  const sessions = whole('sessions');
  const workers = whole('workers');
  if (values.serve !== undefined) return serve(values.serve, workers, sessions);

  if (!existsSync(dbPath) || !existsSync(`${dbPath}.rows`)) {
    process.stderr.write(`building ${dbPath} (~${whole('mb')} MB)…\n`);
    await buildDatabase(dbPath, whole('mb'));
    const sql = await initSqlJs();
    const db = new sql.Database(readFileSync(dbPath));
    writeFileSync(`${dbPath}.rows`, String(db.exec('SELECT count(*) FROM t')[0].values[0][0]));
    db.close();
  }
  const dbMiB = statSync(dbPath).size / 1024 / 1024;

  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [...process.execArgv, self, '--serve', dbPath, '--workers', String(workers), '--sessions', String(sessions)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await childUrl(child);
    const pid = child.pid;
    if (pid === undefined) throw new Error('server child has no pid');
    const idleKiB = procStatusKiB(pid, 'VmRSS');
    const clients = await Promise.all(Array.from({ length: sessions }, () => SqlEnvClient.connect(url)));
    const started = performance.now();
    let errors = 0;
    await Promise.all(
      clients.map(async (client) => {
        await client.reset({ split: 'all' });
        const described = await client.step({ action_type: 'DESCRIBE', argument: 't' });
        if (described.observation.error !== null) errors++;
        if (values['no-query']) return;
        const queried = await client.step({ action_type: 'QUERY', argument: 'SELECT count(*) FROM t' });
        if (queried.observation.error !== null) errors++;
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    const peakKiB = procStatusKiB(pid, 'VmHWM');
    const endKiB = procStatusKiB(pid, 'VmRSS');
    await Promise.all(clients.map((c) => c.close()));
    const mib = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`;
    console.log(`database: ${dbMiB.toFixed(1)} MiB, sessions: ${sessions}, SQL workers: ${workers}`);
    console.log(`server RSS idle: ${mib(idleKiB)}; peak (VmHWM): ${mib(peakKiB)}; after all steps: ${mib(endKiB)}`);
    console.log(`peak over idle: ${((peakKiB - idleKiB) / 1024 / dbMiB).toFixed(1)} × the database size; ${wallS.toFixed(1)} s for reset+DESCRIBE${values['no-query'] ? '' : '+QUERY'} in every session; step errors: ${errors}`);
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
