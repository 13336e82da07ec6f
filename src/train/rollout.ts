/**
 * Rollouts: complete multi-turn episodes of the model against the real environment, each turned into ONE token
 * sequence with its loss mask (chat-sequence.ts): 1 on the model's own sampled tokens, 0 on the prompt and on every
 * tool (environment) turn. Episodes run in lockstep — every turn, one batched `generate` for all episodes still
 * going — each in its own `SqlEnv` (they may share one executor: databases are reopened read-only per episode).
 *
 * A turn: generate from the whole sequence so far (at most `maxNewTokensPerTurn`, and never past
 * `maxEpisodeTokens`), parse the reply exactly as LlmPolicy does (parse.ts; malformed replies become invalid
 * actions, which cost a step), step the environment, append the observation as a tool turn. An episode ends when
 * the environment says so (ANSWER, or its step budget), after `maxTurns` replies, or when the next tool turn cannot
 * fit the token limit even with its observation cut to a note ('context').
 *
 * Progress and cancellation (`RolloutHooks`): after every decode step `onProgress` hears the episodes finished, the
 * turn, the tokens generated and a fraction done (finished episodes count 1, live ones their turns so far plus the
 * current turn's tokens over its token limit); `signal` reaches the model's decode loop, so an abort ends the rollout
 * within one decode step (it rejects with the signal's reason; the episodes' environments are closed).
 *
 * Rewards: the environment's unweighted components summed over the episode, and their total weighted with the
 * run's `rewardWeights` (which may differ from the environment's own).
 */
import { createRng, hashString, type Rng } from '../data/rng.ts';
import type { Question } from '../data/types.ts';
import type { ParsedAction } from '../env/actions.ts';
import type { SqlEnv } from '../env/env.ts';
import { totalReward, type RewardComponents, type RewardWeights } from '../env/rewards.ts';
import type { StepOutcome } from '../env/types.ts';
import { parseCompletion } from '../policies/llm/parse.ts';
import { buildPrompt, truncateOutput, type Shot } from '../policies/llm/prompt.ts';
import { SequenceBuilder, toolTurnTokens, type ChatFormat } from './chat-sequence.ts';
import type { GenerateRequest, TrainableModel } from './policy-model.ts';

export interface RolloutSettings {
  maxTurns: number;
  maxNewTokensPerTurn: number;
  maxEpisodeTokens: number;
  temperature: number;
  topP: number;
  thinking: boolean;
  rewardWeights: RewardWeights;
  shots?: readonly Shot[];
}

export interface EpisodeTurn {
  /** The model's reply as text (end token excluded). */
  rawText: string;
  action: ParsedAction;
  outcome: StepOutcome;
  observation: string;
  /** Weighted with the run's reward weights. */
  reward: number;
  components: RewardComponents;
  /** The reply hit its token limit without an end token. */
  cutByLimit: boolean;
  replyTokens: number;
}

export type EpisodeEnd = 'answered' | 'budget' | 'turns' | 'context';

export interface RolledEpisode {
  questionId: string;
  question: string;
  dbId: string;
  seed: number;
  tokenIds: number[];
  /** 1 on the model's own tokens. */
  lossMask: Uint8Array;
  /** Sampled log-prob of each masked-in token, in order (under the sampling distribution used). */
  sampledLogProbs: Float64Array;
  /** Tokens of the first prompt. */
  promptTokens: number;
  turns: EpisodeTurn[];
  /** Unweighted, summed over the turns. */
  components: RewardComponents;
  /** Weighted total. */
  reward: number;
  correct: boolean;
  end: EpisodeEnd;
}

/** Where a rollout is, after every decode step. */
export interface RolloutProgress {
  episodes: number;
  finished: number;
  /** 1-based turn of the lockstep episodes. */
  turn: number;
  maxTurns: number;
  /** Tokens generated so far. */
  tokens: number;
  /** In [0, 1]: finished episodes count 1, live ones (turns done + this turn's tokens / its limit) / maxTurns. */
  fraction: number;
}

