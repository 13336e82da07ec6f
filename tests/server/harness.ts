/**
 * Shared setup for the server tests: the demo dataset, a real server on 127.0.0.1 port 0, an in-process reference
 * environment with the same configuration, and a runaway statement that only the time limit stops.
 */
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import type { Dataset, Question } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import type { EnvConfig } from '../../src/env/types.ts';
import { createServer, type RunningServer, type ServerOptions } from '../../src/server/server.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { SqlExecutor } from '../../src/sql/executor.ts';

/** Short enough that runaway queries end quickly in tests; every demo gold query runs in a few milliseconds. */
export const ENV_CONFIG: Partial<EnvConfig> = { queryTimeoutMs: 400 };

/** Runs until its time limit: an endless recursive CTE. */
export const RUNAWAY_SQL = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

let demo: Promise<Dataset> | null = null;
export function demoDataset(): Promise<Dataset> {
  demo ??= buildDemoDataset();
  return demo;
}

export async function questionsById(): Promise<Map<string, Question>> {
  return new Map((await demoDataset()).questions.map((q) => [q.id, q]));
}

export async function startServer(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  return createServer({ dataset: await demoDataset(), port: 0, envConfig: ENV_CONFIG, sqlWorkers: 2, ...options });
}

/** The in-process environment the server must match, on its own SQL worker. */
export async function referenceEnv(): Promise<{ env: SqlEnv; executor: SqlExecutor }> {
  const executor = createNodeSqlExecutor();
  return { env: new SqlEnv(await demoDataset(), executor, ENV_CONFIG), executor };
}

/** Resolves when `check` holds, polling; rejects after `tries` polls (a bound on waiting, not a timing assertion). */
export async function eventually(check: () => boolean, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not reached');
}
