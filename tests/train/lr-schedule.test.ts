/**
 * The learning-rate schedule (src/train/lr-schedule.ts): its values worked out by hand from the header's formulas
 * and from transformers' get_linear_schedule_with_warmup (lambda(k) = max(0, (T − k) / (T − W)) for k ≥ W, k = step − 1),
 * and the trainer really stepping AdamW at the scheduled rate: a linear run of 2 steps equals, to the bit, a
 * constant-rate step at lr followed by a resumed constant-rate step at lr / 2.
 */
import { describe, expect, it } from 'vitest';
import { LORA_TARGETS } from '../../src/model/lora.ts';
import { learningRateAt } from '../../src/train/lr-schedule.ts';
import { Trainer } from '../../src/train/trainer.ts';
import type { TrainConfig } from '../../src/train/types.ts';
import { SMALL_GRPO, useToyTask } from './toy-fixture.ts';

describe('learningRateAt', () => {
  const at = (steps: number, warmupSteps: number, lrSchedule: TrainConfig['lrSchedule'], step: number) => learningRateAt({ lr: 0.01, steps, warmupSteps, lrSchedule }, step);
  const expectRates = (got: number[], want: number[]) => {
    expect(got).toHaveLength(want.length);
    got.forEach((g, i) => expect(g, `step ${i + 1}`).toBeCloseTo(want[i], 15));
  };

  it('warms up linearly to lr at step W, the same under both schedules', () => {
    for (const schedule of ['constant', 'linear'] as const) {
      expectRates([1, 2, 3, 4, 5].map((s) => at(100, 5, schedule, s)), [0.002, 0.004, 0.006, 0.008, 0.01]);
    }
  });

  it("'constant' keeps lr after the warm-up", () => {
    expect([6, 50, 100].map((s) => at(100, 5, 'constant', s))).toEqual([0.01, 0.01, 0.01]);
  });

  it("'linear' starts its decay at lr and reaches lr / (T − W) at the last step, then 0", () => {
    // T = 100, W = 5: step 6 is k = 5 → (100 − 5) / 95 = 1; step 7 → 94 / 95; step 100 (k = 99) → 1 / 95.
    expect(at(100, 5, 'linear', 6)).toBe(0.01);
    expect(at(100, 5, 'linear', 7)).toBeCloseTo((0.01 * 94) / 95, 15);
    expect(at(100, 5, 'linear', 100)).toBeCloseTo(0.01 / 95, 15);
    expect(at(100, 5, 'linear', 101)).toBe(0);
    // No warm-up, T = 4: transformers gives 1, 3/4, 1/2, 1/4 of lr for k = 0..3.
    expectRates([1, 2, 3, 4].map((s) => at(4, 0, 'linear', s)), [0.01, 0.0075, 0.005, 0.0025]);
  });
});

describe('the trainer steps at the scheduled rate', () => {
  const f = useToyTask();
  const SFT: Partial<TrainConfig> = { ...SMALL_GRPO, algo: 'sft', sftExamplesPerStep: 3, lr: 0.02, warmupSteps: 0 };
  const adapterValues = (m: ReturnType<typeof f.model>) => m.adapter.layers.flatMap((l) => LORA_TARGETS.flatMap((t) => [...l[t]!.a.data, ...l[t]!.b.data]));

  it('a 2-step linear run = a step at lr, then a resumed step at lr / 2', async () => {
    const linear = f.model();
    const run = await new Trainer({ model: linear, dataset: f.dataset, executor: f.executor }, { ...SFT, steps: 2, lrSchedule: 'linear' }).run();
    expect(run.metrics.map((m) => m.lr)).toEqual([0.02, 0.01]);

    const byHand = f.model();
    await new Trainer({ model: byHand, dataset: f.dataset, executor: f.executor }, { ...SFT, steps: 1, lrSchedule: 'constant' }).run();
    await new Trainer({ model: byHand, dataset: f.dataset, executor: f.executor }, { ...SFT, steps: 2, lr: 0.01, lrSchedule: 'constant' }).run({ startStep: 1 });
    expect(adapterValues(byHand)).toEqual(adapterValues(linear));

    // And the schedule matters: two constant steps at lr end elsewhere.
    const constant = f.model();
    await new Trainer({ model: constant, dataset: f.dataset, executor: f.executor }, { ...SFT, steps: 2, lrSchedule: 'constant' }).run();
    expect(adapterValues(constant)).not.toEqual(adapterValues(linear));
  });
});
