/**
 * "What the adapter changed": for an episode a model policy played, the log-probability of each token of its own
 * replies under the base model and under base + adapter (teacher-forced), the difference per token, and the sums
 * per action — so a person sees which choices training made more or less likely (the first tool call, a column
 * name, the answer format).
 *
 * How to think about it: this module is the maths and the formatting, with no model in it. `explainTurns` rebuilds
 * what the policy saw at each model turn — the prompt exactly as `LlmPolicy.act` renders it (prompt.ts `buildPrompt`:
 * the first observation, the canonical calls and observations of the steps before, the same shots, thinking and
 * token budget) — and the reply's token ids; `turnSequences` makes them scored sequences (prompt mask 0, reply mask
 * 1); a scorer (src/train/score-tokens.ts on the WebGPU trainer or the float64 reference) gives the log-probs;
 * `explanationOf` lays them out per token and per action; `formatExplanation` prints a table.
 *
 * Reply tokens: an episode record keeps each reply's text (`rawText`, decoded without its end token), not its ids,
 * so the ids are the text encoded again plus `<|im_end|>` unless the reply was cut by its token limit. Encoding a
 * decoded reply usually gives back the sampled ids; where the count differs from the one the record kept
 * (`generation.newTokens`), the action says so (`recordedTokens`), and its figures are those of the canonical
 * tokenization. A reply that ended with `<|endoftext|>` instead of `<|im_end|>` cannot be told apart in a record.
 *
 * Units: natural-log probabilities (nats); delta = adapter − base (positive: the adapter made the token likelier).
 * Log-probs are at temperature 1, whatever temperature the episode was sampled at.
 */
import type { SqlEnv } from '../env/env.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { buildPrompt, type PromptStep, type Shot } from '../policies/llm/prompt.ts';
import type { EpisodeRecord } from './transcript.ts';

/** How the policy prompted: the Model panel's settings it played with (llm-settings.ts) and its context. */
export interface ExplainPromptSettings {
  shots: readonly Shot[];
  thinking: boolean;
  /** The context the policy fitted prompt + reply into (LlmPolicy `contextTokens`). */
  contextTokens: number;
  /** The per-turn token limit (LlmPolicy `maxNewTokens`): the prompt's budget is contextTokens − maxNewTokens. */
  maxNewTokens: number;
}

/** One model turn as the policy saw and answered it. */
export interface ExplainTurn {
  /** Index of the step in the episode's transcript. */
  step: number;
  actionText: string;
  promptTokenIds: number[];
  /** The reply's token ids (re-encoded; see the header), end token included when the reply ended. */
  replyTokenIds: number[];
  /** Tokens the model generated, as the record kept it; null when the record does not say. */
  recordedTokens: number | null;
}

/** One reply token: its id and text, and its log-probs (nats) under base and base + adapter. */
export interface TokenDelta {
  id: number;
  text: string;
  base: number;
  adapter: number;
  /** adapter − base. */
  delta: number;
}

/** Sums (nats) over a set of tokens. */
export interface LogProbSums {
  base: number;
  adapter: number;
  delta: number;
}

export interface ActionExplanation extends LogProbSums {
  step: number;
  actionText: string;
  tokens: TokenDelta[];
  /** Tokens the record says the model generated, when that differs from the re-encoded reply's count. */
  recordedTokens: number | null;
}

export interface EpisodeExplanation extends LogProbSums {
  policy: string;
  questionId: string;
  seed: number;
  actions: ActionExplanation[];
  /** Reply tokens scored in all. */
  tokens: number;
}

export class ExplainError extends Error {
  override name = 'ExplainError';
}

/** The first observation of the record's episode, from the environment reset the way the episode was. */
export async function firstObservation(env: SqlEnv, record: Pick<EpisodeRecord, 'questionId' | 'seed'>): Promise<string> {
  const { observation } = await env.reset({ questionId: record.questionId, seed: record.seed });
  env.close();
  return observation.text;
}

/**
 * Every model turn of `record` (the steps with the policy's raw text) with the prompt the policy saw and its reply's
 * ids. Throws ExplainError when the episode has no model turn (Random, Oracle, a person).
 */
