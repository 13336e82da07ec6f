/**
 * SFT warm-up on Oracle demonstrations: the Oracle policy plays train questions in the real environment, and each
 * episode becomes one token sequence in exactly the rollout format (chat-sequence.ts): the first prompt as
 * LlmPolicy renders it, each Oracle action as the tool call the chat template writes for it followed by
 * `<|im_end|>`, each observation as a tool turn. The loss mask is TRL's `assistant_only_loss` mask
 * (`DemonstrationBuilder`): each assistant turn's body — with thinking off the generation prompt's empty think block
 * (4 Qwen3 tokens), the call, `<|im_end|>` and the newline after it (1 token, also after the last call) — so the
 * page's SFT and TRL's SFTTrainer on the export (src/eval/trl-export.ts) train the same tokens.
 *
 * Loss over a batch with N assistant tokens: L = −Σ_t log p(token_t) / N (mean NLL over assistant tokens only);
 * dL/dℓ_t = −1/N. Micro-batches pass the batch's N, so their gradients add up to the batch's.
 */
import { createRng } from '../data/rng.ts';
import type { Question } from '../data/types.ts';
import { formatAction } from '../env/actions.ts';
import type { SqlEnv } from '../env/env.ts';
import { totalReward, type RewardComponents, type RewardWeights } from '../env/rewards.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { buildPrompt, type Shot } from '../policies/llm/prompt.ts';
import { toolCallForAction } from '../policies/llm/tools.ts';
import { OraclePolicy } from '../policies/oracle.ts';
import type { HistoryEntry, PolicyContext } from '../policies/policy.ts';
import { DemonstrationBuilder, replyTokensForCall, toolTurnTokens, type ChatFormat } from './chat-sequence.ts';
import type { ScoredSequence, TrainableModel } from './policy-model.ts';
import type { TraceAction } from './types.ts';

export interface SftExample extends ScoredSequence {
  questionId: string;
  question: string;
  dbId: string;
  tokenIds: number[];
  lossMask: Uint8Array;
  /** The Oracle's episode, for traces. */
  actions: TraceAction[];
  components: RewardComponents;
  reward: number;
  correct: boolean;
}

export interface SftSettings {
  thinking: boolean;
  maxEpisodeTokens: number;
  rewardWeights: RewardWeights;
  shots?: readonly Shot[];
}

export interface SftExamples {
  examples: SftExample[];
  /** Questions whose demonstration did not fit `maxEpisodeTokens`. */
  skipped: string[];
}

/** Plays the Oracle on each question and renders the demonstrations (see the header). */
export async function buildSftExamples(tokenizer: Tokenizer, createEnv: () => SqlEnv, questions: readonly Question[], settings: SftSettings): Promise<SftExamples> {
  const format: ChatFormat = { tokenizer, thinking: settings.thinking };
  const oracle = new OraclePolicy();
  const examples: SftExample[] = [];
  const skipped: string[] = [];
  for (const question of questions) {
    const env = createEnv();
    const { observation: first } = await env.reset({ questionId: question.id, seed: 0 });
    const prompt = buildPrompt(tokenizer, { first: first.text, steps: [] }, { shots: settings.shots ?? [], thinking: settings.thinking, budgetTokens: settings.maxEpisodeTokens });
    const demo = new DemonstrationBuilder(format);
    const seq = demo.seq;
    demo.prompt(prompt.tokenIds);
    const history: HistoryEntry[] = [];
    const actions: TraceAction[] = [];
    const components: RewardComponents = { correctness: 0, progress: 0, operational: 0 };
    let observation = first;
    let correct = false;
    for (let done = false; !done; ) {
      const context: PolicyContext = { first, history, observation, question: env.currentQuestion(), rng: createRng(0) };
      const result = await env.step((await oracle.act(context)).action);
      const action = result.info.action;
      if (action.type === 'INVALID') throw new Error(`Oracle produced an invalid action on ${question.id}: ${action.reason}`);
      const reply = replyTokensForCall(format, toolCallForAction(action));
      const replyText = tokenizer.decode(reply.slice(0, -1));
      demo.reply(reply);
      history.push({ action, observation: result.observation, reward: result.reward });
      const c = result.info.components;
      components.correctness += c.correctness;
      components.progress += c.progress;
      components.operational += c.operational;
      actions.push({ rawText: replyText, action: actionText(action), outcome: result.info.outcome, observation: result.observation.text, reward: totalReward(c, settings.rewardWeights), components: c });
      observation = result.observation;
      done = result.done;
      if (done) correct = result.info.correct === true;
      else demo.toolTurn(toolTurnTokens(format, result.observation.text, true));
    }
    demo.finish();
    env.close();
    if (!prompt.fits || seq.length > settings.maxEpisodeTokens) {
      skipped.push(question.id);
      continue;
    }
    examples.push({
      questionId: question.id,
      question: question.question,
      dbId: question.dbId,
      tokenIds: seq.tokenIds,
      lossMask: seq.lossMask(),
      actions,
      components,
      reward: totalReward(components, settings.rewardWeights),
      correct,
    });
  }
  return { examples, skipped };
}

/** An action as one line of canonical text, for traces: an invalid one shows why, not its raw text. */
export function actionText(action: HistoryEntry['action']): string {
  return action.type === 'INVALID' ? `INVALID: ${action.reason}` : formatAction(action);
}

export interface SftLoss {
  /** This chunk's share of the batch's mean NLL. */
  loss: number;
  grad: Float32Array;
}

/** −Σ logProbs / totalTokens and its gradient −1/totalTokens per token. */
export function sftLoss(logProbs: ArrayLike<number>, totalTokens: number): SftLoss {
  if (totalTokens <= 0) throw new RangeError('sftLoss: the batch has no assistant tokens');
  let sum = 0;
  for (let i = 0; i < logProbs.length; i++) sum += logProbs[i];
  return { loss: -sum / totalTokens, grad: new Float32Array(logProbs.length).fill(-1 / totalTokens) };
}

/** Mean NLL per assistant token of `examples` under the model (no gradient): the held-back loss. */
export async function sftEvalLoss(model: TrainableModel, examples: readonly ScoredSequence[]): Promise<number> {
  const lp = await model.forward(examples);
  if (lp.length === 0) throw new RangeError('sftEvalLoss: no assistant tokens');
  return sftLoss(lp, lp.length).loss;
}
