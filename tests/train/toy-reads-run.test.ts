/**
 * The reads learning run (src/train/toy-reads-run.ts) on the float64 reference, tiny sizes: its GRPO phase is a run
 * of its own — it starts from the warm-up's adapter with fresh AdamW moments (the step counter restarts at 1, and
 * AdamW's bias correction is right only for zero moments there), so its first update is exactly that of a new model
 * given the warm-up's adapter. Seeds drawn per run and printed.
 */
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REWARD_WEIGHTS } from '../../src/env/rewards.ts';
import type { LoraAdapter } from '../../src/model/lora.ts';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { READS_GRPO, READS_SFT, runReads, setupReadsTask, type ReadsSetup } from '../../src/train/toy-reads-run.ts';
import { TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA } from '../../src/train/toy-run.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { TrainConfig } from '../../src/train/types.ts';
import { testSeed } from '../fixtures/seed.ts';

const runSeed = testSeed('tests/train/toy-reads-run.test.ts');
const SIZES = { sft: 3, grpo: 2, fresh: 1 };
const SFT: Partial<TrainConfig> = { steps: 4, sftExamplesPerStep: 4 };
const GRPO: Partial<TrainConfig> = { steps: 1, groupSize: 4, promptsPerStep: 2, lr: 0.01 };

const newModel = (setup: ReadsSetup) => new ReferenceTrainableModel(setup.config, setup.weights, setup.tokenizer, { lora: TOY_LORA, seed: TOY_ADAPTER_SEED, contextTokens: TOY_CONTEXT_TOKENS });
const flat = (a: LoraAdapter) => a.layers.flatMap((l) => Object.keys(l).sort().flatMap((t) => { const p = l[t as keyof typeof l]!; return [...Array.from(p.a.data), ...Array.from(p.b.data)]; }));

describe('runReads', () => {
  it("trains GRPO under the environment's default reward weights (issue 27: no correctness-only shortcut)", async () => {
    const setup = await setupReadsTask(await initSqlJs(), runSeed, { sft: 1, grpo: 1, fresh: 1 });
    try {
      const grpo = new Trainer({ model: newModel(setup), dataset: setup.grpoDataset, executor: setup.executor }, { ...READS_GRPO, seed: runSeed });
      expect(READS_GRPO).not.toHaveProperty('rewardWeights');
      expect(grpo.config.rewardWeights).toEqual(DEFAULT_REWARD_WEIGHTS);
    } finally {
      await setup.executor.close();
    }
  });

  it("starts GRPO with fresh AdamW moments: its first update is a new model's from the warm-up's adapter", async () => {
    const setup = await setupReadsTask(await initSqlJs(), runSeed, SIZES);
    try {
      const model = newModel(setup);
      const run = await runReads(model, setup, { sft: SFT, grpo: GRPO });
      expect(run.grpo.metrics).toHaveLength(1);

      // The same two phases by hand, GRPO on a new model (zero moments) given the warm-up's adapter.
      const warm = newModel(setup);
      await new Trainer({ model: warm, dataset: setup.sftDataset, executor: setup.executor }, { ...READS_SFT, seed: runSeed, ...SFT }).run();
      const fresh = newModel(setup);
      fresh.loadAdapter(await warm.readAdapter());
      const grpo = await new Trainer({ model: fresh, dataset: setup.grpoDataset, executor: setup.executor }, { ...READS_GRPO, seed: runSeed, ...GRPO }).run();
      expect(grpo.metrics[0].successRate).toBe(run.grpo.metrics[0].successRate); // the same rollouts …
      // … and the same update (with the warm-up's moments left in, GRPO's first step replays mostly the warm-up's).
      expect(flat(await model.readAdapter())).toEqual(flat(await fresh.readAdapter()));
      expect(flat(await fresh.readAdapter())).not.toEqual(flat(await warm.readAdapter())); // GRPO did update
    } finally {
      await setup.executor.close();
    }
  });
});
