/**
 * The Node run of the GPU checks (src/gpu-tests/registry.ts) on Dawn (src/gpu/node/node-gpu.ts; SwiftShader where
 * there is no GPU): every registered check, one Vitest test each, split over a few files by `nodeGroup` so Vitest can
 * run the groups side by side. Every name falls into exactly one group (the last is the default), so a newly
 * registered check runs here with no edit. Each file shares one GpuContext, prints every comparison line as the
 * Playwright specs do (e2e/gpu/harness.ts), and fails naming the cases out of tolerance.
 *
 * Seeds: each file draws its own (printed with the command that replays it); GPU_CHECK_SEED=<n> fixes it for all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireGpu, type GpuContext } from '../../src/gpu/device.ts';
import { nodeGpu } from '../../src/gpu/node/node-gpu.ts';
import { CHECK_NAMES, failingCases, reportLines, runCheck } from '../../src/gpu-tests/registry.ts';
import { describeSeed, runSeed } from '../../src/gpu-tests/seed.ts';

export type NodeGroup = 'learning' | 'heavy' | 'train' | 'engine' | 'kernels';

/**
 * Whole-model checks that Chromium runs on every `npm test` (e2e/gpu/*.spec.ts) and Node only on request
 * (checks-node-heavy.test.ts): the slowest of the registry in Node (≈ 180 s together on the 2-core CI machine), on
 * code that is the same WGSL and the same engine in both places — the engine's logits are bit-identical across the two
 * (engine-node-chromium.test.ts), and every kernel check, where a compiler difference would show, still runs in both.
 */
export const CHROMIUM_ONLY_BY_DEFAULT: readonly string[] = ['train-gradients', 'train-logprobs', 'train-adamw-step', 'sample-distribution'];

/** Which file runs check `name`: the toy learning runs, the heavy ones, the training pass, whole-model checks, kernels. */
export function nodeGroup(name: string): NodeGroup {
  if (name.startsWith('train-learning')) return 'learning';
  if (CHROMIUM_ONLY_BY_DEFAULT.includes(name)) return 'heavy';
  if (name.startsWith('train-')) return 'train';
  if (/^(engine|quant-|sample-|adapter-)/.test(name)) return 'engine';
  return 'kernels';
}

/**
 * Time allowed per check on SwiftShader with 2 shared cores: the Playwright specs' limits, except GRPO, measured at
 * 22 min in Node on a loaded machine when Chromium took 5–8 min (Dawn's Node binding is slower at the engine's
 * pipelines and dispatches, see tests/gpu/engine-node-chromium.test.ts, which prints both times), and the reads run,
 * 37.7 min in Node with a CPU-reference run beside it (2026-11-28): an hour, as its Chromium spec allows.
 */
export function checkTimeoutMs(name: string): number {
  if (name.startsWith('train-learning-grpo-reads')) return 3_600_000;
  if (name.startsWith('train-learning-grpo')) return 2_400_000;
  if (name.startsWith('train-') || name === 'adapter-roundtrip') return 480_000;
  return 180_000;
}

/**
 * Declares one test per registered check of `group`, all on one Dawn device. The groups that run only on request
 * (learning, heavy) are left out of the run by vitest.config.ts unless their variable is set, never declared and skipped.
 */
export function describeNodeChecks(group: NodeGroup, file: string): void {
  const names = CHECK_NAMES.filter((name) => nodeGroup(name) === group);
  const run = runSeed(process.env);
  let ctx: GpuContext | null = null;

  describe(`GPU checks in Node on Dawn: ${group}`, () => {
    beforeAll(async () => {
      const { gpu, adapter, driver } = await nodeGpu();
      ctx = await acquireGpu({ gpu, label: `checks-node-${group}` });
      console.log(`${describeSeed(run, `npx vitest run ${file}`)}\nadapter: ${adapter} via ${driver}`);
    });
    afterAll(() => ctx?.destroy());

    it('has checks to run', () => expect(names.length).toBeGreaterThan(0));

    for (const name of names) {
      it(name, { timeout: checkTimeoutMs(name) }, async () => {
        if (!ctx) throw new Error('checks-node: no GPU context (beforeAll failed)');
        const report = await runCheck(ctx, name, run.seed);
        console.log(reportLines(report).join('\n'));
        expect(failingCases(report), `failing cases of ${name} (seed ${run.seed}; replay with GPU_CHECK_SEED=${run.seed})`).toEqual([]);
        expect(report.pass).toBe(true);
      });
    }
  });
}
