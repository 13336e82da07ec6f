/**
 * The four environment actions as MCP tools, following OpenEnv's RFC 003 on tool duality: the tools an MCP client
 * lists are the tools the model is trained with. Names, descriptions and argument schemas all come from `SQL_TOOLS`
 * (src/policies/llm/tools.ts), in its order; nothing here restates them.
 *
 * A call becomes the SQLAction the WebSocket protocol carries — `{action_type: NAME, argument}`, the argument as
 * given when it is a string and as JSON otherwise (an answer list or number) — so an MCP step is the `/ws` step with
 * the same action, reward for reward. Its result (`CallToolResult`) carries the observation text as text content
 * and the whole step reply, `{observation, reward, done}` exactly as `/ws` sends it, as `structuredContent`.
 *
 * A call that names no tool, whose arguments do not fit the tool's schema, or that the environment refuses (no
 * episode yet, the episode is over) takes no step: it is answered with an error result (`isError: true`), as the
 * SDK's own `McpServer` answers them, so the model reads why.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { SQL_TOOLS } from '../policies/llm/tools.ts';
import { SQL_ACTION_TYPES, type SqlActionType, type SqlActionWire, type WireStepResult } from './protocol.ts';
import { errorMessage } from './wire.ts';

interface ToolBinding {
  tool: Tool;
  actionType: SqlActionType;
  /** The tool's one argument (the single required property of its schema). */
  argument: string;
  validate: (args: unknown) => { valid: boolean; errorMessage?: string };
}

/** One Ajv for every tool and every session's SDK server (an Ajv instance is costly to make). */
export const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

function bind(spec: (typeof SQL_TOOLS)[number]): ToolBinding {
  const { name, description, parameters } = spec.function;
  const actionType = SQL_ACTION_TYPES.find((t) => t === name.toUpperCase());
  const required = parameters.required;
  if (!actionType || !Array.isArray(required) || required.length !== 1 || typeof required[0] !== 'string') {
    // A programming error in SQL_TOOLS, caught when this module loads.
    throw new Error(`SQL_TOOLS entry '${name}' is not one action with one required argument.`);
  }
  return {
    tool: { name, description, inputSchema: parameters as Tool['inputSchema'] },
    actionType,
    argument: required[0],
    validate: JSON_SCHEMA_VALIDATOR.getValidator(parameters),
  };
}

const BINDINGS: readonly ToolBinding[] = SQL_TOOLS.map(bind);

/** The tools `tools/list` answers, in SQL_TOOLS order. */
export const MCP_TOOLS: readonly Tool[] = BINDINGS.map((b) => b.tool);

/** An error result: the call took no step. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Why a call took no step, in OpenEnv's words (mcp_types.py ToolErrorType). */
export type ToolErrorType = 'tool_not_found' | 'invalid_args' | 'execution_error';

export interface ToolCallOutcome {
  result: CallToolResult;
  /** The step's reply, or null when the call took no step. */
  step: WireStepResult | null;
  errorType: ToolErrorType | null;
}

/** The SQLAction a tool call stands for, or why it stands for none. */
export function actionForToolCall(name: string, args: Record<string, unknown> | undefined): { action: SqlActionWire } | { errorType: ToolErrorType; message: string } {
  const binding = BINDINGS.find((b) => b.tool.name === name);
  if (!binding) return { errorType: 'tool_not_found', message: `Unknown tool '${name.slice(0, 100)}'. Tools: ${MCP_TOOLS.map((t) => t.name).join(', ')}.` };
  const given = args ?? {};
  const check = binding.validate(given);
  if (!check.valid) return { errorType: 'invalid_args', message: `Invalid arguments for tool '${name}': ${check.errorMessage ?? 'they do not match its input schema'}.` };
  const value = given[binding.argument];
  return { action: { action_type: binding.actionType, argument: typeof value === 'string' ? value : JSON.stringify(value) } };
}

/** One tool call: the step it stands for, played by `step`, as a tool result; refusals take no step. */
export async function callTool(name: string, args: Record<string, unknown> | undefined, step: (action: SqlActionWire) => Promise<WireStepResult>): Promise<ToolCallOutcome> {
  const call = actionForToolCall(name, args);
  if ('errorType' in call) return { result: toolError(call.message), step: null, errorType: call.errorType };
  try {
    const reply = await step(call.action);
    return { result: toolResult(reply), step: reply, errorType: null };
  } catch (e) {
    // The environment refused the step (no episode yet, the episode is over, the session closed): no step taken.
    return { result: toolError(errorMessage(e)), step: null, errorType: 'execution_error' };
  }
}

/** A step's reply as a tool result: the observation text for the model, the whole reply for programs. */
export function toolResult(step: WireStepResult): CallToolResult {
  return {
    content: [{ type: 'text', text: step.observation.text }],
    structuredContent: { ...step },
    isError: false,
  };
}
