/**
 * Vitest for mutation testing only (`npm run test:mutation`, stryker.config.mjs). Stryker re-runs the covering tests
 * once per mutant, so this config lists only the fast unit tests of the modules it mutates (seconds each here), never
 * the whole suite (25 minutes): a test file that plays Spider or starts SQL workers would turn one mutant into
 * minutes. tests/env/parse-linear.test.ts stays out too: it counts V8's block coverage, which instrumentation changes.
 * `*.mutants.test.ts` files hold the cases written to kill survivors. Not used by `npm test`'s Vitest run,
 * whose `vitest.config.ts` already includes every file listed here.
 */
import { defineConfig } from 'vitest/config';

/** The unit tests Stryker may run, by the module they check (see docs/mutation.md). */
export const MUTATION_TEST_FILES = [
  // src/env/rewards.ts
  'tests/env/rewards.test.ts',
  // src/env/answer.ts, answer-read.ts, verifier.ts, actions.ts
  'tests/env/answer.test.ts',
  'tests/env/verifier.test.ts',
  'tests/env/actions.test.ts',
  // src/data/split.ts (tests/data/split.test.ts builds the demo dataset and reads Spider: too slow per mutant)
  'tests/data/split-diff.test.ts',
  // src/sql/guard.ts, limits.ts, clip.ts
  'tests/sql/guard.test.ts',
  'tests/sql/clip.test.ts',
  // src/train/grpo.ts and the optimiser's reference (src/model/reference/optim.ts)
  'tests/train/grpo.test.ts',
  'tests/model/optim.test.ts',
  // Cases written to kill surviving mutants, any area.
  'tests/**/*.mutants.test.ts',
];

export default defineConfig({
  test: {
    include: MUTATION_TEST_FILES,
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
