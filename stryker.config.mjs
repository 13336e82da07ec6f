// Stryker mutation testing over the modules whose correctness is the product (issue 28): `npm run test:mutation`.
// Not part of `npm test` or CI's default run: it re-runs tests once per mutant and takes tens of minutes here.
//
// How to think about it: Stryker copies the project into .stryker-tmp/, changes one thing at a time in the files
// under `mutate` (a `<` becomes `<=`, a string becomes "", a branch is forced), and runs the tests that cover that
// spot (`coverageAnalysis: 'perTest'`). A mutant no test notices "survives": either a test is missing or the change
// is equivalent (docs/mutation.md lists each kept survivor and why). Only the fast unit tests named in
// vitest.mutation.config.mjs ever run here, never the whole suite.
//
// One module at a time (the machine is small):  MUTATE=src/env/rewards.ts npm run test:mutation
// (scripts/mutation.mjs: why not `stryker run` on Node 20)
// (a comma-separated list works too; `npm run test:mutation -- --mutate <file>` also works but shares the whole
// run's incremental file). Each selection keeps its results in .cache/stryker/<name>.incremental.json, so a re-run
// only tests mutants whose code or covering tests changed; `-- --force` re-tests everything.
// Reports: reports/mutation/<name>.html and <name>.json (<name> is `all` without MUTATE).

/** The modules under mutation: the environment's rules, the SQL guard and limits, the split, GRPO and AdamW. */
const MUTATED_MODULES = [
  'src/env/rewards.ts',
  'src/env/answer.ts',
  'src/env/answer-read.ts',
  'src/env/verifier.ts',
  'src/env/actions.ts',
  'src/sql/guard.ts',
  'src/sql/limits.ts',
  'src/sql/clip.ts',
  'src/data/split.ts',
  'src/train/grpo.ts',
  'src/model/reference/optim.ts',
];

/** MUTATE narrows the run to some of MUTATED_MODULES; its name keys the incremental file and the reports. */
const selected = (process.env.MUTATE ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '');
for (const file of selected) {
  if (!MUTATED_MODULES.includes(file)) throw new Error(`MUTATE: '${file}' is not one of the mutated modules: ${MUTATED_MODULES.join(', ')}.`);
}
const runName = selected.length === 0 ? 'all' : selected.map((f) => f.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-')).join('+');

// The seeded tests draw a fresh seed per process; one seed for the whole run makes a mutant's verdict replayable
// (tests/fixtures/seed.ts). Set here so every test-runner process Stryker starts inherits it.
if (!process.env.SQLENV_TEST_SEED) process.env.SQLENV_TEST_SEED = String(Math.floor(Math.random() * 2 ** 31));
console.log(`stryker: SQLENV_TEST_SEED=${process.env.SQLENV_TEST_SEED} (set it to replay this run's random tests)`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.mjs', related: true },
  mutate: selected.length === 0 ? MUTATED_MODULES : selected,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: `.cache/stryker/${runName}.incremental.json`,
  concurrency: 1,
  // A busy shared machine: generous timeouts so a slow run is not mistaken for an infinite loop.
  timeoutMS: 20_000,
  timeoutFactor: 3,
  dryRunTimeoutMinutes: 15,
  // One sandbox folder per selection, so two selections can run side by side (each deletes its own when done).
  tempDirName: `.stryker-tmp/${runName}`,
  // Copy only what the listed tests need into the sandbox (not dist/, models, e2e artifacts, python/).
  ignorePatterns: ['/*', '!/src', '!/tests', '!/package.json', '!/tsconfig.json', '!/vitest.mutation.config.mjs'],
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${runName}.html` },
  jsonReporter: { fileName: `reports/mutation/${runName}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
};
