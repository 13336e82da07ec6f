/**
 * The four environment actions declared as tools for Qwen's native tool calling. The chat template prints these
 * JSON-schema functions inside `<tools>` in the system turn; the model answers with
 * `<tool_call>{"name": "query", "arguments": {"sql": "…"}}</tool_call>` (parse.ts reads it back).
 *
 * Tool names are lowercase (`describe`, `sample`, `query`, `answer`) with one argument each (`table`, `table`,
 * `sql`, `value`). `toolCallForAction` is the inverse of parsing: it writes a past action as the call the model
 * would have made, for few-shot transcripts and the running episode's history.
 */
import type { Action, ActionType } from '../../env/actions.ts';
import type { ToolCall, ToolSpec } from '../../model/tokenizer.ts';

export type ToolName = 'describe' | 'sample' | 'query' | 'answer';
export const TOOL_NAMES: readonly ToolName[] = ['describe', 'sample', 'query', 'answer'];

/** The argument each tool takes (exactly one, required). */
export const TOOL_ARGUMENT: Readonly<Record<ToolName, string>> = { describe: 'table', sample: 'table', query: 'sql', answer: 'value' };

export const TOOL_ACTION: Readonly<Record<ToolName, ActionType>> = { describe: 'DESCRIBE', sample: 'SAMPLE', query: 'QUERY', answer: 'ANSWER' };

function tool(name: ToolName, description: string, argumentSchema: Record<string, unknown>): ToolSpec {
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: {
        type: 'object',
        properties: { [TOOL_ARGUMENT[name]]: argumentSchema },
        required: [TOOL_ARGUMENT[name]],
      },
    },
  };
}

/** The tool declarations, in the shape `Tokenizer.renderChat({ tools })` takes. */
export const SQL_TOOLS: readonly ToolSpec[] = [
  tool('describe', "Show a table's columns, their types and its keys. Costs one step.", {
    type: 'string',
    description: 'Name of one table of the database.',
  }),
  tool('sample', 'Show a few rows of a table. Costs one step.', {
    type: 'string',
    description: 'Name of one table of the database.',
  }),
  tool('query', 'Run one read-only SQLite SELECT (or WITH … SELECT) statement and see its result (long results are cut). Costs one step.', {
    type: 'string',
    description: 'One SQLite SELECT statement.',
  }),
  tool('answer', 'Submit the final answer. Ends the episode.', {
    type: ['string', 'number', 'array'],
    description: 'The answer: a single value (42, "Paris"), a list of values (["a", "b"]), or rows ([["a", 1], ["b", 2]]).',
  }),
];

/**
 * An ANSWER's text as the model should write it: JSON lists and rows and plain numbers as JSON values (so a shot
 * shows `"value": ["a", "b"]`, not a JSON string inside a string), anything else as the string itself.
 */
export function answerArgument(value: string): unknown {
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed) || (typeof parsed === 'number' && Number.isFinite(parsed))) return parsed;
  } catch {
    // Not JSON: plain text.
  }
  return value;
}

/** A past action written as the tool call that produces it. */
export function toolCallForAction(action: Action): ToolCall {
  switch (action.type) {
    case 'DESCRIBE':
      return { name: 'describe', arguments: { table: action.table } };
    case 'SAMPLE':
      return { name: 'sample', arguments: { table: action.table } };
    case 'QUERY':
      return { name: 'query', arguments: { sql: action.sql } };
    case 'ANSWER':
      return { name: 'answer', arguments: { value: answerArgument(action.value) } };
    default:
      return action satisfies never;
  }
}
