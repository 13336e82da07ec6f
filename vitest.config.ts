/**
 * Vitest: unit and integration tests under `tests/` (mirroring `src/`), run in Node. Some tests start sql.js in
 * worker threads and load real Spider databases, so timeouts are generous (60 s) rather than tuned to a fast laptop.
 * Kept apart from `vite.config.ts` so tests never load the React plugin or the app's build settings.
 */
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that run only on request, each with the variable that asks for it (tests/gpu/checks-node-learning.test.ts and
 * checks-node-heavy.test.ts say why). Left out of the run, not declared and skipped: a skipped test proves nothing.
 */
const ON_REQUEST_FILES: ReadonlyArray<{ file: string; variable: string }> = [
  { file: 'tests/gpu/checks-node-learning.test.ts', variable: 'GPU_CHECKS_LEARNING' },
  { file: 'tests/gpu/checks-node-heavy.test.ts', variable: 'GPU_CHECKS_HEAVY' },
];

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...ON_REQUEST_FILES.filter((f) => process.env[f.variable] !== '1').map((f) => f.file)],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
