/**
 * The page's handle on the environment worker: a Comlink proxy with the same async methods as `EnvService`.
 * One worker per page; `restartEnvWorker` replaces it (for example after the page detects it has died).
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { EnvService } from './env-service.ts';

export type EnvClient = Remote<EnvService>;

let worker: Worker | null = null;
let client: EnvClient | null = null;

export function envClient(): EnvClient {
  if (!client) {
    worker = new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module', name: document.baseURI });
    client = wrap<EnvService>(worker);
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
