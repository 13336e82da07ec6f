/**
 * Actions in their two forms: structured objects and canonical text (`DESCRIBE table`, `SAMPLE table`,
 * `QUERY sql`, `ANSWER value`; keywords case-insensitive). Parsing never throws: anything that is not a valid
 * action becomes an `InvalidAction` carrying the reason, which the environment turns into an observation.
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

const ACTION_PATTERN = /^\s*([A-Za-z]+)\b[ \t]*:?([\s\S]*)$/;

function invalid(raw: string, reason: string): InvalidAction {
  return { type: 'INVALID', raw, reason };
}

function parseTableArgument(type: 'DESCRIBE' | 'SAMPLE', raw: string, argument: string): ParsedAction {
  const name = unquoteIdentifier(argument.trim().replace(/;+$/, '').trim());
  if (name === '') return invalid(raw, `${type} needs a table name, e.g. '${type} singer'.`);
  if (/\s/.test(name) && !/^["`[]/.test(argument.trim())) {
    return invalid(raw, `${type} takes one table name; got '${argument.trim()}'.`);
  }
  return { type, table: name };
}

export function parseAction(text: string): ParsedAction {
  const match = ACTION_PATTERN.exec(text);
  if (!match) return invalid(text, 'Empty action. Write one of: DESCRIBE <table>, SAMPLE <table>, QUERY <sql>, ANSWER <value>.');
  const keyword = match[1].toUpperCase();
  const argument = match[2].trim();
  switch (keyword) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return parseTableArgument(keyword, text, argument);
    case 'QUERY':
      return argument === '' ? invalid(text, "QUERY needs a SQL statement, e.g. 'QUERY SELECT count(*) FROM singer'.") : { type: 'QUERY', sql: argument };
    case 'ANSWER':
      return argument === '' ? invalid(text, "ANSWER needs a value, e.g. 'ANSWER 42' or 'ANSWER [\"a\", \"b\"]'.") : { type: 'ANSWER', value: argument };
    default:
      return invalid(text, `Unknown action '${match[1]}'. Write one of: DESCRIBE <table>, SAMPLE <table>, QUERY <sql>, ANSWER <value>.`);
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
      return typeof obj.table === 'string' ? parseTableArgument(type, raw, obj.table) : invalid(raw, `${type} needs a 'table' string.`);
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
      return `${action.type} ${action.table}`;
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

/** Identity of an action for repeat detection: case and spacing do not make a new action. */
export function actionKey(action: Action): string {
  switch (action.type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return `${action.type} ${action.table.toLowerCase()}`;
    case 'QUERY':
      return `QUERY ${action.sql.replace(/;+\s*$/, '').replace(/\s+/g, ' ').trim()}`;
    case 'ANSWER':
      return `ANSWER ${action.value.trim().toLowerCase()}`;
    default:
      return action satisfies never;
  }
}
