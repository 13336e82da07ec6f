/**
 * TRL-ready rows of a dataset split, one per question, for training elsewhere (Hugging Face TRL, Python):
 *
 *   prompts   what a TRL `environment_factory` env's `reset(**row)` needs (`question_id`, `question`, `db_id`,
 *             `split`, `difficulty`) and `prompt`, TRL's conversational prompt: the system and user messages (with
 *             any shots between them) exactly as LlmPolicy builds its first turn (prompt.ts `buildPrompt`).
 *   sft       an Oracle episode as `messages` in the OpenAI / Hugging Face tool-calling format, plus `tools` (the
 *             JSON schemas of SQL_TOOLS) and `chat_template_kwargs` ({enable_thinking}), the columns TRL's
 *             SFTTrainer reads:
 *               system, [shots], user                                  the prompt, as above
 *               per step  {role: assistant, content: "", tool_calls: [{type: function, function: {name, arguments}}]}
 *                         {role: tool, name, content: observation text} (not after the final answer)
 *             The conversation ends with the Oracle's ANSWER call, as the in-page SFT's sequence does.
 *
 * The invariant: an sft row is the in-page SFT demonstration (src/train/sft.ts `buildSftExamples`) of the same
 * question, message for message. `sftRowTokens` renders a row back into the token ids and loss mask the in-page
 * SFT trains on (prompt by the chat template with a generation prompt, each call as the template writes it plus
 * `<|im_end|>`, each observation as a tool turn: chat-sequence.ts), and the row's length limit is counted that way.
 * The test checks the ids equal `buildSftExamples`'s.
 *
 * The Oracle plays through `runEpisode` (episode.ts) in the real environment. Its transcript clips long action
 * text (VALUE_LIMITS.transcriptActionChars), so the calls come from the actions as the environment read them,
 * recorded by a thin wrapper around the Oracle (`normalizeAction`, what `env.step` applies), never from the record.
 */
import type { Difficulty, Question, Split } from '../data/types.ts';
import { normalizeAction, type Action } from '../env/actions.ts';
import type { SqlEnv } from '../env/env.ts';
import type { ChatMessage, Tokenizer, ToolSpec } from '../model/tokenizer.ts';
import { buildPrompt, type BuiltPrompt, type Shot } from '../policies/llm/prompt.ts';
import { SQL_TOOLS, toolCallForAction } from '../policies/llm/tools.ts';
import { OraclePolicy } from '../policies/oracle.ts';
import type { Policy, PolicyContext, PolicyDecision } from '../policies/policy.ts';
import { DemonstrationBuilder, replyTokensForCall, toolTurnTokens, type ChatFormat } from '../train/chat-sequence.ts';
import { runEpisode } from './episode.ts';

/** A row that cannot be made or read back: names the question and what was wrong. */
export class TrlExportError extends Error {
  override name = 'TrlExportError';
  constructor(
    readonly questionId: string,
    detail: string,
  ) {
    super(`${questionId}: ${detail}`);
  }
}

export type TrlFormat = 'prompts' | 'sft';
export const TRL_FORMATS: readonly TrlFormat[] = ['prompts', 'sft'];

/** A tool call as Hugging Face chat templates and TRL take it; `arguments` is an object, not a JSON string. */
export interface TrlToolCall {
  type: 'function';
  function: { name: string; arguments: Record<string, unknown> };
}

export type TrlMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: TrlToolCall[] }
  | { role: 'tool'; name: string; content: string };

/** What every row carries: the environment's reset keys and the question's labels. */
export interface TrlRowKeys {
  question_id: string;
  question: string;
  db_id: string;
  split: Split;
  difficulty: Difficulty;
}

export interface PromptRow extends TrlRowKeys {
  prompt: TrlMessage[];
}

export interface SftRow extends TrlRowKeys {
  messages: TrlMessage[];
  tools: ToolSpec[];
  chat_template_kwargs: { enable_thinking: boolean };
}

export type TrlRow = PromptRow | SftRow;

