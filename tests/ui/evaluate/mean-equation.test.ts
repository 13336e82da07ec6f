/**
 * Evaluate's "Mean return = w × mean correctness + …" line (RunResults.tsx, built with reward-terms.ts) against real
 * evaluation reports on the tiny dataset: the printed means must add up to the printed mean return.
 */
import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../../src/env/env.ts';
import { DEFAULT_ENV_CONFIG } from '../../../src/env/types.ts';
import { evaluate } from '../../../src/eval/evaluate.ts';
import { OraclePolicy } from '../../../src/policies/oracle.ts';
import { RandomPolicy } from '../../../src/policies/random.ts';
import { plain, rewardEquation } from '../../../src/ui/components/reward-terms.ts';
import { useTinyDataset } from '../../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

const read = (text: string): number => Number(text.replace(/[()]/g, '').replace('−', '-'));

describe('the mean return as weighted mean parts', () => {
  for (const [name, policy] of [
    ['Oracle', () => new OraclePolicy()],
    ['Random', () => new RandomPolicy()],
  ] as const) {
    it(`adds up for a ${name} run`, async () => {
      const report = await evaluate(new SqlEnv(tiny.dataset, tiny.executor, { queryTimeoutMs: 800 }), policy(), { episodes: 'all', seed: 3, split: 'all' });
      const w = DEFAULT_ENV_CONFIG.weights;
      const equation = rewardEquation(report.mean_components, w, report.mean_return);
      expect(equation).not.toBeNull();
      const sum = (equation ?? '').split(' + ').reduce((acc, term) => {
        const [weight, , , value] = term.split(' ');
        return acc + read(weight) * read(value);
      }, 0);
      expect(Math.abs(sum - read(plain(report.mean_return)))).toBeLessThanOrEqual(0.0005 * (w.correctness + w.progress + w.operational) + 0.0005 + 1e-12);
    });
  }
});
