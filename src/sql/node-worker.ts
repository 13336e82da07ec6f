/**
 * Node transport for `WorkerSqlExecutor`: a worker thread running `sql.worker.node.ts` through tsx, so the CLI,
 * tests and benchmarks use the same TypeScript sources as the browser.
 */
import { Worker } from 'node:worker_threads';
import { WorkerSqlExecutor, type WorkerExecutorOptions } from './worker-executor.ts';
import type { SqlResponse, WorkerPort } from './worker-protocol.ts';

const bootstrap = new URL('../workers/node-bootstrap.mjs', import.meta.url);
const workerEntry = new URL('../workers/sql.worker.node.ts', import.meta.url).href;

/** `entry`: the worker's module URL (tests pass a fixture host that can make sql.js trap on demand). */
export function spawnNodeSqlWorker(entry: string = workerEntry): WorkerPort {
  const worker = new Worker(bootstrap, { workerData: { entry } });
  // A worker that is only waiting for requests must not keep the process alive.
  worker.unref();
  return {
    send: (request) => worker.postMessage(request),
    onResponse: (handler) => worker.on('message', (response: SqlResponse) => handler(response)),
    onFailure: (handler) => {
      worker.on('error', handler);
      worker.on('exit', (code) => handler(new Error(`worker exited with code ${code}`)));
    },
    terminate: () => void worker.terminate(),
  };
}

export function createNodeSqlExecutor(options?: WorkerExecutorOptions): WorkerSqlExecutor {
  return new WorkerSqlExecutor(spawnNodeSqlWorker, options);
}
