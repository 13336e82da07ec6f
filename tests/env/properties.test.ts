/**
 * The reward properties the design promises, checked over many seeded episodes of the real environment:
 * Oracle beats any episode without a correct answer, repeats never add return, components stay in bounds,
 * and one seed gives one trajectory.
 */
import { describe, expect, it } from 'vitest';
import { createRng, pick } from '../../src/data/rng.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { maxReturnWithoutCorrectAnswer, OPERATIONAL } from '../../src/env/rewards.ts';
import { runEpisode } from '../../src/eval/episode.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

describe('reward properties', () => {
  it('an Oracle episode returns more than any episode that does not answer correctly can', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const bound = maxReturnWithoutCorrectAnswer(env.config.weights, env.config.budget);
    for (const q of tiny.dataset.questions) {
      const record = await runEpisode(env, new OraclePolicy(), { questionId: q.id, seed: 1 });
      expect(record.success).toBe(true);
      expect(record.episodeReturn).toBeGreaterThan(bound);
    }
  });

  it('random episodes stay within every bound, and failed ones below the Oracle bound', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor);
    const bound = maxReturnWithoutCorrectAnswer(env.config.weights, env.config.budget);
    for (let seed = 0; seed < 150; seed++) {
      const record = await runEpisode(env, new RandomPolicy(0.05), { split: 'all', seed });
      let progress = 0;
      for (const step of record.transcript) {
        expect([0, 1]).toContain(step.components.correctness);
        expect(step.components.progress).toBeGreaterThanOrEqual(0);
        expect(step.components.progress).toBeLessThanOrEqual(1);
        expect(step.components.operational).toBeGreaterThanOrEqual(OPERATIONAL.error);
        expect(step.components.operational).toBeLessThanOrEqual(OPERATIONAL.newInformation);
        progress += step.components.progress;
      }
      expect(progress).toBeLessThanOrEqual(1 + 1e-12);
      expect(record.steps).toBeLessThanOrEqual(env.config.budget);
      if (!record.success) expect(record.episodeReturn).toBeLessThanOrEqual(bound + 1e-12);
    }
  });

  it('repeating any earlier action never earns a positive reward', async () => {
    const env = new SqlEnv(tiny.dataset, tiny.executor, { budget: 20 });
    const rng = createRng(7);
    const pool = ['DESCRIBE singer', 'SAMPLE concert', 'QUERY SELECT count(*) FROM singer', "QUERY SELECT name FROM singer WHERE country = 'France'", 'QUERY SELECT * FROM performs', 'DESCRIBE nosuch', 'QUERY SELECT nope'];
    for (let episode = 0; episode < 20; episode++) {
      await env.reset({ split: 'all', seed: episode });
      const taken = new Set<string>();
      for (let i = 0; i < 19; i++) {
        const action = pick(rng, pool);
        const r = await env.step(action);
        if (taken.has(action)) {
          expect(r.reward).toBeLessThanOrEqual(0);
          expect(r.info.components.progress).toBe(0);
        }
        taken.add(action);
      }
    }
  });

  it('the same seed gives the same trajectory', async () => {
    const a = new SqlEnv(tiny.dataset, tiny.executor);
    const b = new SqlEnv(tiny.dataset, tiny.executor);
    for (let seed = 0; seed < 10; seed++) {
      const ra = await runEpisode(a, new RandomPolicy(), { split: 'all', seed });
      const rb = await runEpisode(b, new RandomPolicy(), { split: 'all', seed });
      expect(ra).toEqual(rb);
    }
  });
});
