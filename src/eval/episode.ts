/**
 * Plays one episode of a policy in an environment and records it.
 */
import { createRng } from '../data/rng.ts';
import { formatAction } from '../env/actions.ts';
import type { SqlEnv } from '../env/env.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { ResetOptions } from '../env/types.ts';
import type { HistoryEntry, Policy } from '../policies/policy.ts';
import type { EpisodeRecord, TranscriptStep } from './transcript.ts';

export async function runEpisode(env: SqlEnv, policy: Policy, reset: ResetOptions & { seed: number }): Promise<EpisodeRecord> {
  const { observation: first, info } = await env.reset(reset);
  const question = env.currentQuestion();
  // The policy's randomness is seeded from the episode seed, apart from the question choice.
  const rng = createRng((reset.seed ^ 0x5bd1e995) >>> 0);
  const history: HistoryEntry[] = [];
  const transcript: TranscriptStep[] = [];
  const components: RewardComponents = { correctness: 0, progress: 0, operational: 0 };
  let observation = first;
  let done = false;
  let success = false;
  while (!done) {
    const decision = await policy.act({ first, history, observation, question, rng });
    const result = await env.step(decision.action);
    history.push({ action: result.info.action, observation: result.observation, reward: result.reward });
    transcript.push({
      action: result.info.action,
      actionText: formatAction(result.info.action),
      observation: result.observation.text,
      reward: result.reward,
      components: result.info.components,
      outcome: result.info.outcome,
      ...(decision.rawText !== undefined && { rawText: decision.rawText }),
    });
    for (const key of ['correctness', 'progress', 'operational'] as const) components[key] += result.info.components[key];
    observation = result.observation;
    done = result.done;
    success = result.info.correct === true;
  }
  const state = env.state();
  return {
    policy: policy.name,
    dataset: env.dataset.name,
    questionId: info.questionId,
    dbId: question.dbId,
    question: question.question,
    difficulty: question.difficulty,
    split: question.split,
    seed: reset.seed,
    success,
    episodeReturn: state.episodeReturn,
    components,
    steps: state.stepsUsed,
    terminated: state.terminated,
    truncated: state.truncated,
    transcript,
  };
}
