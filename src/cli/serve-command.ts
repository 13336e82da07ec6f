/**
 * `sqlenv serve`: the environment as an OpenEnv server (src/server), for trainers outside the browser (TRL's
 * GRPOTrainer through OpenEnv's EnvClient). Prints one line with the URL on stderr once listening; runs until
 * SIGINT or SIGTERM, then closes every session and SQL worker and returns 0.
 *
 * Security defaults (docs/server-security.md): loopback only; Host must be a loopback name (or an `--allow-host`),
 * a browser page may use the server only from its own origin or an `--allow-origin`; `--token` (or SQLENV_TOKEN)
 * requires a token on every request but /health and the page. Binding to every interface (0.0.0.0, ::) prints a
 * warning.
 *
 * The built page (`npm run build` → dist/ of this package, or `--web DIR`) is served at /web/, as an OpenEnv Space
 * shows it; the URL line says whether it is there.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { DEFAULT_MAX_CONNECTIONS } from '../server/connection-limit.ts';
import { WILDCARD_HOSTS } from '../server/origin-policy.ts';
import { createServer, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS } from '../server/server.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { choice, integer, UsageError } from './args.ts';
import { createProgress } from './progress.ts';

export const SERVE_USAGE =
  'sqlenv serve [--host 127.0.0.1] [--port 8000] [--dataset demo|spider] [--split train|eval|heldout|all] [--max-sessions N] [--idle-timeout SECONDS] ' +
  '[--max-connections N] [--allow-origin ORIGIN]... [--allow-host NAME]... [--token TOKEN] [--web DIR]';

/** The page `serve` shows at /web/ unless --web says otherwise: this package's build. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../dist', import.meta.url));

/** The environment variable a token may come from instead of --token (which other users can read in `ps`). */
export const TOKEN_ENV = 'SQLENV_TOKEN';

const SERVE_HELP = `Usage: ${SERVE_USAGE}

Serves the environment over OpenEnv's HTTP and WebSocket protocol (GET /health, /metadata, /schema, /state;
POST /reset, /step; WebSocket /ws), its description (GET /openapi.json, /docs), and the built page at /web/.

  --host ADDRESS         listen address (default 127.0.0.1; 0.0.0.0 or :: make it reachable from the network)
  --port N               port (default 8000; 0 picks a free one)
  --dataset demo|spider  dataset (spider reads SPIDER_DIR)
  --split S              split a reset without one uses (default train)
  --max-sessions N       concurrent sessions (default ${DEFAULT_MAX_SESSIONS})
  --idle-timeout S       close a session after S seconds without a message (default ${DEFAULT_IDLE_TIMEOUT_MS / 1000}; 0 never)
  --max-connections N    connections at once (default ${DEFAULT_MAX_CONNECTIONS}, kept below the open-files limit)
  --allow-origin ORIGIN  let pages from ORIGIN (e.g. http://localhost:5173) use the server; repeatable; * allows any
  --allow-host NAME      accept requests addressed to NAME (Host header) besides loopback; repeatable; * allows any
  --token TOKEN          require TOKEN (Authorization: Bearer TOKEN, or ?token=TOKEN) on every request but /health;
                         the environment variable ${TOKEN_ENV} works too and keeps the token out of \`ps\`
  --web DIR              the built page to serve at /web/ (default: this package's dist/, from \`npm run build\`)
`;

/** The warning `serve` prints when it listens on every interface, or null when it listens on one address. */
export function exposureWarning(host: string, hasToken: boolean): string | null {
  if (!WILDCARD_HOSTS.includes(host.trim())) return null;
  const advice = hasToken ? 'only clients with the token are served' : `anyone who can reach this machine can play episodes: set a token (--token or ${TOKEN_ENV})`;
  return `sqlenv serve: warning: --host ${host} makes the server reachable from the network; ${advice}.`;
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      dataset: { type: 'string' },
      split: { type: 'string' },
      'max-sessions': { type: 'string' },
      'idle-timeout': { type: 'string' },
      'max-connections': { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      token: { type: 'string' },
      web: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('--host needs an address, e.g. 127.0.0.1.');
  const port = integer('port', values.port, 8000, 0);
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, got '${values.port}'.`);
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  const split = choice<SplitSelector>('split', values.split, [...SPLITS, 'all'], 'train');
  const maxSessions = integer('max-sessions', values['max-sessions'], DEFAULT_MAX_SESSIONS, 1);
  const idleTimeoutS = integer('idle-timeout', values['idle-timeout'], DEFAULT_IDLE_TIMEOUT_MS / 1000, 0);
  const maxConnections = integer('max-connections', values['max-connections'], DEFAULT_MAX_CONNECTIONS, 1);
  const allowOrigins = values['allow-origin'] ?? [];
  for (const origin of allowOrigins) {
    if (origin !== '*' && origin !== 'null' && !/^https?:\/\/[^/\s]+$/i.test(origin)) throw new UsageError(`--allow-origin takes scheme://host[:port] (e.g. http://localhost:5173), * or null; got '${origin}'.`);
  }
  const allowHosts = values['allow-host'] ?? [];
  for (const name of allowHosts) if (!/^[^\s/:]+$/.test(name)) throw new UsageError(`--allow-host takes a host name without port or scheme (e.g. myserver.lan); got '${name}'.`);
  const token = values.token ?? process.env[TOKEN_ENV] ?? null;
  if (token !== null && token.length < 8) throw new UsageError(`--token (or ${TOKEN_ENV}) must have at least 8 characters.`);

  // Importing Spider runs every gold query once; a worker of its own, closed after, keeps those copies out of the pool.
  const importer = createNodeSqlExecutor();
  let dataset;
  try {
    const progress = createProgress('importing');
    dataset = await loadNodeDataset(datasetName, importer, (d, t) => progress.update(d, t));
    progress.finish();
  } finally {
    await importer.close();
  }
  if (values.web !== undefined && values.web.trim() === '') throw new UsageError('--web needs a folder, e.g. dist.');
  const webDir = values.web ?? DEFAULT_WEB_DIR;
  const server = await createServer({ dataset, host, port, maxSessions, idleTimeoutMs: idleTimeoutS * 1000, resetDefaults: { split }, maxConnections, allowOrigins, allowHosts, token, webDir });
  const page = server.servesPage ? `page ${server.url}/web/` : `no page: ${webDir} has no index.html, run npm run build`;
  process.stderr.write(`sqlenv serve: OpenEnv server for '${dataset.name}' (split ${split}, up to ${maxSessions} sessions) at ${server.url} (WebSocket ${server.url.replace(/^http/, 'ws')}/ws; ${page})\n`);
  const warning = exposureWarning(host, token !== null);
  if (warning) process.stderr.write(`${warning}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
