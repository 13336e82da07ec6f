/**
 * The environment worker: composes the environment's services (services/env-services.ts) with the browser's SQL
 * workers, bundles over HTTP and the WebGPU engine, and exposes their facade (`EnvApi`, env-api.ts) to the page with
 * Comlink. SQL runs one level down, in SQL workers this worker starts and restarts (src/sql/browser-worker.ts), so a
 * runaway query is stopped without losing the environment's state.
 *
 * The page passes its base URL as the worker's `name` (see env-client.ts): bundles resolve against the page, not
 * against this script, whose location differs between the dev server and the build.
 */
import { expose } from 'comlink';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import { httpBundleReader, readBundleIndex } from '../data/bundle.ts';
import { createBrowserSqlExecutor } from '../sql/browser-worker.ts';
import { createEnvApi } from './env-api.ts';
import { loadLlm } from './llm-generate.ts';
import { loadTjs } from './tjs/tjs-generate.ts';
import sqlWasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import { createGpuReadsSession, createGpuTrainSession } from './train-gpu-model.ts';

const baseUrl = self.name || new URL('../', self.location.href).href;

const api = createEnvApi({
  createExecutor: () => createBrowserSqlExecutor(),
  bundleReader: (name) => httpBundleReader(new URL(`bundles/${encodeURIComponent(name)}/`, baseUrl).href),
  bundleNames: () => readBundleIndex(new URL('bundles/', baseUrl).href),
  loadLlm: (source, onProgress, options) => loadLlm(source, baseUrl, onProgress, options),
  createTrainSession: (source, loaded, request) => createGpuTrainSession(source, baseUrl, loaded.tokenizer, request),
  // The Train view's toy task builds its databases with sql.js in this worker (its WASM is the app's own copy).
  // sql.js is imported only when the toy runs, so the worker's start-up does not grow.
  readsTask: { sql: async () => (await import('sql.js')).default({ locateFile: () => sqlWasmUrl }), createSession: createGpuReadsSession },
  // transformers.js's ONNX Runtime WASM: the app's own copy (Vite emits it), never a CDN.
  loadTjs: (source, options, onProgress) => loadTjs(source, baseUrl, ortWasmUrl, options, onProgress),
});

expose(api);
