/**
 * Learning tests on the CPU reference (a tiny random Qwen3, V = 31, the toy task of src/train/toy-task.ts), the
 * trainer running for real:
 *
 * GRPO: the four train questions (answers 5, 3, Di, Cy), 4 prompts × G = 8 episodes per step, ≤ 2 turns of ≤ 3
 *   tokens, lr 0.02, 30 steps, reward = correctness only. (With the default shaping a wrong answer (0) beats an
 *   invalid reply (−0.05), and this tiny model then learns to give one value to every question before it finds the
 *   right one for the others.) On 64 fresh episodes (16 per question, fixed seeds, temperature 1) the mean reward
 *   must rise by at least 0.3 from its starting level (≈ 0.05), and at least two questions with different answers
 *   must each be answered right in ≥ 75 % of their episodes — the policy tells the questions apart. With lr = 0 the
 *   same run must leave the mean reward exactly where it was.
 * SFT: Oracle demonstrations of the train questions, 30 steps at lr 0.01; the mean NLL per assistant token on the
 *   held-back eval questions' demonstrations must fall by at least 25 %; with lr = 0 it must not move.
 */
import { describe, expect, it } from 'vitest';
import { rollout } from '../../src/train/rollout.ts';
import { buildSftExamples, sftEvalLoss } from '../../src/train/sft.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { TrainConfig } from '../../src/train/types.ts';
import { useToyTask } from './toy-fixture.ts';

const f = useToyTask();

const GRPO: Partial<TrainConfig> = {
  algo: 'grpo',
  steps: 30,
  lr: 0.02,
  warmupSteps: 0,
  groupSize: 8,
  promptsPerStep: 4,
  maxTurns: 2,
  maxNewTokensPerTurn: 3,
  stdScaling: true,
  rewardWeights: { correctness: 1, progress: 0, operational: 0 },
  evalEvery: 0,
  traceEvery: 0,
  checkpointEvery: 0,
};

/** Mean reward and per-question success of 16 fresh episodes per train question. */
async function fresh(trainer: Trainer, model: Parameters<typeof rollout>[0]): Promise<{ reward: number; success: Map<string, number> }> {
  const train = f.dataset.questions.filter((q) => q.split === 'train');
  const tasks = train.flatMap((question, qi) => Array.from({ length: 16 }, (_, i) => ({ question, seed: 900_000 + 1000 * qi + i })));
  const episodes = await rollout(model, trainer.createEnv, tasks, trainer.rolloutSettings());
  const success = new Map(train.map((q) => [q.id, episodes.filter((e) => e.questionId === q.id && e.correct).length / 16]));
  return { reward: episodes.reduce((a, e) => a + e.reward, 0) / episodes.length, success };
}

describe('GRPO learns the toy task', () => {
  it.each([
    { lr: 0.02, expectGain: true },
    { lr: 0, expectGain: false },
  ])('lr $lr', async ({ lr, expectGain }) => {
    const model = f.model();
    const trainer = new Trainer({ model, dataset: f.dataset, executor: f.executor }, { ...GRPO, lr });
    const before = await fresh(trainer, model);
    const result = await trainer.run();
    const after = await fresh(trainer, model);
    const show = (x: typeof before) => `${x.reward.toFixed(3)} [${[...x.success.values()].map((v) => v.toFixed(2)).join(' ')}]`;
    console.log(`GRPO lr=${lr}: fresh mean reward [success per question] ${show(before)} → ${show(after)}; per-step ${result.metrics.map((m) => m.reward.total.toFixed(2)).join(' ')}`);
    expect(result.metrics).toHaveLength(30);
    if (expectGain) {
      expect(after.reward - before.reward).toBeGreaterThanOrEqual(0.3);
      const learned = f.dataset.questions.filter((q) => (after.success.get(q.id) ?? 0) >= 0.75);
      expect(new Set(learned.map((q) => JSON.stringify(q.goldResult.rows))).size).toBeGreaterThanOrEqual(2);
    } else {
      expect(after.reward).toBe(before.reward);
    }
  }, 60_000);
});

describe('SFT lowers the held-back loss', () => {
  it.each([
    { lr: 0.01, expectDrop: true },
    { lr: 0, expectDrop: false },
  ])('lr $lr', async ({ lr, expectDrop }) => {
    const model = f.model();
    const trainer = new Trainer({ model, dataset: f.dataset, executor: f.executor }, { algo: 'sft', steps: 30, lr, warmupSteps: 0, sftExamplesPerStep: 4, evalEvery: 0, traceEvery: 0 });
    const heldBack = f.dataset.questions.filter((q) => q.split === 'eval');
    const { examples } = await buildSftExamples(f.tokenizer, trainer.createEnv, heldBack, { thinking: false, maxEpisodeTokens: 256, rewardWeights: trainer.config.rewardWeights });
    expect(examples).toHaveLength(2);
    const before = await sftEvalLoss(model, examples);
    const result = await trainer.run();
    const after = await sftEvalLoss(model, examples);
    console.log(`SFT lr=${lr}: held-back NLL ${before.toFixed(3)} → ${after.toFixed(3)}; train loss ${result.metrics[0].loss.toFixed(3)} → ${result.metrics.at(-1)!.loss.toFixed(3)}`);
    if (expectDrop) expect(after).toBeLessThan(0.75 * before);
    else expect(after).toBe(before);
  }, 60_000);
});
