/**
 * The reward equation shown under each step (src/ui/components/reward-terms.ts) against the environment's own
 * rewards: episodes on the tiny dataset cover every kind of step (new information, progress, nothing new, a repeat,
 * an error, a wrong and a correct answer with its settlement), and for each the numbers AS PRINTED must add up to
 * the reward AS PRINTED (within the rounding of 3 decimals). No expected string is typed here.
 */
import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../../src/env/env.ts';
import type { RewardWeights } from '../../../src/env/rewards.ts';
import { DEFAULT_ENV_CONFIG, type StepResult } from '../../../src/env/types.ts';
import { plain, rewardEquation, signed } from '../../../src/ui/components/reward-terms.ts';
import { useTinyDataset } from '../../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

/** Reads a printed number back: "+0.220", "−0.050", "(−0.050)", "0.000". */
function read(text: string): number {
  return Number(text.replace(/[()]/g, '').replace('−', '-').replace('+', ''));
}

/** The terms of a printed equation as [weight, value] pairs. */
function printedTerms(equation: string): Array<[number, number]> {
  return equation.split(' + ').map((term) => {
    const m = /^(\S+) × (correctness|progress|operational) (\S+)$/.exec(term);
    if (!m) throw new Error(`unreadable term '${term}' in '${equation}'`);
    return [read(m[1]), read(m[3])];
  });
}

async function play(weights: RewardWeights, questionId: string, actions: readonly string[]): Promise<StepResult[]> {
  const env = new SqlEnv(tiny.dataset, tiny.executor, { queryTimeoutMs: 800, weights });
  await env.reset({ questionId });
  const steps: StepResult[] = [];
  for (const action of actions) steps.push(await env.step(action));
  return steps;
}

const EPISODES: ReadonlyArray<[string, string[]]> = [
  // The error (FROB) before the correct answer makes the settlement refund more than the step costs (environment v3
  // pays nothing positive along the way), so operational reaches a positive value too.
  ['tiny-2', ['DESCRIBE singer', 'SAMPLE singer', "QUERY SELECT name FROM singer WHERE country = 'Spain'", 'FROB', "QUERY SELECT name FROM singer WHERE country = 'France'", 'ANSWER Ana, Cy']],
  ['tiny-1', ['DESCRIBE concert', 'DESCRIBE singer', 'DESCRIBE singer', 'QUERY SELECT nope FROM singer', 'FROB', 'QUERY SELECT 5', 'ANSWER 99']],
  ['tiny-5', ['QUERY SELECT net_worth FROM singer', 'QUERY SELECT avg(net_worth) FROM singer', 'SAMPLE nowhere', 'ANSWER 0']],
  // A correct answer after plain steps only: the settlement's operational part is exactly 0.
  ['tiny-1', ['QUERY SELECT count(*) FROM singer', 'ANSWER 5']],
];

describe('rewardEquation', () => {
  for (const weights of [DEFAULT_ENV_CONFIG.weights, { correctness: 2, progress: 0.35, operational: 0.5 }]) {
    it(`adds up on screen for every kind of step (weights ${JSON.stringify(weights)})`, async () => {
      let checked = 0;
      const operationalSigns = new Set<number>();
      const progressSigns = new Set<number>();
      for (const [questionId, actions] of EPISODES) {
        for (const step of await play(weights, questionId, actions)) {
          const equation = rewardEquation(step.info.components, weights, step.reward);
          expect(equation, `a step of ${questionId}`).not.toBeNull();
          const terms = printedTerms(equation ?? '');
          expect(terms.map(([w]) => w)).toEqual([weights.correctness, weights.progress, weights.operational]);
          const printedSum = terms.reduce((sum, [w, v]) => sum + w * v, 0);
          // Each printed value is within 0.0005 of the true one; the weights are exact.
          const tolerance = 0.0005 * (weights.correctness + weights.progress + weights.operational) + 0.0005 + 1e-12;
          expect(Math.abs(printedSum - read(signed(step.reward))), `${equation} vs reward ${signed(step.reward)}`).toBeLessThanOrEqual(tolerance);
          operationalSigns.add(Math.sign(step.info.components.operational));
          progressSigns.add(Math.sign(step.info.components.progress));
          checked++;
        }
      }
      expect(checked).toBe(EPISODES.reduce((n, [, a]) => n + a.length, 0));
      // The episodes do reach positive, zero and negative values of both shaping parts.
      expect([...operationalSigns].sort()).toEqual([-1, 0, 1]);
      expect([...progressSigns].sort()).toEqual([-1, 0, 1]);
    });
  }

  it('refuses to print an equation for a reward computed with other weights', async () => {
    const other = { correctness: 2, progress: 0.5, operational: 0.5 };
    const [describe, , query] = await play(other, 'tiny-2', ['DESCRIBE singer', 'SAMPLE singer', "QUERY SELECT name FROM singer WHERE country = 'France'"]);
    expect(rewardEquation(query.info.components, DEFAULT_ENV_CONFIG.weights, query.reward)).toBeNull();
    expect(rewardEquation(describe.info.components, DEFAULT_ENV_CONFIG.weights, describe.reward)).toBeNull();
    expect(rewardEquation(query.info.components, other, query.reward)).not.toBeNull();
  });
});

describe('signed and plain', () => {
  it('writes zero, and what rounds to zero, without a sign', () => {
    for (const x of [0, -0, 1e-9, -1e-9, -0.0004]) {
      expect(signed(x)).toBe('0.000');
      expect(plain(x)).toBe('0.000');
    }
  });
  it('writes other numbers with a true minus sign and, for signed, a plus', () => {
    expect(signed(0.22)).toBe('+0.220');
    expect(signed(-0.05)).toBe('−0.050');
    expect(plain(0.98)).toBe('0.980');
    expect(plain(-0.05)).toBe('−0.050');
  });
});
