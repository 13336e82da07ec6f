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
 * read; databases drawn from the run's seed). The GRPO one does NOT pass yet: on the CPU reference the same run adds
 * +0.02…+0.095 to the warm-up's fresh success over 3 seeds, short of its control + 0.1 (see the header of
 * src/train/toy-reads-run.ts). Its time on Dawn was not measured this session; with 64 episodes per GRPO step it is
 * expected above the GRPO case's 22 min, far from the 1–2 min a default-on check would need.
 */
import { describeNodeChecks } from './checks-node-suite.ts';

describeNodeChecks('learning', 'tests/gpu/checks-node-learning.test.ts', process.env.GPU_CHECKS_LEARNING === '1');
