/**
 * The evaluation service alone: it evaluates the policies of its own registry, each run on an executor of its own
 * that is closed whatever happens (an unknown policy included), and `close` stops every run in progress.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { EvaluationService } from '../../../src/workers/services/evaluation-service.ts';
import { countingExecutors, fixedPolicy, tinyLookup, type CountingExecutors } from './service-fixture.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

describe('EvaluationService', () => {
  it('evaluates a policy of its registry on an executor of its own per run, closed after', async () => {
    const policies = new PolicyRegistry();
    policies.register({ name: 'five', label: 'Five', description: 'Always answers 5.' }, () => fixedPolicy('five', 'ANSWER 5'));
    const evaluation = new EvaluationService({ dataset: lookup, policies, createExecutor: executors.create });
    const made = executors.made();
    const closed = executors.closed();
    const report = await evaluation.evaluate({ runId: 'r', dataset: 'tiny', policy: 'five', split: 'all', episodes: 'all', seed: 0 });
    expect(report.policy).toBe('five');
    expect(report.records.map((r) => r.success)).toEqual([true, false, false, false, false]); // only tiny-1 counts 5 singers
    await expect(evaluation.evaluate({ runId: 'u', dataset: 'tiny', policy: 'qwen', split: 'all', episodes: 1, seed: 0 })).rejects.toThrow(/Unknown policy 'qwen'/);
    expect(executors.made() - made).toBe(2);
    expect(executors.closed() - closed).toBe(2);
  });

  it('close stops every run in progress', async () => {
    const evaluation = new EvaluationService({ dataset: lookup, policies: new PolicyRegistry(), createExecutor: executors.create });
    let closedOnce = false;
    const running = evaluation.evaluate({ runId: 'long', dataset: 'tiny', policy: 'random', split: 'all', episodes: 500, seed: 0 }, () => {
      if (!closedOnce) evaluation.close();
      closedOnce = true;
    });
    await expect(running).rejects.toThrow(/abort/i);
  });
});
