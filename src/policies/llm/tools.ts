/**
 * The four environment actions declared as tools for Qwen's native tool calling. The chat template prints these
 * JSON-schema functions inside `<tools>` in the system turn; the model answers with
 * `<tool_call>{"name": "query", "arguments": {"sql": "…"}}</tool_call>` (parse.ts reads it back).
 *
 * This is the one source of the tool block. The page's policy, the SFT export (src/eval/trl-export.ts) and the MCP
 * tools read SQL_TOOLS; the Python client reads its JSON copy, python/sqlenv_client/tools.json (written by
 * `npx tsx scripts/write-tool-specs.ts`; tests/policies/llm/tools-json.test.ts fails when it is stale), and builds
 * SQLEnvTRL's docstrings and type hints from it, so TRL's GRPO prompt shows this same block. Two things are fixed
 * by TRL and transformers and followed here: the order is alphabetical (TRL lists an environment's methods with
 * `inspect.getmembers`, which sorts by name), and a union type is a sorted list of JSON type names (transformers'
 * `get_json_schema`).
 *
 * Tool names are lowercase (`describe`, `sample`, `query`, `answer`) with one argument each (`table`, `table`,
 * `sql`, `value`). `toolCallForAction` is the inverse of parsing: it writes a past action as the call the model
 * would have made, for few-shot transcripts and the running episode's history.
 */
import type { Action, ActionType } from '../../env/actions.ts';
import type { ToolCall, ToolSpec } from '../../model/tokenizer.ts';

export type ToolName = 'answer' | 'describe' | 'query' | 'sample';
/** Alphabetical: the order TRL discovers SQLEnvTRL's methods in (see the header). */
export const TOOL_NAMES: readonly ToolName[] = ['answer', 'describe', 'query', 'sample'];

/** The argument each tool takes (exactly one, required). */
export const TOOL_ARGUMENT: Readonly<Record<ToolName, string>> = { answer: 'value', describe: 'table', query: 'sql', sample: 'table' };

export const TOOL_ACTION: Readonly<Record<ToolName, ActionType>> = { answer: 'ANSWER', describe: 'DESCRIBE', query: 'QUERY', sample: 'SAMPLE' };

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

/** The tool declarations, in the shape `Tokenizer.renderChat({ tools })` takes, in TOOL_NAMES' order. */
export const SQL_TOOLS: readonly ToolSpec[] = [
  tool('answer', 'Submit the final answer. Ends the episode.', {
    // Sorted, as transformers writes the Python hint Union[str, float, List] (an int is a float there, and JSON's
    // "number" takes integers).
    type: ['array', 'number', 'string'],
    description: 'The answer: a single value (42, "Paris"), a list of values (["a", "b"]), or rows ([["a", 1], ["b", 2]]).',
  }),
  tool('describe', "Show a table's columns, their types and its keys. Costs one step.", {
    type: 'string',
    description: 'Name of one table of the database.',
  }),
  tool('query', 'Run one read-only SQLite SELECT (or WITH … SELECT) statement and see its result (long results are cut). Costs one step.', {
    type: 'string',
    description: 'One SQLite SELECT statement.',
  }),
  tool('sample', 'Show a few rows of a table. Costs one step.', {
    type: 'string',
    description: 'Name of one table of the database.',
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

/** SQL_TOOLS as the text of python/sqlenv_client/tools.json, the Python client's copy (see the header). */
export function toolSpecsJson(): string {
  return `${JSON.stringify(SQL_TOOLS, null, 2)}\n`;
}