export interface TrlExportSettings {
  /** The real tokenizer: prompts are fitted and demonstrations counted with it, as in the page. */
  tokenizer: Tokenizer;
  /** Few-shot transcripts placed before the question (`buildOracleShots`); [] for zero-shot. */
  shots: readonly Shot[];
  thinking: boolean;
  /**
   * prompts: the prompt's token budget (LlmPolicy's contextTokens − maxNewTokens); sft: the demonstration's token
   * limit (the SFT's maxEpisodeTokens), which also bounds its prompt.
   */
  maxTokens: number;
}

export type SkipReason = 'free-play' | 'prompt-too-long' | 'episode-too-long' | 'oracle-failed';

export interface SkippedQuestion {
  questionId: string;
  reason: SkipReason;
  detail: string;
}

export type RowOutcome<R> = { row: R } | { skipped: SkippedQuestion };

/** A project chat message (prompt.ts) as a TRL message. */
function trlMessage(m: ChatMessage, toolName: string | undefined): TrlMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'assistant': {
      const calls = (m.toolCalls ?? []).map((c): TrlToolCall => ({ type: 'function', function: { name: c.name, arguments: c.arguments } }));
      return calls.length > 0 ? { role: 'assistant', content: m.content, tool_calls: calls } : { role: 'assistant', content: m.content };
    }
    case 'tool':
      return { role: 'tool', name: toolName ?? 'unknown', content: m.content };
    default:
      return m satisfies never;
  }
}

/** Project chat messages as TRL messages; a tool message is named after the call just before it. */
export function toTrlMessages(messages: readonly ChatMessage[]): TrlMessage[] {
  let lastCall: string | undefined;
  return messages.map((m) => {
    if (m.role === 'assistant') lastCall = m.toolCalls?.[0]?.name;
    return trlMessage(m, lastCall);
  });
}

/** TRL messages back as project chat messages (the inverse of `toTrlMessages`; a tool message's name is dropped). */
export function fromTrlMessages(messages: readonly TrlMessage[]): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'assistant':
        return m.tool_calls ? { role: 'assistant', content: m.content, toolCalls: m.tool_calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })) } : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', content: m.content };
      default:
        return m satisfies never;
    }
  });
}

function rowKeys(q: Question): TrlRowKeys {
  return { question_id: q.id, question: q.question, db_id: q.dbId, split: q.split, difficulty: q.difficulty };
}

function skip(q: Question, reason: SkipReason, detail: string): { skipped: SkippedQuestion } {
  return { skipped: { questionId: q.id, reason, detail } };
}

/** The first turn's prompt of `first` (the reset observation's text), fitted to `budget` tokens as LlmPolicy does. */
function firstPrompt(settings: TrlExportSettings, first: string, budget: number): BuiltPrompt {
  return buildPrompt(settings.tokenizer, { first, steps: [] }, { shots: settings.shots, thinking: settings.thinking, budgetTokens: budget });
}

/** The prompts row of one question: the environment is reset on it for its first observation. */
export async function buildPromptRow(env: SqlEnv, question: Question, settings: TrlExportSettings): Promise<RowOutcome<PromptRow>> {
  if (question.freePlay) return skip(question, 'free-play', 'a free-play question has no gold answer');
  const { observation } = await env.reset({ questionId: question.id, seed: 0 });
  const prompt = firstPrompt(settings, observation.text, settings.maxTokens);
  if (!prompt.fits) return skip(question, 'prompt-too-long', `the prompt has ${prompt.tokenIds.length} tokens after shortening, over the budget of ${settings.maxTokens}`);
  return { row: { ...rowKeys(question), prompt: toTrlMessages(prompt.messages) } };
}

/** The Oracle, recording its first observation and each action as the environment reads it. */
class RecordingOracle implements Policy {
  readonly name = 'oracle';
  private readonly oracle = new OraclePolicy();
  first = '';
  readonly actions: Action[] = [];

  async act(context: PolicyContext): Promise<PolicyDecision> {
    if (context.history.length === 0) this.first = context.first.text;
    const decision = await this.oracle.act(context);
    const action = normalizeAction(decision.action);
    if (action.type === 'INVALID') throw new TrlExportError(context.question.id, `the Oracle produced an invalid action (${action.reason})`);
    this.actions.push(action);
    return decision;
  }
}

