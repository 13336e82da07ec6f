/**
 * The toy learning runs (src/gpu-tests/checks/train-learning.ts) in Node on Dawn, on request only:
 * `GPU_CHECKS_LEARNING=1 npx vitest run tests/gpu/checks-node-learning.test.ts`.
 *
 * Why not by default: these checks take no seed (the toy task fixes its own), so a second run adds no new draw, and
 * the engine gives Chromium's logits bit for bit (engine-node-chromium.test.ts), so Chromium's run of them
 * (e2e/gpu/train-learning.spec.ts, 5–8 min per GRPO case) already covers the same arithmetic; in Node one GRPO case
 * took 22 min on this 2-core machine under load (it passed: fresh mean reward 0.016 → 0.438), two of them ~45 min,
 * too much for CI twice over. See checks-node-suite.ts for the split and seeds.
 *
 * The group also holds train-learning-grpo-reads[-lr0] (src/gpu-tests/checks/train-reads.ts, the task that must be
 * read; databases drawn from the run's seed), which Chromium runs on request too (e2e/gpu/train-reads.spec.ts, same
 * variable): 150 SFT steps and 12,800 GRPO episodes, 13.5 min in Chromium and 37.7 min in Node on SwiftShader (seed 1,
2026-11-28). On the CPU reference the
 * same run clears its bar (control + 0.1, ceiling + 0.1) in 4 of 5 run seeds (docs/training-in-the-browser.md).
 */
import { describeNodeChecks } from './checks-node-suite.ts';

describeNodeChecks('learning', 'tests/gpu/checks-node-learning.test.ts');
