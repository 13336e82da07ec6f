/**
 * A WASM trap inside sql.js, through the server (issue 22, item 2): the session whose QUERY trapped gets a clear
 * error, and its next step and ANOTHER session's step on the same SQL worker both work — the worker was replaced
 * and both databases reopened before either ran. Before the fix the trap came back as an ordinary SQL error, the
 * worker kept its overwritten heap, and the other session's next steps failed.
 *
 * The SQL worker here is tests/sql/fixtures/trap-worker.node.ts: the real host, plus a `trap_now()` SQL function
 * that makes its sql.js module trap for real (the legacy functions that did so are gone from real workers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEnvClient } from '../../src/server/client.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { spawnNodeSqlWorker } from '../../src/sql/node-worker.ts';
import { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { startServer } from './harness.ts';

const trapWorkerEntry = new URL('../sql/fixtures/trap-worker.node.ts', import.meta.url).href;

describe('a WASM trap in one session', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // One SQL worker: every session's database lives on the worker that traps.
    // A generous time limit: this test is about traps, and a loaded machine must not turn one into a timeout.
    server = await startServer({
      sqlWorkers: 1,
      envConfig: { queryTimeoutMs: 10_000 },
      createWorker: () => new WorkerSqlExecutor(() => spawnNodeSqlWorker(trapWorkerEntry), { limits: { timeoutMs: 10_000 } }),
    });
  });
  afterAll(() => server.close());

  it('fails that step clearly; its next step and another session’s step on the same worker succeed', async () => {
    const victim = await SqlEnvClient.connect(server.url);
    const bystander = await SqlEnvClient.connect(server.url);
    try {
      const v = await victim.reset({ seed: 1 });
      const b = await bystander.reset({ seed: 2 });
      const victimTable = v.observation.tables[0];
      const bystanderTable = b.observation.tables[0];
      const bystanderCount = (await bystander.step({ action_type: 'QUERY', argument: `SELECT count(*) FROM "${bystanderTable}"` })).observation.result?.rows;
      expect(server.stats().sqlRestarts).toBe(0);

      const trapped = await victim.step({ action_type: 'QUERY', argument: 'SELECT trap_now()' });
      expect(trapped.observation.error).toMatch(/SQLite crashed inside WebAssembly/);
      expect(trapped.done).toBe(false);
      expect(server.stats().sqlRestarts).toBe(1);

      const next = await victim.step({ action_type: 'DESCRIBE', argument: victimTable });
      expect(next.observation.error).toBeNull();
      expect(next.observation.table?.name).toBe(victimTable);
      const other = await bystander.step({ action_type: 'QUERY', argument: `SELECT count(*) FROM "${bystanderTable}"` });
      expect(other.observation.error).toBeNull();
      expect(other.observation.result?.rows).toEqual(bystanderCount);
      const sample = await bystander.step({ action_type: 'SAMPLE', argument: bystanderTable });
      expect(sample.observation.error).toBeNull();
      expect(server.stats().sqlRestarts).toBe(1);
    } finally {
      await Promise.all([victim.close(), bystander.close()]);
    }
  });
});
