/**
 * evaluateConcurrently (src/cli/concurrent-evaluate.ts): episodes overlap, but questions, seeds, order and records are
 * evaluate()'s, whatever the number of lanes.
 */
import { describe, expect, it } from 'vitest';
import { evaluateConcurrently } from '../../src/cli/concurrent-evaluate.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { evaluate } from '../../src/eval/evaluate.ts';
import type { EpisodeRecord } from '../../src/eval/transcript.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

/** A record without its wall-clock fields. */
function timeless(record: EpisodeRecord): unknown {
  return JSON.parse(JSON.stringify(record, (key: string, value: unknown) => (/seconds|ms$|Ms$|time/i.test(key) ? undefined : value)));
}

describe('evaluateConcurrently', () => {
  for (const concurrency of [1, 3, 16]) {
    it(`gives evaluate()'s records with ${concurrency} lane(s), N episodes cycling and 'all'`, async () => {
      for (const episodes of [7, 'all'] as const) {
        const options = { episodes, seed: 5, split: 'all' as const };
        const one = await evaluate(new SqlEnv(tiny.dataset, tiny.executor), new RandomPolicy(), options);
        const progress: number[] = [];
        const many = await evaluateConcurrently(() => new SqlEnv(tiny.dataset, tiny.executor), new RandomPolicy(), { ...options, concurrency, onProgress: (d) => progress.push(d) });
        expect(many.records.map(timeless)).toEqual(one.records.map(timeless));
        expect(many.success_rate).toBe(one.success_rate);
        expect(progress).toEqual(Array.from({ length: one.episodes }, (_, i) => i + 1));
      }
    });
  }

  it('refuses an empty split', async () => {
    await expect(evaluateConcurrently(() => new SqlEnv(tiny.dataset, tiny.executor), new RandomPolicy(), { episodes: 3, seed: 0, split: 'heldout', concurrency: 2 })).rejects.toThrow(/No questions in split 'heldout'/);
  });
});
