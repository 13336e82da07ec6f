/**
 * Reads a model completion back into an action. The expected shape (Qwen's native tool calling):
 *
 *   [<think> thinking </think>] [any text] <tool_call>{"name": "query", "arguments": {"sql": "SELECT …"}}</tool_call>
 *
 * then `<|im_end|>`. The thinking is kept as text; the first `<tool_call>` after it is the action (a later one is
 * ignored with a note, or rejects the turn when `multipleCalls` is 'invalid'). Everything that is not a well-formed
 * call of one of the four tools — no call, an unclosed call, bad JSON, an unknown tool, a missing, extra or wrongly
 * typed argument, thinking or a call cut by the token limit — becomes an `InvalidAction` whose reason says what was
 * wrong and how to fix it. Parsing never throws: the environment turns the invalid action into its observation.
 */
import { normalizeAction, type AnswerCell, type AnswerValue, type InvalidAction, type ParsedAction } from '../../env/actions.ts';
import { QWEN_SPECIAL_TOKENS, type ToolCall } from '../../model/tokenizer.ts';
import { TOOL_ACTION, TOOL_ARGUMENT, TOOL_NAMES, type ToolName } from './tools.ts';

export interface ParseOptions {
  /** The generation stopped at the per-turn token limit rather than at an end-of-turn token. */
  cutByLimit?: boolean;
  /** The per-turn token limit, for the message when `cutByLimit`. */
  maxNewTokens?: number;
  /** A second tool call: 'first' runs the first one and notes the rest (default); 'invalid' rejects the turn. */
  multipleCalls?: 'first' | 'invalid';
}

export interface ParsedCompletion {
  /** The action to take: a valid action, or an invalid one carrying the reason. */
  action: ParsedAction;
  /** Text inside `<think>…</think>`, trimmed; null when there was no thinking block. */
  thinking: string | null;
  /** Text outside the thinking block and the first tool call, trimmed. */
  content: string;
  /** The first call as written, when its JSON had a name and arguments (even if they were then rejected). */
  toolCall: ToolCall | null;
  /** Number of `<tool_call>` openings after the thinking. */
  toolCallCount: number;
  /** Things worth showing that did not make the turn invalid (ignored extra calls). */
  notes: string[];
}

const { imEnd, endOfText, thinkStart, thinkEnd, toolCallStart, toolCallEnd } = QWEN_SPECIAL_TOKENS;

/** Longest excerpt of the reply an invalid action carries (the environment echoes it in one line). */
export const RAW_EXCERPT_CHARS = 160;

/** The reply on one line and short, for `InvalidAction.raw`. */
export function rawExcerpt(text: string): string {
  // Split and join rather than replace(/\s+/g, ' '), which V8 runs super-linearly on long texts with many runs.
  const line = text.split(/\s+/).join(' ').trim();
  if (line === '') return '(empty reply)';
  return line.length <= RAW_EXCERPT_CHARS ? line : `${line.slice(0, RAW_EXCERPT_CHARS - 1)}…`;
}

const FORMAT_HINT = `Reply with exactly one tool call: ${toolCallStart}{"name": "query", "arguments": {"sql": "SELECT ..."}}${toolCallEnd}.`;

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}

function isCell(value: unknown): value is AnswerCell {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isRow(value: unknown): value is AnswerCell[] {
  return Array.isArray(value) && value.every(isCell);
}

/** An answer value as the tool declares it (text, a number, a list of cells or rows of cells), or what is wrong. */
function answerValue(value: unknown): { value: AnswerValue } | { error: string } {
  if (typeof value === 'string') return value.trim() === '' ? { error: "'value' is empty: give the answer itself." } : { value };
  if (typeof value === 'number') return Number.isFinite(value) ? { value } : { error: "'value' must be a finite number." };
  if (Array.isArray(value)) {
    if (value.every(isCell)) return { value };
    if (value.every(isRow)) return { value };
    return { error: "'value' must be a list of values or a list of rows of values (text, numbers or null)." };
  }
  return { error: `'value' must be text, a number, a list or rows; got ${describeType(value)}.` };
}

/** The action a call names, or the reason it is not one. */
function actionFromCall(name: ToolName, args: Record<string, unknown>, raw: string): ParsedAction {
  const expected = TOOL_ARGUMENT[name];
  const extra = Object.keys(args).filter((k) => k !== expected);
  if (extra.length > 0) return invalid(raw, `${name} takes one argument, '${expected}'; remove ${extra.map((k) => `'${k}'`).join(', ')}.`);
  if (!(expected in args)) return invalid(raw, `${name} needs the argument '${expected}'.`);
  const value = args[expected];
  const type = TOOL_ACTION[name];
  switch (type) {
    case 'DESCRIBE':
    case 'SAMPLE':
    case 'QUERY': {
      if (typeof value !== 'string') return invalid(raw, `${name}: '${expected}' must be a string; got ${describeType(value)}.`);
      if (value.trim() === '') return invalid(raw, `${name}: '${expected}' is empty.`);
      const action = type === 'QUERY' ? normalizeAction({ type, sql: value }) : normalizeAction({ type, table: value });
      return action.type === 'INVALID' ? invalid(raw, action.reason) : action;
    }
    case 'ANSWER': {
      const answer = answerValue(value);
      if ('error' in answer) return invalid(raw, `answer: ${answer.error}`);
      const action = normalizeAction({ type, value: answer.value });
      return action.type === 'INVALID' ? invalid(raw, action.reason) : action;
    }
    default:
      return type satisfies never;
  }
}

function invalid(raw: string, reason: string): InvalidAction {
  return { type: 'INVALID', raw: rawExcerpt(raw), reason };
}

function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}

