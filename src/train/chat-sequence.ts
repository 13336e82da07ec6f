/**
 * An episode as ONE token sequence, built turn by turn the way it was sampled ("tokens in, tokens out"):
 *
 *   [prompt: system + shots + user, generation prompt]  mask 0   (buildPrompt, exactly as LlmPolicy renders turn 1)
 *   [reply 1: the model's own tokens, end token included] mask 1
 *   [tool turn 1: `<|im_end|>` if the reply lacked it, the observation as a tool message, the next generation prompt]
 *                                                         mask 0
 *   [reply 2] mask 1 …
 *
 * Replies are kept as the sampled token ids (never re-tokenized or re-rendered), so the context each reply was
 * sampled from is exactly a prefix of the sequence, and the log-probs the trainer recomputes are those of the
 * sampled tokens. The text between replies comes from the checkpoint's own chat template: a sentinel assistant
 * message is rendered followed by the tool message and the generation prompt, and what follows the sentinel is the
 * tool turn (`<|im_end|>\n<|im_start|>user\n<tool_response>\n…\n</tool_response><|im_end|>\n<|im_start|>assistant\n`
 * for Qwen, plus the empty think block when thinking is off). The same template gives a demonstration's reply text
 * (SFT): what the template renders for an assistant tool call after the generation prompt.
 *
 * Later turns therefore differ from LlmPolicy's re-rendered history in one way: past replies appear verbatim
 * (thinking and stray text included) rather than as canonical calls.
 */
import type { ChatMessage, Tokenizer, ToolCall } from '../model/tokenizer.ts';
import { SQL_TOOLS } from '../policies/llm/tools.ts';

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

/** Token ids of the tool turn after a reply; the leading `<|im_end|>` is left out when the reply already ended with it. */
export function toolTurnTokens(format: ChatFormat, observation: string, replyEnded: boolean): number[] {
  const { imEnd } = format.tokenizer.special;
  const ids = format.tokenizer.encode(toolTurnText(format, observation));
  if (ids[0] !== imEnd) throw new Error('chat template: the tool turn does not start with <|im_end|>');
  return replyEnded ? ids.slice(1) : ids;
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

/** Token ids of a demonstration reply, end token included (all of them the model's own: loss mask 1). */
export function replyTokensForCall(format: ChatFormat, call: ToolCall): number[] {
  return [...format.tokenizer.encode(replyTextForCall(format, call)), format.tokenizer.special.imEnd];
}

/** A growing token sequence with its loss mask and the sampled log-prob of each masked-in token. */
export class SequenceBuilder {
  readonly tokenIds: number[] = [];
  readonly mask: number[] = [];
  readonly sampledLogProbs: number[] = [];

  get length(): number {
    return this.tokenIds.length;
  }

  /** Environment / prompt tokens (mask 0). */
  pushContext(ids: readonly number[]): void {
    for (const id of ids) {
      this.tokenIds.push(id);
      this.mask.push(0);
    }
  }

  /** The model's tokens (mask 1), with their sampled log-probs when known (NaN otherwise). */
  pushReply(ids: readonly number[], logProbs?: readonly number[]): void {
    if (this.tokenIds.length === 0 && ids.length > 0) throw new RangeError('SequenceBuilder: a reply needs a prompt before it');
    ids.forEach((id, i) => {
      this.tokenIds.push(id);
      this.mask.push(1);
      this.sampledLogProbs.push(logProbs?.[i] ?? NaN);
    });
  }

  lossMask(): Uint8Array {
    return Uint8Array.from(this.mask);
  }
}
