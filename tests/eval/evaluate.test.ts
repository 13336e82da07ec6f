import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { evaluate } from '../../src/eval/evaluate.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

describe('evaluate', () => {
  it('plays every question once with episodes=all and summarises by difficulty and database', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const progress: number[] = [];
    const report = await evaluate(env, new OraclePolicy(), { episodes: 'all', seed: 0, split: 'all', onProgress: (d) => progress.push(d) });
    expect(report.episodes).toBe(tiny.dataset.questions.length);
    expect(report.records.map((r) => r.questionId)).toEqual(tiny.dataset.questions.map((q) => q.id));
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    expect(report.success_rate).toBe(1);
    expect(report.mean_components.correctness).toBe(1);
    expect(report.by_difficulty.easy.episodes).toBe(3);
    expect(report.by_difficulty.medium.episodes).toBe(2);
    expect(report.by_difficulty.hard).toBeUndefined();
    expect(report.by_database.concerts.episodes).toBe(5);
    const steps = report.records.reduce((a, r) => a + r.steps, 0) / report.records.length;
    expect(report.mean_steps).toBeCloseTo(steps);
  });

  it('draws N episodes without replacement in a seeded order, cycling past the end', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const a = await evaluate(env, new RandomPolicy(), { episodes: 7, seed: 3, split: 'all' });
    const b = await evaluate(env, new RandomPolicy(), { episodes: 7, seed: 3, split: 'all' });
    expect(a.records).toEqual(b.records);
    const ids = a.records.map((r) => r.questionId);
    expect(new Set(ids.slice(0, 5)).size).toBe(5);
    expect(ids.slice(5)).toEqual(ids.slice(0, 2));
    expect(a.success_rate).toBeLessThan(1);
  });

  it('stops when aborted and refuses an empty split', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const controller = new AbortController();
    controller.abort();
    await expect(evaluate(env, new OraclePolicy(), { episodes: 3, seed: 0, split: 'all', signal: controller.signal })).rejects.toThrow();
    await expect(evaluate(env, new OraclePolicy(), { episodes: 3, seed: 0, split: 'heldout' })).rejects.toThrow(/No questions/);
  });
});
