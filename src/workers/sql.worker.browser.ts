/** Web Worker host of the SQL engine. sql.js's WASM is served by the app itself (Vite `?url`), never a CDN. */
import initSqlJs from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import { SqlEngine } from '../sql/engine.ts';
import { SQL_JS_OPTIONS } from '../sql/legacy-functions.ts';
import type { SqlRequest } from '../sql/worker-protocol.ts';
import { handleSqlRequest } from './sql-worker-core.ts';
import { SerialQueue } from '../util/serial-queue.ts';

const ready = initSqlJs({ ...SQL_JS_OPTIONS, locateFile: () => wasmUrl }).then((sql) => new SqlEngine(sql));
const queue = new SerialQueue();
self.onmessage = (event: MessageEvent<SqlRequest>) => {
  const request = event.data;
  void queue.run(async () => self.postMessage(handleSqlRequest(await ready, request)));
};
