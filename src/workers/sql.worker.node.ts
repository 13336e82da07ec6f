/** Node worker-thread host of the SQL engine (used by the CLI, tests and benchmarks). */
import { parentPort } from 'node:worker_threads';
import initSqlJs from 'sql.js';
import { SqlEngine } from '../sql/engine.ts';
import { SQL_JS_OPTIONS } from '../sql/legacy-functions.ts';
import type { SqlRequest } from '../sql/worker-protocol.ts';
import { handleSqlRequest } from './sql-worker-core.ts';
import { SerialQueue } from '../util/serial-queue.ts';

const port = parentPort;
if (!port) throw new Error('sql.worker.node.ts must run as a worker thread');
const ready = initSqlJs(SQL_JS_OPTIONS).then((sql) => new SqlEngine(sql));
// Requests are handled strictly in arrival order: each waits for the previous one's reply to be posted.
const queue = new SerialQueue();
port.on('message', (request: SqlRequest) => {
  void queue.run(async () => port.postMessage(handleSqlRequest(await ready, request)));
});