/** Parses the JSON body of one `<tool_call>`: a call and its action, or the reason it is not one. */
function parseCall(body: string, raw: string): { action: ParsedAction; call: ToolCall | null } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { action: invalid(raw, `The tool call is not valid JSON (${detail}). ${FORMAT_HINT}`), call: null };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { action: invalid(raw, `The tool call must be a JSON object with "name" and "arguments"; got ${describeType(json)}. ${FORMAT_HINT}`), call: null };
  }
  const obj = json as Record<string, unknown>;
  if (typeof obj.name !== 'string') return { action: invalid(raw, `The tool call has no "name" string. ${FORMAT_HINT}`), call: null };
  let args: unknown = obj.arguments;
  // Some chat formats send arguments as a JSON string; accept it when it holds an object.
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      // Reported below as a wrongly typed "arguments".
    }
  }
  const toolNames = TOOL_NAMES.join(', ');
  const name = TOOL_NAMES.find((t) => t === (obj.name as string).trim().toLowerCase());
  if (args === undefined) return { action: invalid(raw, `The tool call has no "arguments" object. ${FORMAT_HINT}`), call: null };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { action: invalid(raw, `"arguments" must be a JSON object; got ${describeType(args)}.`), call: null };
  }
  const call: ToolCall = { name: obj.name, arguments: args as Record<string, unknown> };
  if (!name) return { action: invalid(raw, `Unknown tool '${obj.name}'. Tools: ${toolNames}.`), call };
  return { action: actionFromCall(name, call.arguments, raw), call };
}

function cutMessage(where: string, options: ParseOptions): string {
  const limit = options.maxNewTokens === undefined ? 'the token limit' : `the ${options.maxNewTokens}-token limit`;
  return `The reply was cut at ${limit} ${where}. Think briefly and make one tool call.`;
}

export function parseCompletion(completion: string, options: ParseOptions = {}): ParsedCompletion {
  // Whatever follows the end of the turn is not part of it.
  const endAt = [imEnd, endOfText].map((t) => completion.indexOf(t)).filter((i) => i !== -1);
  const text = endAt.length > 0 ? completion.slice(0, Math.min(...endAt)) : completion;
  const result = (action: ParsedAction, thinking: string | null, content: string, extra: Partial<ParsedCompletion> = {}): ParsedCompletion => ({
    action,
    thinking,
    content: content.trim(),
    toolCall: null,
    toolCallCount: 0,
    notes: [],
    ...extra,
  });

  // Thinking: `<think>…</think>` at the start, or a bare `</think>` when the prompt opened the block.
  let thinking: string | null = null;
  let rest = text;
  const start = text.trimStart();
  const firstCall = text.indexOf(toolCallStart);
  const close = text.indexOf(thinkEnd);
  if (start.startsWith(thinkStart)) {
    const end = start.indexOf(thinkEnd);
    if (end === -1) {
      const reason = options.cutByLimit ? cutMessage('while thinking', options) : `The thinking block was never closed with ${thinkEnd}. ${FORMAT_HINT}`;
      return result(invalid(text, reason), start.slice(thinkStart.length).trim(), '');
    }
    thinking = start.slice(thinkStart.length, end).trim();
    rest = start.slice(end + thinkEnd.length);
  } else if (close !== -1 && (firstCall === -1 || close < firstCall)) {
    thinking = text.slice(0, close).trim();
    rest = text.slice(close + thinkEnd.length);
  }

  const toolCallCount = countOccurrences(rest, toolCallStart);
  const open = rest.indexOf(toolCallStart);
  if (open === -1) {
    const reason = options.cutByLimit ? cutMessage('before any tool call', options) : `No tool call in the reply. ${FORMAT_HINT}`;
    return result(invalid(text, reason), thinking, rest);
  }
  const bodyStart = open + toolCallStart.length;
  const end = rest.indexOf(toolCallEnd, bodyStart);
  const nextOpen = rest.indexOf(toolCallStart, bodyStart);
  if (end === -1 || (nextOpen !== -1 && nextOpen < end)) {
    const reason = options.cutByLimit && end === -1 ? cutMessage('inside the tool call', options) : `The tool call was not closed with ${toolCallEnd}. ${FORMAT_HINT}`;
    return result(invalid(text, reason), thinking, rest.slice(0, open), { toolCallCount });
  }
  const body = rest.slice(bodyStart, end).trim();
  const content = `${rest.slice(0, open)}${rest.slice(end + toolCallEnd.length)}`;
  const { action, call } = parseCall(body, text);
  const notes: string[] = [];
  if (toolCallCount > 1) {
    if (options.multipleCalls === 'invalid') {
      return result(invalid(text, `The reply made ${toolCallCount} tool calls; make exactly one per turn.`), thinking, content, { toolCall: call, toolCallCount });
    }
    notes.push(`The reply made ${toolCallCount} tool calls; only the first was used.`);
  }
  return result(action, thinking, content, { toolCall: call, toolCallCount, notes });
}