export interface RolloutHooks {
  signal?: AbortSignal;
  onProgress?(progress: RolloutProgress): void;
}

export class RolloutError extends Error {
  override name = 'RolloutError';
}

export interface RolloutTask {
  question: Question;
  /** Seeds the episode's sampling. */
  seed: number;
}

/** A uint32 seed from a run seed and labels (step, group, sample…): stable across machines and resumes. */
export function deriveSeed(seed: number, ...parts: Array<string | number>): number {
  return hashString([seed, ...parts].join(':'));
}

interface Live {
  task: RolloutTask;
  env: SqlEnv;
  seq: SequenceBuilder;
  rng: Rng;
  turns: EpisodeTurn[];
  promptTokens: number;
  end: EpisodeEnd | null;
  correct: boolean;
}

function zeroComponents(): RewardComponents {
  return { correctness: 0, progress: 0, operational: 0 };
}

/** The tool turn for `observation`, its text cut (keep chars found by bisection) to fit `room` tokens; null if even a note does not. */
function fittedToolTurn(format: ChatFormat, observation: string, replyEnded: boolean, room: number): number[] | null {
  const full = toolTurnTokens(format, observation, replyEnded);
  if (full.length <= room) return full;
  let lo = 0;
  let hi = observation.length;
  let best: number[] | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const ids = toolTurnTokens(format, truncateOutput(observation, mid), replyEnded);
    if (ids.length <= room) {
      best = ids;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Plays every task to the end; episodes are returned in task order. */
export async function rollout(model: TrainableModel, createEnv: () => SqlEnv, tasks: readonly RolloutTask[], settings: RolloutSettings, hooks: RolloutHooks = {}): Promise<RolledEpisode[]> {
  const format: ChatFormat = { tokenizer: model.tokenizer, thinking: settings.thinking };
  const ends = new Set([model.tokenizer.special.imEnd, model.tokenizer.special.endOfText]);
  const limit = Math.min(settings.maxEpisodeTokens, model.contextTokens);
  const live: Live[] = [];
  for (const task of tasks) {
    const env = createEnv();
    const { observation } = await env.reset({ questionId: task.question.id, seed: task.seed });
    const prompt = buildPrompt(model.tokenizer, { first: observation.text, steps: [] }, { shots: settings.shots ?? [], thinking: settings.thinking, budgetTokens: limit - 1 });
    if (!prompt.fits) {
      throw new RolloutError(`The first prompt of question ${task.question.id} needs ${prompt.tokenIds.length} tokens, more than the episode limit of ${limit} allows; raise maxEpisodeTokens or use fewer shots.`);
    }
    const seq = new SequenceBuilder();
    seq.pushContext(prompt.tokenIds);
    live.push({ task, env, seq, rng: createRng(task.seed), turns: [], promptTokens: prompt.tokenIds.length, end: null, correct: false });
  }

  try {
    await playTurns(model, live, settings, format, ends, limit, hooks);
  } finally {
    for (const e of live) if (e.end === null) e.env.close();
  }
  return live.map((e) => finishedEpisode(e, settings));
}

/** The lockstep turns of `live` until every episode has ended. */
async function playTurns(model: TrainableModel, live: Live[], settings: RolloutSettings, format: ChatFormat, ends: ReadonlySet<number>, limit: number, hooks: RolloutHooks): Promise<void> {
  let tokens = 0;
  let turn = 0;
  const report = (callTokens: number, callLimit: number) => {
    if (!hooks.onProgress) return;
    const inTurn = callLimit > 0 ? Math.min(1, callTokens / callLimit) : 0;
    let sum = 0;
    for (const e of live) sum += e.end !== null ? 1 : Math.min(1, (e.turns.length + inTurn) / settings.maxTurns);
    const finished = live.filter((e) => e.end !== null).length;
    hooks.onProgress({ episodes: live.length, finished, turn, maxTurns: settings.maxTurns, tokens, fraction: live.length === 0 ? 1 : sum / live.length });
  };
  for (;;) {
    hooks.signal?.throwIfAborted();
    const active = live.filter((e) => e.end === null);
    if (active.length === 0) break;
    turn++;
    const requests: GenerateRequest[] = active.map((e) => ({
      promptTokenIds: e.seq.tokenIds,
      maxNewTokens: Math.min(settings.maxNewTokensPerTurn, limit - e.seq.length),
      temperature: settings.temperature,
      topP: settings.topP,
      seed: Math.floor(e.rng.next() * 2 ** 32) >>> 0,
    }));
    const callLimit = requests.reduce((a, r) => a + r.maxNewTokens, 0);
    let callTokens = 0;
    report(0, callLimit);
    const generations = await model.generate(requests, {
      signal: hooks.signal,
      onTokens: (n) => {
        tokens += n;
        callTokens += n;
        report(callTokens, callLimit);
      },
    });
    for (let i = 0; i < active.length; i++) {
      const e = active[i];
      const g = generations[i];
      const request = requests[i];
      e.seq.pushReply(g.tokenIds, g.logProbs);
      const last = g.tokenIds.at(-1);
      const replyEnded = last !== undefined && ends.has(last);
      const cutByLimit = g.tokenIds.length >= request.maxNewTokens && !replyEnded;
      const completion = parseCompletion(g.text, { cutByLimit, maxNewTokens: request.maxNewTokens });
      const result = await e.env.step(completion.action);
      const components = result.info.components;
      e.turns.push({
        rawText: g.text,
        action: result.info.action,
        outcome: result.info.outcome,
        observation: result.observation.text,
        reward: totalReward(components, settings.rewardWeights),
        components,
        cutByLimit,
        replyTokens: g.tokenIds.length,
      });
      if (result.done) {
        e.end = result.info.terminated ? 'answered' : 'budget';
        e.correct = result.info.correct === true;
      } else if (e.turns.length >= settings.maxTurns) {
        e.end = 'turns';
      } else {
        // Room for the tool turn and at least one reply token.
        const turn = fittedToolTurn(format, result.observation.text, replyEnded, limit - e.seq.length - 1);
        if (turn === null) e.end = 'context';
        else e.seq.pushContext(turn);
      }
      if (e.end !== null) e.env.close();
    }
  }
  report(0, 0);
}

/** The record of a played episode. */
function finishedEpisode(e: Live, settings: RolloutSettings): RolledEpisode {
  const components = zeroComponents();
  for (const t of e.turns) {
    components.correctness += t.components.correctness;
    components.progress += t.components.progress;
    components.operational += t.components.operational;
  }
  return {
    questionId: e.task.question.id,
    question: e.task.question.question,
    dbId: e.task.question.dbId,
    seed: e.task.seed,
    tokenIds: e.seq.tokenIds,
    lossMask: e.seq.lossMask(),
    sampledLogProbs: Float64Array.from(e.seq.sampledLogProbs),
    promptTokens: e.promptTokens,
    turns: e.turns,
    components,
    reward: totalReward(components, settings.rewardWeights),
    correct: e.correct,
    end: e.end ?? 'turns',
  };
}

/** G episodes per question; groups in question order, seeds derived from (seed, label, question index, sample). */
export async function rolloutGroups(
  model: TrainableModel,
  createEnv: () => SqlEnv,
  questions: readonly Question[],
  groupSize: number,
  seed: number,
  label: string | number,
  settings: RolloutSettings,
  hooks: RolloutHooks = {},
): Promise<RolledEpisode[][]> {
  const tasks: RolloutTask[] = [];
  questions.forEach((question, qi) => {
    for (let g = 0; g < groupSize; g++) tasks.push({ question, seed: deriveSeed(seed, label, qi, g) });
  });
  const episodes = await rollout(model, createEnv, tasks, settings, hooks);
  return questions.map((_, qi) => episodes.slice(qi * groupSize, (qi + 1) * groupSize));
}
