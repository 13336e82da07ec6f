/**
 * The environment worker: hosts an `EnvService` and exposes it to the page with Comlink. SQL runs one level down,
 * in SQL workers this worker starts and restarts (src/sql/browser-worker.ts), so a runaway query is stopped without
 * losing the environment's state.
 *
 * The page passes its base URL as the worker's `name` (see env-client.ts): bundles resolve against the page, not
 * against this script, whose location differs between the dev server and the build.
 */
import { expose } from 'comlink';
import { httpBundleReader, readBundleIndex } from '../data/bundle.ts';
import { createBrowserSqlExecutor } from '../sql/browser-worker.ts';
import { EnvService } from './env-service.ts';
import { loadLlm } from './llm-generate.ts';
import { createGpuTrainSession } from './train-gpu-model.ts';

const baseUrl = self.name || new URL('../', self.location.href).href;

const service = new EnvService({
  createExecutor: () => createBrowserSqlExecutor(),
  bundleReader: (name) => httpBundleReader(new URL(`bundles/${encodeURIComponent(name)}/`, baseUrl).href),
  bundleNames: () => readBundleIndex(new URL('bundles/', baseUrl).href),
  loadLlm: (source, onProgress, options) => loadLlm(source, baseUrl, onProgress, options),
  createTrainSession: (source, loaded, request) => createGpuTrainSession(source, baseUrl, loaded.tokenizer, request),
});

expose(service);
