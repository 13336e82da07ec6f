/**
 * The page's handle on the environment worker: a Comlink proxy with the same async methods as `EnvApi` (env-api.ts).
 * One worker per page, started on first use.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { EnvApi } from './env-api.ts';

export type EnvClient = Remote<EnvApi>;

let client: EnvClient | null = null;

export function envClient(): EnvClient {
  if (!client) {
    const worker = new Worker(new URL('./env.worker.ts', import.meta.url), { type: 'module', name: document.baseURI });
    client = wrap<EnvApi>(worker);
  }
  return client;
}

/** Wraps a callback so the worker can call it back (progress reports). */
export const callback = proxy;
