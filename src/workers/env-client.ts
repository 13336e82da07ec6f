/**
 * The page's handle on the environment worker: a Comlink proxy with the same async methods as `EnvApi` (env-api.ts).
 * One worker per page; `restartEnvWorker` replaces it (for example after the page detects it has died).
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { EnvApi } from './env-api.ts';

export type EnvClient = Remote<EnvApi>;

let worker: Worker | null = null;
let client: EnvClient | null = null;

export function envClient(): EnvClient {
  if (!client) {
    worker = new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module', name: document.baseURI });
    client = wrap<EnvApi>(worker);
  }
  return client;
}

export function restartEnvWorker(): EnvClient {
  worker?.terminate();
  worker = null;
  client = null;
  return envClient();
}

/** Wraps a callback so the worker can call it back (progress reports). */
export const callback = proxy;
