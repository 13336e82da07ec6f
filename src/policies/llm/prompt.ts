/**
 * The chat a model policy sees, built for Qwen's chat template with the four actions as tools (tools.ts):
 *
 *   system     task, tools and rules (SYSTEM_PROMPT; the template appends the tool declarations)
 *   [shot]     user: a train question's first observation; per step assistant: the Oracle's tool call,
 *              tool: the observation text; repeated for each shot (0, 1 or 3)
 *   user       this episode's first observation
 *   per step   assistant: the call made (an invalid turn shows its reply excerpt), tool: the observation text
 *   assistant  generation prompt (with an empty think block when thinking is off, Qwen3's default here)
 *
 * Rendering: the system, the shots and the episode's user turn go through the chat template with the generation
 * prompt (Qwen's own rendering, byte for byte: the first turn's whole prompt); each step after that is appended as
 * the reply the template writes for the call followed by the tool turn (turn-text.ts), so a past reply keeps the
 * generation prompt's empty think block before it — the very text a training sequence holds at that turn
 * (src/train/chat-sequence.ts) and what TRL's multi-turn GRPO feeds the model. Qwen's stock template, re-rendering
 * the whole history, would drop those think blocks: a trained adapter would then be evaluated in contexts it never
 * saw in training. Token ids are encoded piece by piece, as the training sequence is.
 *
 * The prompt must fit a token budget counted with the real tokenizer. When it does not, old tool outputs are
 * shortened oldest first (shots before the episode, the newest observation last), each with a note saying how much
 * was cut; then shots are dropped oldest first; then the newest observation is shortened. `fits` says whether that
 * was enough. Shots are Oracle transcripts of train questions (`buildOracleShots`): plain data, built once.
 */
import { createRng, shuffled } from '../../data/rng.ts';
import type { Dataset, Question } from '../../data/types.ts';
import type { ParsedAction } from '../../env/actions.ts';
import type { SqlEnv } from '../../env/env.ts';
import type { ChatMessage, Tokenizer } from '../../model/tokenizer.ts';
import { OraclePolicy } from '../oracle.ts';
import type { HistoryEntry, Policy, PolicyContext } from '../policy.ts';
import { SQL_TOOLS, toolCallForAction } from './tools.ts';
import { replyTextForCall, toolTurnText, type ChatFormat } from './turn-text.ts';

/** Shot counts the app offers. */
export const SHOT_COUNTS = [0, 1, 3] as const;

export const SYSTEM_PROMPT = [
  'You answer questions about a SQLite database by exploring it with tools.',
  'Each turn, call exactly one tool: describe(table) shows a table\'s columns and keys, sample(table) shows a few rows, ' +
    'query(sql) runs one read-only SELECT statement, answer(value) submits the final answer and ends the episode.',
  'Every call costs one step and the steps are limited, so look only at the tables you need, then query and answer.',
  'Answer with the values the question asks for: a single value, a list (["a", "b"]) or rows ([["a", 1], ["b", 2]]).',
].join('\n');

/** One step of a transcript as the prompt shows it. */
export interface PromptStep {
  action: ParsedAction;
  /** The observation text the environment returned. */
  observation: string;
}

/** An episode as the prompt shows it: the first observation's text and the steps so far. */
export interface PromptEpisode {
  first: string;
  steps: readonly PromptStep[];
}

/** A few-shot example: a finished Oracle episode on a train question. Plain data (serialisable, cacheable). */
export interface Shot extends PromptEpisode {
  questionId: string;
  dbId: string;
}

export interface PromptOptions {
  shots?: readonly Shot[];
  /** Qwen3's thinking; default false. */
  thinking?: boolean;
  /** Most tokens the rendered prompt (generation prompt included) may have. */
  budgetTokens: number;
  systemPrompt?: string;
  /** Characters an old tool output keeps when shortened (default 200). */
  keepChars?: number;
}

export interface BuiltPrompt {
  /** The chat as messages (what the prompt says; `text` renders the steps after the first turn as turn-text.ts). */
  messages: ChatMessage[];
  text: string;
  tokenIds: number[];
  /** Tool outputs that were shortened. */
  truncatedOutputs: number;
  /** Shots left out to fit. */
  droppedShots: number;
  /** The prompt is within the budget. */
  fits: boolean;
}

/** The history entries of a policy context as prompt steps. */
export function stepsFromHistory(history: readonly HistoryEntry[]): PromptStep[] {
  return history.map((h) => ({ action: h.action, observation: h.observation.text }));
}

/** The messages of one episode: its question as the user turn, then a call and a tool output per step. */
export function episodeMessages(episode: PromptEpisode): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: episode.first }];
  for (const step of episode.steps) {
    const action = step.action;
    messages.push(action.type === 'INVALID' ? { role: 'assistant', content: action.raw } : { role: 'assistant', content: '', toolCalls: [toolCallForAction(action)] });
    messages.push({ role: 'tool', content: step.observation });
  }
  return messages;
}

/** `text` cut to `keep` characters with a note of what was cut; unchanged when already short. */
export function truncateOutput(text: string, keep: number): string {
  if (text.length <= keep) return text;
  const omitted = text.length - keep;
  const note = `[… ${omitted} of ${text.length} characters of this old output omitted to fit the context]`;
  return keep > 0 ? `${text.slice(0, keep)}\n${note}` : note;
}

