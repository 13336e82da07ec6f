/**
 * Vite: builds the static app into `dist/`.
 * - `base: './'`: every URL in the build is relative, so `dist/` works from any sub-path of any static host.
 * - Workers are ES modules (`new Worker(new URL(...), { type: 'module' })` in src/sql/browser-worker.ts).
 * - sql.js's WASM is imported with `?url` (src/workers/sql.worker.browser.ts) and emitted as a hashed asset: the
 *   app serves it itself, never from a CDN, so it works offline once loaded.
 * - `public/` is copied into `dist/` as is; `public/bundles/` holds the generated data bundles (`npm run data:demo`,
 *   run by `prebuild`; `npm run data:spider`), fetched at run time as `bundles/<name>/manifest.json`;
 *   `public/models/` holds models a person made (`npm run model:tiny`), git-ignored, served at `models/<name>/`.
 * - A service worker (vite-plugin-pwa) precaches the build, so the app works offline once loaded.
 * - `appType: 'mpa'`: no SPA fallback, so a missing file is a 404 in dev and preview, as on a static host.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  base: './',
  appType: 'mpa',
  plugins: [
    react(),
    // A service worker that precaches the whole build (JS, WASM, data bundles), so the app keeps working, reloads
    // included, after the network goes away. Updates install on the next visit (autoUpdate).
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: 'script',
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{html,js,css,wasm,json,sqlite,svg}'],
        // ONNX Runtime's WASM (26 MB, emitted from src/workers/env.worker.ts's `?url` import) is needed only by the
        // transformers.js backend: not precached for every visitor, but kept once fetched (runtimeCaching below), so
        // that backend works offline after its first load.
        // Models under public/models/ (`npm run model:tiny` writes one there) are never precached: tens of MB that
        // only a person who made them loads, straight from the server.
        globIgnores: ['**/ort-wasm*.wasm', 'models/**'],
        runtimeCaching: [{ urlPattern: /\/ort-wasm[^/]*\.wasm$/, handler: 'CacheFirst', options: { cacheName: 'sqlenv-ort-wasm' } }],
        // Data bundles and sql.js's WASM are larger than Workbox's 2 MiB default.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        navigateFallback: null,
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  worker: { format: 'es' },
  // sql.js is CommonJS and first seen inside the worker; pre-bundle it up front so `npm run dev` does not reload.
  optimizeDeps: { include: ['sql.js'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Never inline a WASM binary as a data: URL; it must stay a real file next to the JS.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
