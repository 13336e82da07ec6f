/**
 * Evaluation: plays a policy over a question set and summarises success, return, reward components and steps,
 * overall and by difficulty and database. `episodes: 'all'` plays every question of the split once, in dataset
 * order; a number N plays N questions drawn without replacement in a seeded order (cycling when N exceeds them).
 */
import { createRng, shuffled } from '../data/rng.ts';
import { DIFFICULTIES, type SplitSelector } from '../data/types.ts';
import type { SqlEnv } from '../env/env.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { Policy } from '../policies/policy.ts';
import { runEpisode } from './episode.ts';
import type { EpisodeRecord } from './transcript.ts';

export interface EvaluateOptions {
  episodes: number | 'all';
  seed: number;
  split: SplitSelector;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface GroupSummary {
  episodes: number;
  success_rate: number;
  mean_return: number;
  mean_steps: number;
}

export interface EvalReport extends GroupSummary {
  policy: string;
  dataset: string;
  split: SplitSelector;
  seed: number;
  mean_components: RewardComponents;
  by_difficulty: Record<string, GroupSummary>;
  by_database: Record<string, GroupSummary>;
  records: EpisodeRecord[];
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export function summarise(records: readonly EpisodeRecord[]): GroupSummary {
  return {
    episodes: records.length,
    success_rate: mean(records.map((r) => (r.success ? 1 : 0))),
    mean_return: mean(records.map((r) => r.episodeReturn)),
    mean_steps: mean(records.map((r) => r.steps)),
  };
}

function groupBy(records: readonly EpisodeRecord[], key: (r: EpisodeRecord) => string, order?: readonly string[]): Record<string, GroupSummary> {
  const groups = new Map<string, EpisodeRecord[]>();
  for (const k of order ?? []) groups.set(k, []);
  for (const r of records) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  const out: Record<string, GroupSummary> = {};
  for (const [k, group] of groups) if (group.length > 0) out[k] = summarise(group);
  return out;
}

export function buildReport(policy: string, dataset: string, options: Pick<EvaluateOptions, 'split' | 'seed'>, records: EpisodeRecord[]): EvalReport {
  return {
    policy,
    dataset,
    split: options.split,
    seed: options.seed,
    ...summarise(records),
    mean_components: {
      correctness: mean(records.map((r) => r.components.correctness)),
      progress: mean(records.map((r) => r.components.progress)),
      operational: mean(records.map((r) => r.components.operational)),
    },
    by_difficulty: groupBy(records, (r) => r.difficulty, DIFFICULTIES),
    by_database: groupBy(records, (r) => r.dbId),
    records,
  };
}

/** The episodes of an evaluation: 'all' in dataset order, N drawn from a seeded shuffle (cycling); episode i is seeded seed + i. */
export interface EvaluationPlan {
  total: number;
  episode(i: number): { questionId: string; seed: number };
}

export function evaluationPlan(env: SqlEnv, options: Pick<EvaluateOptions, 'split' | 'episodes' | 'seed'>): EvaluationPlan {
  const candidates = env.candidates({ split: options.split });
  if (candidates.length === 0) throw new RangeError(`No questions in split '${options.split}' of dataset '${env.dataset.name}'.`);
  const order = options.episodes === 'all' ? candidates : shuffled(createRng(options.seed), candidates);
  return {
    total: options.episodes === 'all' ? candidates.length : options.episodes,
    episode: (i) => ({ questionId: order[i % order.length].id, seed: (options.seed + i) >>> 0 }),
  };
}

export async function evaluate(env: SqlEnv, policy: Policy, options: EvaluateOptions): Promise<EvalReport> {
  const plan = evaluationPlan(env, options);
  const records: EpisodeRecord[] = [];
  for (let i = 0; i < plan.total; i++) {
    options.signal?.throwIfAborted();
    records.push(await runEpisode(env, policy, plan.episode(i)));
    options.onProgress?.(i + 1, plan.total);
  }
  return buildReport(policy.name, env.dataset.name, options, records);
}
