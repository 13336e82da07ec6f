/**
 * The README's Evaluate figures on the demo dataset, checked: with "All questions of the split, once each" the eval
 * split has 34 questions (53 train, 87 in all), Oracle solves every one of them, and Random with seed 0 solves none
 * ("0 of 34 with seed 0"). The split sizes are counted from the dataset's own question list, and success is the
 * environment's verifier on each episode, so a broken Oracle, a verifier that accepts anything, or a split that
 * moved shows here.
 */
import initSqlJs from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDataset } from '../../src/data/demo/build.ts';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { evaluate } from '../../src/eval/evaluate.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { LocalSqlExecutor } from '../../src/sql/executor.ts';

let demo: Dataset;
let executor: LocalSqlExecutor;
beforeAll(async () => {
  demo = await buildDemoDataset();
  executor = new LocalSqlExecutor(await initSqlJs());
}, 120_000);

describe('the demo baselines the README states', () => {
  it('has 87 questions: 53 train and 34 eval', () => {
    const count = (split: string) => demo.questions.filter((q) => q.split === split).length;
    expect([demo.questions.length, count('train'), count('eval')]).toEqual([87, 53, 34]);
  });

  it('Oracle solves all 34 eval questions, once each', async () => {
    const report = await evaluate(new SqlEnv(demo, executor), new OraclePolicy(), { episodes: 'all', seed: 0, split: 'eval' });
    expect(report.records.map((r) => r.questionId).sort()).toEqual(demo.questions.filter((q) => q.split === 'eval').map((q) => q.id).sort());
    expect(report.records.filter((r) => !r.success).map((r) => r.questionId)).toEqual([]);
  }, 120_000);

  it('Random with seed 0 solves none of the 34', async () => {
    const report = await evaluate(new SqlEnv(demo, executor), new RandomPolicy(), { episodes: 'all', seed: 0, split: 'eval' });
    expect(report.records).toHaveLength(34);
    expect(report.records.filter((r) => r.success).map((r) => r.questionId)).toEqual([]);
  }, 120_000);
});