export function explainTurns(record: EpisodeRecord, first: string, tokenizer: Tokenizer, settings: ExplainPromptSettings): ExplainTurn[] {
  const turns: ExplainTurn[] = [];
  const steps: PromptStep[] = [];
  const budgetTokens = settings.contextTokens - settings.maxNewTokens;
  record.transcript.forEach((step, i) => {
    if (step.rawText !== undefined) {
      const prompt = buildPrompt(tokenizer, { first, steps }, { shots: settings.shots, thinking: settings.thinking, budgetTokens });
      const ids = tokenizer.encode(step.rawText);
      const cut = step.generation?.cutByLimit ?? ids.length >= settings.maxNewTokens;
      const replyTokenIds = cut ? ids : [...ids, tokenizer.special.imEnd];
      turns.push({ step: i, actionText: step.actionText, promptTokenIds: prompt.tokenIds, replyTokenIds, recordedTokens: step.generation?.newTokens ?? null });
    }
    steps.push({ action: step.action, observation: step.observation });
  });
  if (turns.length === 0) throw new ExplainError(`Episode ${record.questionId} (seed ${record.seed}) of policy '${record.policy}' has no model replies to explain: only a language-model policy's episodes can be.`);
  return turns;
}

/** Each turn as one scored sequence: its prompt (mask 0), then its reply (mask 1). */
export function turnSequences(turns: readonly ExplainTurn[]): Array<{ tokenIds: number[]; lossMask: Uint8Array }> {
  return turns.map((t) => {
    const tokenIds = [...t.promptTokenIds, ...t.replyTokenIds];
    const lossMask = new Uint8Array(tokenIds.length);
    lossMask.fill(1, t.promptTokenIds.length);
    return { tokenIds, lossMask };
  });
}

function sums(tokens: readonly TokenDelta[]): LogProbSums {
  let base = 0;
  let adapter = 0;
  for (const t of tokens) {
    base += t.base;
    adapter += t.adapter;
  }
  return { base, adapter, delta: adapter - base };
}

/** The per-token and per-action layout of the scores (`scores[i]` for `turns[i]`, one entry per reply token). */
export function explanationOf(record: EpisodeRecord, turns: readonly ExplainTurn[], scores: ReadonlyArray<{ base: ArrayLike<number>; adapter: ArrayLike<number> }>, tokenizer: Tokenizer): EpisodeExplanation {
  if (scores.length !== turns.length) throw new RangeError(`explanationOf: ${scores.length} scored sequences for ${turns.length} turns`);
  const actions = turns.map((turn, i): ActionExplanation => {
    const s = scores[i];
    const n = turn.replyTokenIds.length;
    if (s.base.length !== n || s.adapter.length !== n) throw new RangeError(`explanationOf: turn ${i} has ${n} reply tokens but ${s.base.length} / ${s.adapter.length} scores`);
    const tokens = turn.replyTokenIds.map((id, k) => ({ id, text: tokenizer.decode([id]), base: s.base[k], adapter: s.adapter[k], delta: s.adapter[k] - s.base[k] }));
    const recordedTokens = turn.recordedTokens !== null && turn.recordedTokens !== n ? turn.recordedTokens : null;
    return { step: turn.step, actionText: turn.actionText, tokens, ...sums(tokens), recordedTokens };
  });
  const all = actions.flatMap((a) => a.tokens);
  return { policy: record.policy, questionId: record.questionId, seed: record.seed, actions, tokens: all.length, ...sums(all) };
}

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

/** The action's text on one line, cut to `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A plain-text table: per action its steps's sums (nats) and the tokens the adapter moved most. */
export function formatExplanation(e: EpisodeExplanation, topTokens = 3): string {
  const lines = [
    `${e.policy} on ${e.questionId} (seed ${e.seed}): ${e.tokens} reply tokens, log p base ${e.base.toFixed(3)}, with adapter ${e.adapter.toFixed(3)}, delta ${signed(e.delta)} nats`,
    `${'step'.padStart(4)} ${'tokens'.padStart(6)} ${'base'.padStart(9)} ${'adapter'.padStart(9)} ${'delta'.padStart(9)}  action`,
  ];
  for (const a of e.actions) {
    lines.push(`${String(a.step + 1).padStart(4)} ${String(a.tokens.length).padStart(6)} ${a.base.toFixed(3).padStart(9)} ${a.adapter.toFixed(3).padStart(9)} ${signed(a.delta).padStart(9)}  ${oneLine(a.actionText, 60)}`);
    const moved = [...a.tokens].sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta)).slice(0, topTokens);
    if (moved.length > 0) lines.push(`${''.padStart(6)}most moved: ${moved.map((t) => `${JSON.stringify(t.text)} ${signed(t.delta)}`).join(', ')}`);
    if (a.recordedTokens !== null) lines.push(`${''.padStart(6)}note: the model generated ${a.recordedTokens} tokens; its text encodes to ${a.tokens.length}, which are scored`);
  }
  return lines.join('\n');
}
