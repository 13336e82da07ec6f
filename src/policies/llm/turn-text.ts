/**
 * The text of one multi-turn step, as the chat template writes it and as training sequences hold it — the one
 * rendering of past turns that training (src/train/chat-sequence.ts) and every model policy (prompt.ts: Watch,
 * Evaluate, Compare, the CLI) share:
 *
 *   reply      what the template renders for an assistant tool call after the generation prompt (`replyTextForCall`)
 *   tool turn  from the reply's `<|im_end|>` to the next generation prompt: the observation as a tool message, then
 *              `<|im_start|>assistant\n` and, with thinking off, Qwen3's empty think block (`toolTurnText`)
 *
 * So an episode's context at turn k is: the first prompt (generation prompt included) · reply 1 · tool turn 1 · … ·
 * tool turn k−1. Past replies therefore keep the generation prompt's empty think block before them, exactly as TRL's
 * multi-turn GRPO builds its completions (prompt ids + completion ids + `_get_tool_suffix_ids`, the template's tool
 * message and generation prompt) and as TRL's Qwen3 training template renders every assistant turn. Qwen's stock
 * template, re-rendering a whole history, drops the empty think block of earlier assistant turns; the first turn's
 * prompt is the stock template's rendering, byte for byte.
 */
import type { ChatMessage, Tokenizer, ToolCall } from '../../model/tokenizer.ts';
import { SQL_TOOLS } from './tools.ts';

const SENTINEL = '\u2063SQLENV-REPLY-SENTINEL\u2063';

export interface ChatFormat {
  tokenizer: Tokenizer;
  thinking: boolean;
}

function chatOptions(format: ChatFormat, addGenerationPrompt: boolean) {
  return { tools: [...SQL_TOOLS], enableThinking: format.thinking, addGenerationPrompt };
}

/** Text of the tool turn that follows a reply: from the reply's `<|im_end|>` to the next generation prompt. */
export function toolTurnText(format: ChatFormat, observation: string): string {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: SENTINEL },
    { role: 'tool', content: observation },
  ];
  const text = format.tokenizer.renderChat(messages, chatOptions(format, true));
  const at = text.lastIndexOf(SENTINEL);
  if (at === -1) throw new Error('chat template dropped the assistant message: cannot build the tool turn');
  return text.slice(at + SENTINEL.length);
}

/**
 * The reply text the template renders for an assistant turn made of `call` (what the model should generate after
 * the generation prompt, end token excluded).
 */
export function replyTextForCall(format: ChatFormat, call: ToolCall): string {
  const user: ChatMessage = { role: 'user', content: 'q' };
  const prompt = format.tokenizer.renderChat([user], chatOptions(format, true));
  const full = format.tokenizer.renderChat([user, { role: 'assistant', content: '', toolCalls: [call] }], chatOptions(format, false));
  const imEnd = '<|im_end|>';
  const end = full.lastIndexOf(imEnd);
  if (full.startsWith(prompt) && end >= prompt.length) return full.slice(prompt.length, end);
  // A template whose history rendering differs from its generation prompt: take the last assistant turn's body.
  const open = '<|im_start|>assistant\n';
  const start = full.lastIndexOf(open);
  if (start === -1 || end < start) throw new Error('chat template: cannot find the rendered assistant turn');
  return full.slice(start + open.length, end);
}

/**
 * Where an assistant turn's body starts and ends around a reply, as text: `bodyStart` is what the generation prompt
 * writes after `<|im_start|>assistant\n` (Qwen3 with thinking off: the empty think block; else nothing), `turnEnd`
 * what the template writes after the reply's `<|im_end|>` before the next turn (Qwen: a newline). TRL's
 * assistant-only loss trains both (its Qwen3 training template puts them inside `{% generation %}`).
 */
export function assistantTurnEdges(format: ChatFormat): { bodyStart: string; turnEnd: string } {
  const user: ChatMessage[] = [{ role: 'user', content: 'q' }];
  const withPrompt = format.tokenizer.renderChat(user, chatOptions(format, true));
  const without = format.tokenizer.renderChat(user, chatOptions(format, false));
  const open = '<|im_start|>assistant\n';
  const generation = withPrompt.slice(without.length);
  if (!withPrompt.startsWith(without) || !generation.startsWith(open)) throw new Error('chat template: the generation prompt does not open an assistant turn');
  const tool = toolTurnText(format, 'x');
  const next = tool.indexOf('<|im_start|>');
  if (!tool.startsWith('<|im_end|>') || next === -1) throw new Error('chat template: the tool turn does not end the assistant turn with <|im_end|>');
  return { bodyStart: generation.slice(open.length), turnEnd: tool.slice('<|im_end|>'.length, next) };
}