/** The sft row of one question: the Oracle's episode in the real environment (see the header). */
export async function buildSftRow(env: SqlEnv, question: Question, settings: TrlExportSettings): Promise<RowOutcome<SftRow>> {
  if (question.freePlay) return skip(question, 'free-play', 'a free-play question has no gold answer');
  const oracle = new RecordingOracle();
  const record = await runEpisode(env, oracle, { questionId: question.id, seed: 0 });
  if (!record.success) return skip(question, 'oracle-failed', `the Oracle's answer was not correct (${record.steps} steps, ${record.truncated ? 'out of steps' : 'wrong answer'})`);
  const prompt = firstPrompt(settings, oracle.first, settings.maxTokens);
  const messages: ChatMessage[] = [...prompt.messages];
  oracle.actions.forEach((action, i) => {
    messages.push({ role: 'assistant', content: '', toolCalls: [toolCallForAction(action)] });
    if (i < oracle.actions.length - 1) messages.push({ role: 'tool', content: record.transcript[i].observation });
  });
  const row: SftRow = { ...rowKeys(question), messages: toTrlMessages(messages), tools: [...SQL_TOOLS], chat_template_kwargs: { enable_thinking: settings.thinking } };
  const tokens = sftRowTokens(settings.tokenizer, row).tokenIds.length;
  if (!prompt.fits || tokens > settings.maxTokens) return skip(question, 'episode-too-long', `the demonstration has ${tokens} tokens, over the limit of ${settings.maxTokens}`);
  return { row };
}

export interface SftTokens {
  tokenIds: number[];
  /** TRL's assistant-only mask (chat-sequence.ts `DemonstrationBuilder`): each assistant turn's body, 0 elsewhere. */
  lossMask: Uint8Array;
}

/**
 * An sft row as the in-page SFT's token sequence (chat-sequence.ts): the messages up to the last user message are
 * the prompt (rendered with the generation prompt); then each assistant call is a reply and each tool message a tool
 * turn. Throws on a row that is not in that shape (an assistant message with text besides its one call included: the
 * in-page replies are the call alone).
 */
export function sftRowTokens(tokenizer: Tokenizer, row: SftRow): SftTokens {
  const format: ChatFormat = { tokenizer, thinking: row.chat_template_kwargs.enable_thinking };
  const messages = fromTrlMessages(row.messages);
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (lastUser === -1) throw new TrlExportError(row.question_id, 'the sft row has no user message');
  const demo = new DemonstrationBuilder(format);
  demo.prompt(tokenizer.encodeChat(messages.slice(0, lastUser + 1), { tools: [...row.tools], enableThinking: format.thinking, addGenerationPrompt: true }));
  for (const m of messages.slice(lastUser + 1)) {
    if (m.role === 'assistant' && m.toolCalls?.length === 1 && m.content === '') demo.reply(replyTokensForCall(format, m.toolCalls[0]));
    else if (m.role === 'tool') demo.toolTurn(toolTurnTokens(format, m.content, true));
    else throw new TrlExportError(row.question_id, `after the prompt, an sft row has assistant messages of one tool call and no text, and tool results; got ${JSON.stringify(m).slice(0, 200)}`);
  }
  demo.finish();
  return { tokenIds: demo.seq.tokenIds, lossMask: demo.seq.lossMask() };
}

export interface TrlExport<R extends TrlRow = TrlRow> {
  rows: R[];
  skipped: SkippedQuestion[];
}

/** Rows of `format` for `questions`, in their order, each question once (or skipped, with the reason). */
export async function buildTrlRows(
  format: TrlFormat,
  env: SqlEnv,
  questions: readonly Question[],
  settings: TrlExportSettings,
  onProgress?: (done: number, total: number) => void,
): Promise<TrlExport> {
  const rows: TrlRow[] = [];
  const skipped: SkippedQuestion[] = [];
  for (const [i, question] of questions.entries()) {
    const outcome: RowOutcome<TrlRow> = format === 'prompts' ? await buildPromptRow(env, question, settings) : await buildSftRow(env, question, settings);
    if ('row' in outcome) rows.push(outcome.row);
    else skipped.push(outcome.skipped);
    onProgress?.(i + 1, questions.length);
  }
  return { rows, skipped };
}