/** Builds the chat and fits it to the token budget (see the header for the order of cuts). */
export function buildPrompt(tokenizer: Tokenizer, episode: PromptEpisode, options: PromptOptions): BuiltPrompt {
  const keep = options.keepChars ?? 200;
  const chatOptions = { tools: [...SQL_TOOLS], enableThinking: options.thinking ?? false, addGenerationPrompt: true };
  let shots = (options.shots ?? []).map(episodeMessages);
  const current = episodeMessages(episode);
  let droppedShots = 0;
  const system: ChatMessage = { role: 'system', content: options.systemPrompt ?? SYSTEM_PROMPT };
  const assemble = (): ChatMessage[] => [system, ...shots.flat(), ...current];
  const format: ChatFormat = { tokenizer, thinking: options.thinking ?? false };
  /** Each step's text and ids (reply, then tool turn), by message: a shortened output is a new message. */
  const pieces = new WeakMap<ChatMessage, { text: string; ids: number[] }>();
  const piece = (message: ChatMessage, make: () => string) => {
    let p = pieces.get(message);
    if (p === undefined) {
      const text = make();
      p = { text, ids: tokenizer.encode(text) };
      pieces.set(message, p);
    }
    return p;
  };
  const render = (): BuiltPrompt => {
    const messages = assemble();
    let text = tokenizer.renderChat([system, ...shots.flat(), current[0]], chatOptions);
    const tokenIds = tokenizer.encode(text);
    for (let i = 1; i + 1 < current.length; i += 2) {
      const call = current[i];
      const reply = piece(call, () => (call.role === 'assistant' && call.toolCalls?.length ? replyTextForCall(format, call.toolCalls[0]) : call.content));
      const tool = piece(current[i + 1], () => toolTurnText(format, current[i + 1].content));
      text += reply.text + tool.text;
      tokenIds.push(...reply.ids, ...tool.ids);
    }
    const truncatedOutputs = messages.filter((m) => m.role === 'tool' && m.content.includes('characters of this old output omitted')).length;
    return { messages, text, tokenIds, truncatedOutputs, droppedShots, fits: tokenIds.length <= options.budgetTokens };
  };

  let built = render();
  if (built.fits) return built;
  const lastTool = current.findLastIndex((m) => m.role === 'tool');
  /** The full text of each tool message that was shortened, so a second pass cuts from the original. */
  const originals = new Map<ChatMessage, string>();
  /** Shortens old tool outputs (every shot's, then the episode's but the newest), oldest first, until it fits. */
  const shortenOld = (chars: number): boolean => {
    const oldOutputs: Array<{ list: ChatMessage[]; index: number }> = [
      ...shots.flatMap((list) => list.flatMap((m, index) => (m.role === 'tool' ? [{ list, index }] : []))),
      ...current.flatMap((m, index) => (m.role === 'tool' && index !== lastTool ? [{ list: current, index }] : [])),
    ];
    for (const { list, index } of oldOutputs) {
      const shortened = truncateOutput(originals.get(list[index]) ?? list[index].content, chars);
      if (shortened.length >= list[index].content.length) continue;
      const message: ChatMessage = { role: 'tool', content: shortened };
      originals.set(message, originals.get(list[index]) ?? list[index].content);
      list[index] = message;
      built = render();
      if (built.fits) return true;
    }
    return false;
  };
  // 1. Old tool outputs to `keep` characters.
  if (shortenOld(keep)) return built;
  // 2. Shots, oldest first.
  while (shots.length > 0) {
    shots = shots.slice(1);
    droppedShots++;
    built = render();
    if (built.fits) return built;
  }
  // 3. Old tool outputs to their notes alone.
  if (shortenOld(0)) return built;
  // 4. The newest observation.
  if (lastTool !== -1) {
    current[lastTool] = { role: 'tool', content: truncateOutput(current[lastTool].content, keep) };
    built = render();
  }
  return built;
}

/**
 * Train questions for shots, chosen by a seed: short gold results, not 'extra' hard, different databases first.
 * Falls back to any train question when the preferred ones run out.
 */
export function selectShotQuestions(dataset: Dataset, count: number, seed = 0): Question[] {
  const train = shuffled(createRng(seed), dataset.questions.filter((q) => q.split === 'train' && !q.freePlay));
  const preferred = train.filter((q) => q.difficulty !== 'extra' && q.goldResult.rows.length <= 5);
  const chosen: Question[] = [];
  for (const pool of [preferred.filter((q, i) => preferred.findIndex((p) => p.dbId === q.dbId) === i), preferred, train]) {
    for (const q of pool) if (chosen.length < count && !chosen.includes(q)) chosen.push(q);
  }
  return chosen;
}

/**
 * Plays the Oracle on each question and returns the transcripts as shots. The loop is `runEpisode`'s
 * (src/eval/episode.ts) without the record keeping: policies may not import eval; a test checks they agree.
 */
export async function buildOracleShots(env: SqlEnv, questions: readonly Question[]): Promise<Shot[]> {
  const oracle: Policy = new OraclePolicy();
  const shots: Shot[] = [];
  for (const question of questions) {
    const { observation: first } = await env.reset({ questionId: question.id, seed: 0 });
    const history: HistoryEntry[] = [];
    let observation = first;
    let done = false;
    while (!done) {
      const context: PolicyContext = { first, history, observation, question: env.currentQuestion(), rng: createRng(0) };
      const result = await env.step((await oracle.act(context)).action);
      history.push({ action: result.info.action, observation: result.observation, reward: result.reward });
      observation = result.observation;
      done = result.done;
    }
    shots.push({ questionId: question.id, dbId: question.dbId, first: first.text, steps: stepsFromHistory(history) });
  }
  return shots;
}
