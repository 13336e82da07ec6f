/**
 * Plays one episode of a policy in an environment and records it.
 */
import { createRng, type Rng } from '../data/rng.ts';
import type { SqlEnv } from '../env/env.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { ResetOptions } from '../env/types.ts';
import type { HistoryEntry, Policy } from '../policies/policy.ts';
import { generationRecord, transcriptStep, type EpisodeRecord, type GenerationRecord, type TranscriptStep } from './transcript.ts';

/** The policy's generator for an episode: seeded from the episode seed, apart from the question choice. */
export function policyRng(seed: number): Rng {
  return createRng((seed ^ 0x5bd1e995) >>> 0);
}

export async function runEpisode(env: SqlEnv, policy: Policy, reset: ResetOptions & { seed: number }): Promise<EpisodeRecord> {
  const { observation: first, info } = await env.reset(reset);
  const question = env.currentQuestion();
  const rng = policyRng(reset.seed);
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
    const step = transcriptStep(result, decision.rawText);
    const stats = (decision as { stats?: GenerationRecord }).stats; // a model policy's turn (LlmDecision)
    if (stats) step.generation = generationRecord(stats);
    transcript.push(step);
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
