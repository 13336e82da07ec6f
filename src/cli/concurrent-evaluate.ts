/**
 * `evaluate` (src/eval/evaluate.ts) with up to `concurrency` episodes in play at once, each in its own `SqlEnv` (one
 * shared SQL executor: databases are reopened read-only per episode). Same questions, same order, same seeds, same
 * records and report as `evaluate`; only the episodes overlap, so a policy whose turns are batched (batch-generate.ts)
 * decodes several episodes together. Records come back in episode order whatever order they finish in.
 *
 * Kept here rather than in src/eval because only the CLI needs it today; it would sit beside `evaluate` unchanged.
 */
import type { SqlEnv } from '../env/env.ts';
import { runEpisode } from '../eval/episode.ts';
import { buildReport, evaluationPlan, type EvalReport, type EvaluateOptions, type EvaluationPlan } from '../eval/evaluate.ts';
import type { EpisodeRecord } from '../eval/transcript.ts';
import type { Policy } from '../policies/policy.ts';

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
  const lane = async (): Promise<void> => {
    const env = createEnv();
    try {
      while (next < total) {
        options.signal?.throwIfAborted();
        const i = next++;
        records[i] = await runEpisode(env, policy, plan.episode(i));
        options.onProgress?.(++done, total);
      }
    } finally {
      env.close();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, total)) }, lane));
  return buildReport(policy.name, datasetName, options, records);
}
