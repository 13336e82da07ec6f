// Entry of a Node worker thread: registers tsx and the `?raw` import hooks in this thread, then imports the TypeScript worker named in
// workerData.entry. (Node 20 does not apply `--import` loader hooks to a worker's own entry file.)
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import('../../bin/register-raw.mjs');
await import(workerData.entry);
