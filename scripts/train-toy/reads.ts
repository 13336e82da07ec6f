/**
 * `npm run train:toy -- --task reads`: the reads learning run (src/train/toy-reads-run.ts) in this Node process on
 * the float64 CPU reference model (the same run's WebGPU check is train-learning-grpo-reads in the GPU registry).
 * Prints, one JSON object per line:
 *   {"ceiling": 0.2067, "rows": [...]}                                    the exact best fixed-answer success rate
 *   {"phase": "sft", "step": 1, "loss": 4.1}                              warm-up steps
 *   {"phase": "control", ...measure}                                      fresh success after the warm-up (= lr 0)
 *   {"phase": "grpo", "step": 1, "train": 0.16, "fresh": 0.2, "reward": 0.23}   train success of the step's episodes,
 *                                                                         greedy success on the fresh sample (eval)
 *   {"summary": {...}}                                                    before/after measures, seeds, seconds
 */
import initSqlJs from 'sql.js';
import { ReferenceTrainableModel } from '../../src/train/reference-model.ts';
import { fixedAnswerCeiling } from '../../src/train/toy-reads-task.ts';
import { runReads, setupReadsTask } from '../../src/train/toy-reads-run.ts';
import { TOY_ADAPTER_SEED, TOY_CONTEXT_TOKENS, TOY_LORA } from '../../src/train/toy-run.ts';
import type { EvalPoint, StepMetrics } from '../../src/train/types.ts';

export interface TrainReadsOptions {
  seed: number;
  steps: number | null;
  lr: number | null;
}

/** Fresh questions evaluated (greedy) after every GRPO step, for the curve. */
const CURVE_FRESH_SAMPLES = 25;

const r3 = (x: number) => Number(x.toFixed(3));

export async function trainReads(o: TrainReadsOptions): Promise<void> {
  const start = performance.now();
  const ceiling = fixedAnswerCeiling();
  console.log(JSON.stringify({ ceiling: r3(ceiling.rate), rows: ceiling.rows.map((r) => ({ ...r, p: r3(r.p) })) }));
  const setup = await setupReadsTask(await initSqlJs(), o.seed);
  const model = new ReferenceTrainableModel(setup.config, setup.weights, setup.tokenizer, { lora: TOY_LORA, seed: TOY_ADAPTER_SEED, contextTokens: TOY_CONTEXT_TOKENS });
  const pending = new Map<number, StepMetrics>();
  try {
    const run = await runReads(model, setup, {
      grpo: { evalEvery: 1, evalTrainSamples: 0, evalEvalSamples: CURVE_FRESH_SAMPLES, ...(o.steps !== null && { steps: o.steps }), ...(o.lr !== null && { lr: o.lr }) },
      callbacks: {
        sft: { onStep: (m) => console.log(JSON.stringify({ phase: 'sft', step: m.step, loss: r3(m.loss) })) },
        grpo: {
          onStep: (m) => pending.set(m.step, m),
          onEval: (p: EvalPoint) => {
            const m = pending.get(p.step);
            console.log(JSON.stringify({ phase: 'grpo', step: p.step, train: m ? r3(m.successRate) : null, fresh: r3(p.evalSuccess), reward: m ? r3(m.reward.total) : null }));
          },
        },
      },
    });
    console.log(JSON.stringify({ phase: 'control', note: 'fresh measure after the warm-up = GRPO at lr 0', ...run.before }));
    console.log(JSON.stringify({ summary: { runSeed: o.seed, ceiling: r3(run.ceiling), before: run.before, after: run.after, freshSeeds: setup.seeds.fresh, seconds: r3((performance.now() - start) / 1000) } }));
  } finally {
    await setup.executor.close();
  }
}
