/**
 * Learning tests on the CPU reference (a tiny random Qwen3, V = 31, the toy task of src/train/toy-task.ts with the
 * settings and measures of src/train/toy-run.ts), the trainer running for real; the same run on the WebGPU model is
 * e2e/gpu/train-learning.spec.ts.
 *
 * GRPO: the four train questions (answers 5, 3, Di, Cy), 4 prompts × G = 8 episodes per step, ≤ 2 turns of ≤ 3
 *   tokens, lr 0.02, 30 steps, reward = correctness only. On 64 fresh episodes (16 per question, fixed seeds,
 *   temperature 1) the mean reward must rise by at least 0.3 from its starting level (≈ 0.05), and at least two
 *   questions with different answers must each be answered right in ≥ 75 % of their episodes — the policy tells the
 *   questions apart. With lr = 0 the same run must leave the mean reward exactly where it was.
 * SFT: Oracle demonstrations of the train questions, 30 steps at lr 0.01; the mean NLL per assistant token on the
 *   held-back eval questions' demonstrations must fall by at least 25 %; with lr = 0 it must not move.
 */
import { describe, expect, it } from 'vitest';
import { describeToyRun, learnedAnswers, runToy } from '../../src/train/toy-run.ts';
import { useToyTask } from './toy-fixture.ts';

const f = useToyTask();

describe('GRPO learns the toy task', () => {
  it.each([
    { lr: 0.02, expectGain: true },
    { lr: 0, expectGain: false },
  ])('lr $lr', async ({ lr, expectGain }) => {
    const run = await runToy(f.model(), f, 'grpo', { lr });
    console.log(`lr=${lr}: ${describeToyRun(run)}`);
    const { before, after } = run.fresh!;
    expect(run.result.metrics).toHaveLength(30);
    if (expectGain) {
      expect(after.reward - before.reward).toBeGreaterThanOrEqual(0.3);
      expect(learnedAnswers(after, f.dataset)).toBeGreaterThanOrEqual(2);
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
    const run = await runToy(f.model(), f, 'sft', { lr });
    console.log(`lr=${lr}: ${describeToyRun(run)}`);
    const { before, after } = run.heldBack!;
    if (expectDrop) expect(after).toBeLessThan(0.75 * before);
    else expect(after).toBe(before);
  }, 60_000);
});
