/**
 * `evaluate` (evaluate.ts) with up to `concurrency` episodes in play at once, each in its own `SqlEnv` (one shared
 * SQL executor: databases are reopened read-only per episode). Same questions, same order, same seeds, same records
 * and report as `evaluate`; only the episodes overlap, so a policy whose turns are batched (a model decoding several
 * sequences together: src/policies/llm/batched-generator.ts) decodes several episodes at once. Records come back in
 * episode order whatever order they finish in.
 *
 * A failure (a cancel included) stops every lane at its next episode; the call rejects with the first error once
 * all lanes have settled, so whoever closes the executor after it never closes it under a running episode.
 */
import type { SqlEnv } from '../env/env.ts';
import type { Policy } from '../policies/policy.ts';
import { runEpisode } from './episode.ts';
import { buildReport, evaluationPlan, type EvalReport, type EvaluateOptions, type EvaluationPlan } from './evaluate.ts';
import type { EpisodeRecord } from './transcript.ts';

export async function evaluateConcurrently(createEnv: () => SqlEnv, policy: Policy, options: EvaluateOptions & { concurrency: number }): Promise<EvalReport> {
  const probe = createEnv();
  const datasetName = probe.dataset.name;
  let plan: EvaluationPlan;
  try {
    plan = evaluationPlan(probe, options);
  } finally {
    probe.close();
  }
  const { total } = plan;
  const records: EpisodeRecord[] = new Array<EpisodeRecord>(total);
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    const env = createEnv();
    try {
      while (next < total && !failed) {
        options.signal?.throwIfAborted();
        const i = next++;
        records[i] = await runEpisode(env, policy, plan.episode(i));
        options.onProgress?.(++done, total);
      }
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      env.close();
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(options.concurrency) || 1, total));
  const settled = await Promise.allSettled(Array.from({ length: lanes }, lane));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return buildReport(policy.name, datasetName, options, records);
}
