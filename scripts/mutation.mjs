// `npm run test:mutation`: Stryker over the core modules (stryker.config.mjs), outside `npm test`.
//
//   npm run test:mutation                                    every module in stryker.config.mjs (hours here)
//   MUTATE=src/env/rewards.ts npm run test:mutation          one module (or a comma-separated list)
//   npm run test:mutation -- --mutate src/env/rewards.ts     the same, as an argument
//   npm run test:mutation -- --force                         ignore the incremental results, test every mutant
//
// Why a script and not `stryker run`: Stryker 10's command line refuses Node < 22 at start-up, and this project
// runs on Debian's Node 20. Its engine itself runs here (checked: the same mutants, the dry run and the reports of
// `stryker run`), so this calls the engine's `Stryker` class directly. On Node ≥ 22 `npx stryker run` (with MUTATE)
// does the same thing; this script can then become that one line.
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
let force = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--force') force = true;
  else if (args[i] === '--mutate' && i + 1 < args.length) process.env.MUTATE = args[++i];
  else {
    console.error(`test:mutation: unknown argument '${args[i]}' (use --mutate <file[,file]> or --force).`);
    process.exit(2);
  }
}

// The engine module beside the package's entry point (the entry point also loads the command line and its check).
const entry = fileURLToPath(import.meta.resolve('@stryker-mutator/core'));
const { Stryker } = await import(entry.replace(/index\.js$/, 'stryker.js'));
const results = await new Stryker({ configFile: 'stryker.config.mjs', ...(force ? { force: true } : {}) }).runMutationTest();
const survived = results.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').length;
console.log(`test:mutation: ${results.length} mutants, ${survived} survived or not covered (see reports/mutation/).`);
