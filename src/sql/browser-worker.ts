/** Browser transport for `WorkerSqlExecutor`: a module Web Worker bundled by Vite. */
import { WorkerSqlExecutor, type WorkerExecutorOptions } from './worker-executor.ts';
import type { SqlResponse, WorkerPort } from './worker-protocol.ts';

export function spawnBrowserSqlWorker(): WorkerPort {
  const worker = new Worker(new URL('../workers/sql.worker.browser.ts', import.meta.url), { type: 'module' });
  return {
    send: (request) => worker.postMessage(request),
    onResponse: (handler) => worker.addEventListener('message', (e: MessageEvent<SqlResponse>) => handler(e.data)),
    onFailure: (handler) => {
      worker.addEventListener('error', (e) => handler(new Error(e.message || 'worker error')));
      worker.addEventListener('messageerror', () => handler(new Error('the SQL worker sent a message that could not be read')));
    },
    terminate: () => worker.terminate(),
  };
}

export function createBrowserSqlExecutor(options?: WorkerExecutorOptions): WorkerSqlExecutor {
  return new WorkerSqlExecutor(spawnBrowserSqlWorker, options);
}
