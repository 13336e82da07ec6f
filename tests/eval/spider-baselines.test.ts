/**
 * The baselines on the real Spider dev data: Oracle must solve every question whose gold SQL runs and returns rows
 * (all splits), and Random must run 1,000 seeded episodes without an error with a success rate near zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSpider } from '../../src/data/spider.ts';
import type { Dataset } from '../../src/data/types.ts';
import { SqlEnv } from '../../src/env/env.ts';
import { evaluate } from '../../src/eval/evaluate.ts';
import { OraclePolicy } from '../../src/policies/oracle.ts';
import { RandomPolicy } from '../../src/policies/random.ts';
import { createNodeSqlExecutor } from '../../src/sql/node-worker.ts';
import type { WorkerSqlExecutor } from '../../src/sql/worker-executor.ts';
import { spiderDir } from '../fixtures/spider-dir.ts';

let dataset: Dataset;
let executor: WorkerSqlExecutor;

beforeAll(async () => {
  executor = createNodeSqlExecutor();
  dataset = (await importSpider(spiderDir(), executor)).dataset;
}, 120_000);
afterAll(() => executor.close());

describe('baselines on Spider dev', () => {
  it('Oracle solves every question whose gold SQL runs and returns rows', async () => {
    // 972 gold queries run and 49 of them return no rows (shared/spider/README.md).
    expect(dataset.questions.length).toBe(972 - 49);
    const env = new SqlEnv(dataset, executor);
    const report = await evaluate(env, new OraclePolicy(), { episodes: 'all', seed: 0, split: 'all' });
    const failures = report.records.filter((r) => !r.success).map((r) => r.questionId);
    expect(failures).toEqual([]);
    expect(report.success_rate).toBe(1);
  }, 300_000);

  it('Random runs 1,000 seeded episodes without an error and almost never succeeds', async () => {
    const env = new SqlEnv(dataset, executor);
    const report = await evaluate(env, new RandomPolicy(), { episodes: 1000, seed: 42, split: 'all' });
    expect(report.episodes).toBe(1000);
    const errors = report.records.flatMap((r) => r.transcript.filter((s) => s.outcome === 'error').map((s) => `${r.questionId}: ${s.observation}`));
    expect(errors).toEqual([]);
    expect(report.success_rate).toBeLessThan(0.05);
    expect(report.mean_return).toBeLessThan(0.5);
  }, 300_000);
});
