/**
 * The "reads" learning run (src/train/toy-reads-run.ts) on the WebGPU model, in the page (Chromium,
 * e2e/gpu/train-learning.spec.ts) and in Node on Dawn (tests/gpu/checks-node-learning.test.ts), from this one
 * registration:
 * - train-learning-grpo-reads: SFT warm-up on the Oracle's transcripts of the SFT databases, then GRPO under the
 *   environment's default reward weights; on the fresh databases (never trained on) the success rate must end at
 *   least READS_MARGIN above both the warm-up's (what the lr-0 control keeps, see below) and the exact best
 *   fixed-answer rate.
 * - train-learning-grpo-reads-lr0: the same run with GRPO at lr 0 for READS_LR0_STEPS steps: the fresh measure must
 *   not move at all (a few steps show it as well as the whole run would: at lr 0 every step leaves the adapter as it
 *   was, warm-up and schedule included, so the check costs a warm-up, not a second GRPO run).
 * The check's seed is the run seed: it draws the three sets of databases (printed in the notes).
 */
import initSqlJs from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import type { GpuContext } from '../../gpu/device.ts';
import { GpuTrainableModel } from '../../train/gpu-model.ts';
import { describeReadsRun, runReads, setupReadsTask } from '../../train/toy-reads-run.ts';
import { TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA } from '../../train/toy-run.ts';
import type { Comparison } from '../compare.ts';
import { property } from './train-engine.ts';

/** How far above the control and the ceiling the trained fresh success must end. */
export const READS_MARGIN = 0.1;
/**
 * Sequence slots: a GRPO step's 16 × 8 episodes decode in one wave (the 200 fresh episodes in two). With the toy
 * task's 32 slots (four waves) a step's rollout took twice as long on SwiftShader (10.3 s against 5.0 s, Node).
 */
const READS_ROLLOUT_SLOTS = 128;
/** Tokens per micro-batch: a step's ~7,500 tokens (128 episodes of ~60) in one, at most 16,384 in two. */
const READS_MICRO_BATCH_TOKENS = 8192;
/** GRPO steps of the lr-0 control run (past READS_GRPO's 5 warm-up steps, so rates 0 before and after them). */
const READS_LR0_STEPS = 7;

const inNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

function readsCheck(zeroLr: boolean) {
  return async (ctx: GpuContext, seed: number, note: (text: string) => void): Promise<Comparison[]> => {
    const sql = await initSqlJs(inNode ? {} : { locateFile: () => wasmUrl });
    const setup = await setupReadsTask(sql, seed);
    note(`run seed ${seed}: fresh databases ${setup.seeds.fresh.join(' ')}`);
    const start = performance.now();
    const model = await GpuTrainableModel.create(ctx, setup.config, setup.weights, setup.tokenizer, {
      lora: TOY_LORA,
      seed: TOY_ADAPTER_SEED,
      rolloutSlots: READS_ROLLOUT_SLOTS,
      contextTokens: TOY_CONTEXT_TOKENS,
      microBatchTokens: READS_MICRO_BATCH_TOKENS,
    });
    try {
      const run = await runReads(model, setup, zeroLr ? { grpo: { lr: 0, steps: READS_LR0_STEPS } } : {});
      note(`${zeroLr ? 'lr=0' : 'lr=default'}: ${describeReadsRun(run)}`);
      note(`${((performance.now() - start) / 1000).toFixed(1)} s`);
      const shape = `reads, ${run.grpo.metrics.length} GRPO steps, ${run.after.episodes} fresh episodes`;
      const { before, after, ceiling } = run;
      if (zeroLr) return [property('lr 0: fresh success unchanged', shape, after.success === before.success, after.success - before.success)];
      return [
        property(`fresh success ≥ lr-0 control + ${READS_MARGIN}`, shape, after.success >= before.success + READS_MARGIN, after.success - before.success),
        property(`fresh success ≥ fixed-answer ceiling + ${READS_MARGIN}`, shape, after.success >= ceiling + READS_MARGIN, after.success - ceiling),
      ];
    } finally {
      model.destroy();
      await setup.executor.close();
    }
  };
}

/** The checks of this file by harness name (registry.ts spreads them into its map). */
export const TRAIN_READS_CHECKS: Record<string, (ctx: GpuContext, seed: number, note: (text: string) => void) => Promise<Comparison[]>> = {
  'train-learning-grpo-reads': readsCheck(false),
  'train-learning-grpo-reads-lr0': readsCheck(true),
};
