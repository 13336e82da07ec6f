/**
 * The episode service alone: sessions create their policy from the registry they were given (a policy registered
 * there plays; one registered elsewhere does not exist), one interactive executor serves every session and schema
 * read, `forgetDataset` drops only that dataset's sessions, and misuse is explained.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/data/types.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { EpisodeService } from '../../../src/workers/services/episode-service.ts';
import { countingExecutors, fixedPolicy, tinyLookup, type CountingExecutors } from './service-fixture.ts';

let lookup: (name: string) => Promise<Dataset>;
let executors: CountingExecutors;
beforeAll(async () => {
  ({ lookup } = await tinyLookup());
  executors = await countingExecutors();
});

function service(policies = new PolicyRegistry()): EpisodeService {
  return new EpisodeService({ dataset: lookup, policies, createExecutor: executors.create });
}

describe('EpisodeService', () => {
  it("plays a policy from its own registry, and only the action and raw text of its decision cross", async () => {
    const policies = new PolicyRegistry();
    policies.register({ name: 'fixed', label: 'Fixed', description: 'Answers 5.' }, () => fixedPolicy('fixed', 'ANSWER 5'));
    const episodes = service(policies);
    await episodes.reset('w', 'tiny', { questionId: 'tiny-1', seed: 3 }, 'fixed');
    const { decision, result, step } = await episodes.policyStep('w');
    expect(decision).toEqual({ action: 'ANSWER 5', rawText: 'I play ANSWER 5' });
    expect(result.done).toBe(true);
    expect(result.info.correct).toBe(true);
    expect(step.actionText).toBe('ANSWER 5');
    await expect(service().reset('w', 'tiny', { questionId: 'tiny-1' }, 'fixed')).rejects.toThrow("Unknown policy 'fixed'. Policies: random, oracle.");
    await episodes.close();
  });

  it('shares one interactive executor between sessions and schema reads, made on first use and closed once', async () => {
    const episodes = service();
    const made = executors.made();
    const closed = executors.closed();
    const schema = await episodes.schema('tiny', 'concerts');
    expect(schema.map((t) => t.name)).toEqual(['singer', 'concert', 'performs']);
    await episodes.reset('a', 'tiny', { questionId: 'tiny-1' });
    await episodes.reset('b', 'tiny', { questionId: 'tiny-2' });
    expect((await episodes.step('a', 'QUERY SELECT count(*) FROM singer')).observation.result?.rows).toEqual([[5]]);
    expect(executors.made()).toBe(made + 1);
    await episodes.close();
    expect(executors.closed()).toBe(closed + 1);
    await expect(episodes.step('a', 'DESCRIBE singer')).rejects.toThrow("No session 'a': reset it first.");
  });

  it("forgetDataset drops that dataset's sessions only", async () => {
    const other = await lookup('tiny');
    const episodes = new EpisodeService({ dataset: async (name) => (name === 'copy' ? { ...other, name: 'copy' } : lookup(name)), policies: new PolicyRegistry(), createExecutor: executors.create });
    await episodes.reset('t', 'tiny', { questionId: 'tiny-1' });
    await episodes.reset('c', 'copy', { questionId: 'tiny-1' });
    episodes.forgetDataset('copy');
    await expect(episodes.step('c', 'DESCRIBE singer')).rejects.toThrow(/No session 'c'/);
    expect((await episodes.step('t', 'DESCRIBE singer')).done).toBe(false);
    await episodes.close();
  });

  it('explains a policy step in a session reset without a policy', async () => {
    const episodes = service();
    await episodes.reset('p', 'tiny', { questionId: 'tiny-1' });
    await expect(episodes.policyStep('p')).rejects.toThrow("Session 'p' has no policy: reset it with one.");
    await episodes.close();
  });
});
