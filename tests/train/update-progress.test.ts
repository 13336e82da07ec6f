/**
 * The update's progress bar moves inside a micro-batch (src/train/trainer.ts, updateProgress): with one micro-batch
 * an update used to read 0 % from its first pass to its end. Each pass's report carries the work finished before
 * it, counted in forward passes with a backward costing two (its FLOPs): so a micro-batch of forward + backward
 * reads 0 at the forward and 1/3 at the backward, and one that starts with a reference forward (KL β > 0, first
 * update) reads 0, 1/4 and 2/4. Expected values are worked out here from that rule, not read from the code.
 */
import { describe, expect, it } from 'vitest';
import { Trainer } from '../../src/train/trainer.ts';
import type { TrainConfig, TrainProgress } from '../../src/train/types.ts';
import { SMALL_GRPO, useToyTask } from './toy-fixture.ts';

const f = useToyTask();

/** The update reports of a one-step run of `config`: (pass named in the sentence or 'done', done, total). */
async function updateReports(config: Partial<TrainConfig>): Promise<Array<{ part: string; done: number; total: number }>> {
  const reports: TrainProgress[] = [];
  const trainer = new Trainer({ model: f.model(), dataset: f.dataset, executor: f.executor, progressIntervalMs: 0 }, { ...config, steps: 1 }, {
    onProgress: (p) => {
      if (p.activity === 'update') reports.push(p);
    },
  });
  await trainer.run();
  return reports.map((p) => ({ part: /: ((?:reference )?forward|backward) pass/.exec(p.text)?.[1] ?? (/ done \(/.test(p.text) ? 'done' : 'start'), done: p.done, total: p.total }));
}

describe('update progress inside a micro-batch', () => {
  it('one SFT micro-batch: 0 at the forward, 1/3 at the backward, 1 when done', async () => {
    const reports = await updateReports({ ...SMALL_GRPO, algo: 'sft', sftExamplesPerStep: 2, microBatchTokens: 100_000 });
    const passes = reports.filter((r) => r.part !== 'start');
    expect(passes.map((r) => r.part)).toEqual(['forward', 'backward', 'done', 'done']); // the last: finish()
    expect(passes.every((r) => r.total === 1)).toBe(true);
    expect(passes[0].done).toBe(0);
    expect(passes[1].done).toBeCloseTo(1 / 3, 12);
    expect(passes[2].done).toBe(1);
  });

  it('a GRPO micro-batch with a reference forward: 0, 1/4, 2/4, then 1', async () => {
    const reports = await updateReports({ ...SMALL_GRPO, klBeta: 0.01, updatesPerRollout: 1, microBatchTokens: 100_000 });
    const passes = reports.filter((r) => r.part !== 'start' && r.part !== 'done');
    expect(passes.map((r) => r.part)).toEqual(['reference forward', 'forward', 'backward']);
    expect(passes.map((r) => r.done / r.total)).toEqual([0, 1 / 4, 2 / 4]);
    expect(reports.at(-1)).toMatchObject({ done: 1, total: 1 });
  });

  it('several micro-batches: the k-th backward reads k − 1 + 1/3, and done never goes back', async () => {
    const reports = await updateReports({ ...SMALL_GRPO, algo: 'sft', sftExamplesPerStep: 4, microBatchTokens: 64 });
    const backwards = reports.filter((r) => r.part === 'backward');
    expect(backwards.length).toBeGreaterThan(1);
    backwards.forEach((r, k) => expect(r.done).toBeCloseTo(k + 1 / 3, 12));
    for (let i = 1; i < reports.length; i++) expect(reports[i].done).toBeGreaterThanOrEqual(reports[i - 1].done);
  });
});
