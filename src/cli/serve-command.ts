/**
 * `sqlenv serve`: the environment as an OpenEnv server (src/server), for trainers outside the browser (TRL's
 * GRPOTrainer through OpenEnv's EnvClient). Prints one line with the URL on stderr once listening; runs until
 * SIGINT or SIGTERM, then closes every session and SQL worker and returns 0.
 */
import { parseArgs } from 'node:util';
import { DATASET_NAMES, loadNodeDataset } from '../data/load-node.ts';
import { SPLITS, type SplitSelector } from '../data/types.ts';
import { createServer, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS } from '../server/server.ts';
import { createNodeSqlExecutor } from '../sql/node-worker.ts';
import { choice, integer, UsageError } from './args.ts';
import { createProgress } from './progress.ts';

export const SERVE_USAGE =
  'sqlenv serve [--host 127.0.0.1] [--port 8000] [--dataset demo|spider] [--split train|eval|heldout|all] [--max-sessions N] [--idle-timeout SECONDS]';

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
    },
    strict: true,
  });
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('--host needs an address, e.g. 127.0.0.1.');
  const port = integer('port', values.port, 8000, 0);
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, got '${values.port}'.`);
  const datasetName = choice('dataset', values.dataset, DATASET_NAMES, 'demo');
  const split = choice<SplitSelector>('split', values.split, [...SPLITS, 'all'], 'train');
  const maxSessions = integer('max-sessions', values['max-sessions'], DEFAULT_MAX_SESSIONS, 1);
  const idleTimeoutS = integer('idle-timeout', values['idle-timeout'], DEFAULT_IDLE_TIMEOUT_MS / 1000, 0);

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
  const server = await createServer({ dataset, host, port, maxSessions, idleTimeoutMs: idleTimeoutS * 1000, resetDefaults: { split } });
  process.stderr.write(`sqlenv serve: OpenEnv server for '${dataset.name}' (split ${split}, up to ${maxSessions} sessions) at ${server.url} (WebSocket ${server.url.replace(/^http/, 'ws')}/ws)\n`);
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
