/**
 * The registry's heaviest whole-model checks in Node on Dawn, on request only:
 * `GPU_CHECKS_HEAVY=1 npx vitest run tests/gpu/checks-node-heavy.test.ts` (which checks: CHROMIUM_ONLY_BY_DEFAULT in
 * checks-node-suite.ts, with why Chromium's run of them is enough for `npm test`). Last measured in Node on this
 * 2-core machine: train-gradients 94 s, train-logprobs 34 s, sample-distribution 33 s, train-adamw-step 17 s.
 */
import { describeNodeChecks } from './checks-node-suite.ts';

describeNodeChecks('heavy', 'tests/gpu/checks-node-heavy.test.ts');
