/**
 * Actions in their two forms: structured objects and canonical text (`DESCRIBE table`, `SAMPLE table`,
 * `QUERY sql`, `ANSWER value`; keywords case-insensitive, an optional `:` after the keyword). Parsing never throws:
 * anything that is not a valid action becomes an `InvalidAction` carrying the reason, which the environment turns
 * into an observation. Text that is close to an action in another form (a JSON object, a `<tool_call>`, a ``` fence
 * around the action) gets a reason that names the form it saw and shows the text form expected.
 *
 * Parsing is a hand-written scan, linear in the text: the text may be a degenerate model output of 10^6 characters.
 */
import { unquoteIdentifier } from '../sql/tokenize.ts';

export type ActionType = 'DESCRIBE' | 'SAMPLE' | 'QUERY' | 'ANSWER';
export const ACTION_TYPES: readonly ActionType[] = ['DESCRIBE', 'SAMPLE', 'QUERY', 'ANSWER'];

/** A value an ANSWER may carry as a structured object; in text form lists and rows are written as JSON. */
export type AnswerCell = string | number | null;
export type AnswerValue = AnswerCell | AnswerCell[] | AnswerCell[][];

export type Action =
  | { type: 'DESCRIBE'; table: string }
  | { type: 'SAMPLE'; table: string }
  | { type: 'QUERY'; sql: string }
  | { type: 'ANSWER'; value: string };

export interface InvalidAction {
  type: 'INVALID';
  raw: string;
  reason: string;
}

export type ParsedAction = Action | InvalidAction;

/**
 * What a caller may hand to `step`: canonical text, or an object (ANSWER may carry a structured value). A policy
 * that already knows its output is not an action (a model's malformed tool call) passes an `InvalidAction` with its
 * own reason, which the observation then states.
 */
export type ActionInput = string | Action | { type: 'ANSWER'; value: AnswerValue } | InvalidAction;

const ACTION_FORMS = 'DESCRIBE <table>, SAMPLE <table>, QUERY <sql>, ANSWER <value>';

function invalid(raw: string, reason: string): InvalidAction {
  return { type: 'INVALID', raw, reason };
}

function parseTableArgument(type: 'DESCRIBE' | 'SAMPLE', raw: string, argument: string): ParsedAction {
  const name = unquoteIdentifier(withoutTrailingSemicolons(argument.trim()).trim());
  if (name === '') return invalid(raw, `${type} needs a table name, e.g. '${type} singer'.`);
  const first = argument.trim()[0];
  if (hasSpace(name) && first !== '"' && first !== '`' && first !== '[') {
    return invalid(raw, `${type} takes one table name; got '${excerpt(argument.trim())}'. Quote a name with spaces: ${type} "my table".`);
  }
  return { type, table: name };
}

/**
 * The table of an object action: the name exactly as given (a policy that read it from the schema passes it as the
 * database spells it, spaces included), or unquoted when it comes quoted as in text.
 */
function tableFromObject(type: 'DESCRIBE' | 'SAMPLE', raw: string, table: string): ParsedAction {
  const name = table.trim();
  const first = name[0];
  if (first === '"' || first === '`' || first === '[') return parseTableArgument(type, raw, name);
  return name === '' ? invalid(raw, `${type} needs a table name, e.g. '${type} singer'.`) : { type, table: name };
}

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A table name as a text action's argument: as it is when it is a plain identifier, else double-quoted with inner
 * quotes doubled (`my pets` → `"my pets"`), which `parseAction` reads back to the exact name.
 */
export function quoteTableName(name: string): string {
  return PLAIN_IDENTIFIER.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** `s` without its trailing run of `;` (a scan from the end, not a backtracking regex). */
function withoutTrailingSemicolons(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === ';') end--;
  return s.slice(0, end);
}

