/**
 * The Qwen tokenizer and chat template, through `@huggingface/transformers` (its BPE) and `@huggingface/jinja` (the
 * Jinja engine transformers.js renders with, here under a step and size budget: chat-template.ts), so the text the
 * model sees is exactly what Hugging Face would render. Both files are untrusted: tokenizer.json's regexes are checked
 * (tokenizer-regex.ts) before the library compiles them. Built from the two JSON files of a checkpoint —
 * tokenizer.json and tokenizer_config.json (chat template inside) — handed over as parsed objects, so the browser
 * passes what it fetched or cached and Node passes what it read from a folder (`files-node.ts`). The class is chosen
 * as `AutoTokenizer.from_pretrained` chooses it (tokenizer_config's `tokenizer_class`, "Fast" dropped); nothing is
 * fetched. The library is imported lazily: it is large, and only the worker that tokenizes needs it.
 *
 * Chats use Qwen's native tool calling: tools are declared as JSON-schema functions, the model answers with
 * `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, results come back as `tool` messages rendered inside
 * `<tool_response>`. Thinking (Qwen3) is on or off per render: off appends an empty `<think>\n\n</think>\n\n` to the
 * generation prompt, as Qwen's template does for `enable_thinking=False`.
 */
import { chatTemplateContext, compileChatTemplate } from './chat-template.ts';
import { findUnsafeTokenizerRegex } from './tokenizer-regex.ts';

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoningContent?: string }
  | { role: 'tool'; content: string };

export interface ChatOptions {
  tools?: ToolSpec[];
  /** End with `<|im_start|>assistant\n` (and the empty think block when thinking is off). Default true. */
  addGenerationPrompt?: boolean;
  /** Qwen3's thinking switch; default false (the project's default). */
  enableThinking?: boolean;
}

/** Special tokens of Qwen2.5/Qwen3 the policy and the sampler look for. */
export const QWEN_SPECIAL_TOKENS = {
  endOfText: '<|endoftext|>',
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
  toolCallStart: '<tool_call>',
  toolCallEnd: '</tool_call>',
  thinkStart: '<think>',
  thinkEnd: '</think>',
} as const;

export type QwenSpecialToken = keyof typeof QWEN_SPECIAL_TOKENS;

export interface Tokenizer {
  /** Token ids of plain text (special-token strings in it map to their single ids; no BOS/EOS added). */
  encode(text: string): number[];
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** The chat as text, through the checkpoint's own template. */
  renderChat(messages: readonly ChatMessage[], options?: ChatOptions): string;
  /** The chat's token ids (= encode(renderChat(...))). */
  encodeChat(messages: readonly ChatMessage[], options?: ChatOptions): number[];
  /** Id of a single token string, or undefined when it is not one token. */
  tokenId(token: string): number | undefined;
  /** Ids of the special tokens above, checked present at construction. */
  readonly special: Readonly<Record<QwenSpecialToken, number>>;
  /** Number of distinct ids the tokenizer can produce (regular + added); at most the model's V. */
  readonly size: number;
}

export class TokenizerError extends Error {
  override name = 'TokenizerError';
}

/** A message as Hugging Face chat templates read it (snake_case fields, tool calls as OpenAI-style functions). */
type TemplateMessage = Record<string, unknown>;

function toTemplateMessage(m: ChatMessage): TemplateMessage {
  if (m.role !== 'assistant') return { role: m.role, content: m.content };
  const out: TemplateMessage = { role: 'assistant', content: m.content };
  if (m.reasoningContent !== undefined) out.reasoning_content = m.reasoningContent;
  if (m.toolCalls !== undefined && m.toolCalls.length > 0) {
    out.tool_calls = m.toolCalls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return out;
}

/**
 * A tokenizer from parsed tokenizer.json and tokenizer_config.json. `chatTemplate` overrides the config's template
 * (newer checkpoints ship it as a separate chat_template.jinja).
 */
export async function createTokenizer(tokenizerJson: unknown, tokenizerConfig: unknown, chatTemplate?: string): Promise<Tokenizer> {
  if (typeof tokenizerJson !== 'object' || tokenizerJson === null || !('model' in tokenizerJson)) {
    throw new TokenizerError('tokenizer.json is not a Hugging Face tokenizers file (no "model" field)');
  }
  if (typeof tokenizerConfig !== 'object' || tokenizerConfig === null) throw new TokenizerError('tokenizer_config.json must be a JSON object');
  const config = { ...(tokenizerConfig as Record<string, unknown>) };
  if (chatTemplate !== undefined) config.chat_template = chatTemplate;
  if (typeof config.chat_template !== 'string') {
    throw new TokenizerError('No chat template: tokenizer_config.json has no "chat_template" and no chat_template.jinja was given');
  }

  // Both files are untrusted: refuse a pattern that could backtrack, and parse the template (size-capped) up front.
  const unsafe = findUnsafeTokenizerRegex(tokenizerJson);
  if (unsafe !== null) {
    const shown = unsafe.pattern.length > 100 ? `${unsafe.pattern.slice(0, 100)}…` : unsafe.pattern;
    throw new TokenizerError(`tokenizer.json ${unsafe.path}: the regex ${JSON.stringify(shown)} ${unsafe.reason}. Only the Qwen/GPT-2 pre-tokenizer patterns and a linear-time subset are accepted, so a hostile file cannot hang encoding.`);
  }
  const template = compileChatTemplate(config.chat_template);

  const lib = await import('@huggingface/transformers');
  const className = typeof config.tokenizer_class === 'string' ? config.tokenizer_class.replace(/Fast$/, '') : 'PreTrainedTokenizer';
  const Class = className === 'Qwen2Tokenizer' ? lib.Qwen2Tokenizer : lib.PreTrainedTokenizer;
  const tok = new Class(tokenizerJson, config);
  const vocab = tok.get_vocab();

  const tokenId = (token: string): number | undefined => vocab.get(token);
  const special = {} as Record<QwenSpecialToken, number>;
  for (const [key, token] of Object.entries(QWEN_SPECIAL_TOKENS) as Array<[QwenSpecialToken, string]>) {
    const id = tokenId(token);
    if (id === undefined) throw new TokenizerError(`Token ${token} is missing from tokenizer.json: not a Qwen2.5/Qwen3 tokenizer?`);
    special[key] = id;
  }
  let size = 0;
  for (const id of vocab.values()) size = Math.max(size, id + 1);

  const renderChat = (messages: readonly ChatMessage[], options: ChatOptions = {}): string => {
    if (messages.length === 0) throw new TokenizerError('renderChat: no messages');
    const context = chatTemplateContext(
      config,
      { messages: messages.map(toTemplateMessage), addGenerationPrompt: options.addGenerationPrompt ?? true, tools: options.tools ?? null },
      { enable_thinking: options.enableThinking ?? false },
    );
    return template.render(context);
  };
  const encode = (text: string): number[] => tok.encode(text, { add_special_tokens: false });

  return {
    encode,
    decode: (ids, options = {}) => tok.decode([...ids], { skip_special_tokens: options.skipSpecialTokens ?? false }),
    renderChat,
    encodeChat: (messages, options) => encode(renderChat(messages, options)),
    tokenId,
    special,
    size,
  };
}
