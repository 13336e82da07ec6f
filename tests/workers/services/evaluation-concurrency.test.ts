/**
 * The evaluation service with a policy that plays several episodes at once (`Policy.concurrency`, the loaded model's
 * decode slots): episodes overlap up to that many, and the records, order and report are those of one at a time;
 * a cancel stops every episode in play and the run's executor is closed only after they all stopped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import type { Policy, PolicyDecision } from '../../../src/policies/policy.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { RandomPolicy } from '../../../src/policies/random.ts';
import { EvaluationService } from '../../../src/workers/services/evaluation-service.ts';
import { countingExecutors, tinyLookup, type CountingExecutors } from './service-fixture.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

/** Random's decisions, a macrotask late each, with `concurrency` declared and the most episodes seen in play at once. */
function overlapping(concurrency: number): { policy: Policy; most: () => number; inPlay: () => number } {
  const random = new RandomPolicy();
  let now = 0;
  let most = 0;
  const policy: Policy = {
    name: 'random',
    concurrency,
    act: async (context): Promise<PolicyDecision> => {
      now++;
      most = Math.max(most, now);
      try {
        await new Promise((resolve) => setTimeout(resolve, 0));
        return await random.act(context);
      } finally {
        now--;
      }
    },
  };
  return { policy, most: () => most, inPlay: () => now };
}

/** A record without its wall-clock fields. */
function timeless(record: unknown): unknown {
  return JSON.parse(JSON.stringify(record, (key: string, value: unknown) => (/seconds|ms$|Ms$|time/i.test(key) ? undefined : value)));
}

describe('EvaluationService with a concurrent policy', () => {
  it('plays up to `concurrency` episodes at once with the records of one at a time', async () => {
    const run = async (concurrency: number) => {
      const policies = new PolicyRegistry();
      const o = overlapping(concurrency);
      policies.register({ name: 'overlap', label: 'Overlap', description: 'Random, several at once.' }, () => o.policy);
      const service = new EvaluationService({ dataset: lookup, policies, createExecutor: executors.create });
      const done: number[] = [];
      const report = await service.evaluate({ runId: `c${concurrency}`, dataset: 'tiny', policy: 'overlap', split: 'all', episodes: 9, seed: 4 }, (d, _t, current) => {
        if (current === null) done.push(d);
      });
      return { report, most: o.most(), done };
    };
    const one = await run(1);
    const three = await run(3);
    expect(one.most).toBe(1);
    expect(three.most).toBe(3);
    expect(three.report.records.map(timeless)).toEqual(one.report.records.map(timeless));
    expect(three.report.success_rate).toBe(one.report.success_rate);
    expect(three.done.at(-1)).toBe(9);
  });

  it('a cancel stops every episode in play, and the executor closes after they all stopped', async () => {
    const policies = new PolicyRegistry();
    const o = overlapping(4);
    policies.register({ name: 'overlap', label: 'Overlap', description: 'Random, several at once.' }, () => o.policy);
    const service = new EvaluationService({ dataset: lookup, policies, createExecutor: executors.create });
    const closed = executors.closed();
    let cancelled = false;
    const running = service.evaluate({ runId: 'x', dataset: 'tiny', policy: 'overlap', split: 'all', episodes: 200, seed: 1 }, (d) => {
      if (d >= 3 && !cancelled) {
        cancelled = true;
        service.cancelEvaluation('x');
      }
    });
    await expect(running).rejects.toThrow(/cancelled/i);
    expect(o.inPlay()).toBe(0);
    expect(executors.closed() - closed).toBe(1);
  });
});
