/**
 * Vitest: unit and integration tests under `tests/` (mirroring `src/`), run in Node. Some tests start sql.js in
 * worker threads and load real Spider databases, so timeouts are generous (60 s) rather than tuned to a fast laptop.
 * Kept apart from `vite.config.ts` so tests never load the React plugin or the app's build settings.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