function hasSpace(s: string): boolean {
  for (const c of s) if (c.trim() === '') return true;
  return false;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Letters, digits or `_`: what a regex's \w matches, for the word boundary after the keyword. */
function isWordChar(c: number): boolean {
  return isLetter(c) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * The keyword and argument of text action: leading white space, a run of ASCII letters ending at a word boundary,
 * then spaces or tabs, an optional `:`, and the rest (trimmed). Undefined when the text does not start that way.
 */
function splitKeyword(text: string): { keyword: string; argument: string } | undefined {
  let i = 0;
  while (i < text.length && text[i].trim() === '') i++;
  const start = i;
  while (i < text.length && isLetter(text.charCodeAt(i))) i++;
  if (i === start || (i < text.length && isWordChar(text.charCodeAt(i)))) return undefined;
  const keyword = text.slice(start, i);
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === ':') i++;
  return { keyword, argument: text.slice(i).trim() };
}

/**
 * Why text that is not an action was not one, naming what it looks like: a JSON object, a model's tool call, an
 * action inside a ``` fence, or nothing at all.
 */
function unparsedReason(text: string): string {
  const body = text.trim();
  if (body === '') return `Empty action. Write one of: ${ACTION_FORMS}.`;
  if (body.startsWith('<tool_call>')) {
    return `This looks like a tool call (<tool_call>{...}</tool_call>); here actions are text. Write one of: ${ACTION_FORMS}, e.g. QUERY SELECT count(*) FROM singer.`;
  }
  if (body.startsWith('{') || body.startsWith('[')) {
    return `This looks like a JSON ${body.startsWith('{') ? 'object' : 'array'}; write the action as text: QUERY <sql> (or ${ACTION_FORMS}).`;
  }
  if (body.startsWith('```')) {
    const inside = fencedAction(body);
    const example = inside ? `, e.g. ${inside.keyword.toUpperCase()} ${excerpt(inside.argument)}` : '';
    return `This looks like a \`\`\` code block; write the action as plain text without the fence${example}. Actions: ${ACTION_FORMS}.`;
  }
  return `Not an action: it does not start with a keyword. Write one of: ${ACTION_FORMS}.`;
}

/** The action keyword on the first line inside a ``` fence, if it names one. */
function fencedAction(body: string): { keyword: string; argument: string } | undefined {
  let inner = body.slice(3);
  if (inner.endsWith('```')) inner = inner.slice(0, -3);
  const newline = inner.indexOf('\n');
  const firstLine = newline === -1 ? inner : inner.slice(0, newline);
  // ```sql / ```text: an info word alone on the first line; the action starts on the next one.
  const rest = newline !== -1 && !hasSpace(firstLine.trim()) && !isKeyword(firstLine.trim()) ? inner.slice(newline + 1) : inner;
  const split = splitKeyword(rest);
  return split && isKeyword(split.keyword) ? split : undefined;
}

function isKeyword(word: string): boolean {
  return (ACTION_TYPES as readonly string[]).includes(word.toUpperCase());
}

/** The first line of `s`, at most 60 characters, for an example in a reason. */
function excerpt(s: string): string {
  const newline = s.indexOf('\n');
  const line = (newline === -1 ? s : s.slice(0, newline)).trim();
  return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}

export function parseAction(text: string): ParsedAction {
  const split = splitKeyword(text);
  if (!split) return invalid(text, unparsedReason(text));
  const { keyword: word, argument } = split;
  const keyword = word.toUpperCase();
  switch (keyword) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return parseTableArgument(keyword, text, argument);
    case 'QUERY':
      return argument === '' ? invalid(text, "QUERY needs a SQL statement, e.g. 'QUERY SELECT count(*) FROM singer'.") : { type: 'QUERY', sql: argument };
    case 'ANSWER':
      return argument === '' ? invalid(text, "ANSWER needs a value, e.g. 'ANSWER 42' or 'ANSWER [\"a\", \"b\"]'.") : { type: 'ANSWER', value: argument };
    default:
      return invalid(text, `Unknown action '${excerpt(word)}'. Write one of: ${ACTION_FORMS}.`);
  }
}

/** Accepts text or an object and validates objects as carefully as text (they may come from a model). */
export function normalizeAction(input: unknown): ParsedAction {
  if (typeof input === 'string') return parseAction(input);
  if (typeof input !== 'object' || input === null || !('type' in input)) {
    return invalid(String(input), 'An action must be text or an object with a type.');
  }
  const obj = input as Record<string, unknown>;
  const type = typeof obj.type === 'string' ? obj.type.toUpperCase() : '';
  const raw = JSON.stringify(input);
  switch (type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return typeof obj.table === 'string' ? tableFromObject(type, raw, obj.table) : invalid(raw, `${type} needs a 'table' string.`);
    case 'QUERY':
      return typeof obj.sql === 'string' && obj.sql.trim() !== '' ? { type: 'QUERY', sql: obj.sql.trim() } : invalid(raw, "QUERY needs a non-empty 'sql' string.");
    case 'ANSWER': {
      const value = obj.value;
      if (value === undefined) return invalid(raw, "ANSWER needs a 'value'.");
      const text = typeof value === 'string' ? value.trim() : JSON.stringify(value);
      return text === '' ? invalid(raw, 'ANSWER needs a non-empty value.') : { type: 'ANSWER', value: text };
    }
    case 'INVALID':
      return typeof obj.reason === 'string' && obj.reason.trim() !== '' ? invalid(typeof obj.raw === 'string' ? obj.raw : raw, obj.reason) : invalid(raw, 'An invalid action needs a reason.');
    default:
      return invalid(raw, `Unknown action type '${String(obj.type)}'.`);
  }
}

export function formatAction(action: ParsedAction): string {
  switch (action.type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return `${action.type} ${quoteTableName(action.table)}`;
    case 'QUERY':
      return `QUERY ${action.sql}`;
    case 'ANSWER':
      return `ANSWER ${action.value}`;
    case 'INVALID':
      return action.raw;
    default:
      return action satisfies never;
  }
}
