/**
 * Between the wire and the environment: validation of what clients send (with pydantic-style issues, as OpenEnv's
 * `ValidationError.errors()` gives them) and conversion of the environment's results into protocol.ts shapes.
 *
 * Validation follows the Python models: SQLAction forbids extra fields and takes `action_type` from its four
 * literals; reset parameters are checked by type, and unknown ones are ignored (OpenEnv passes only the keyword
 * arguments `reset` accepts, http_server.py `_get_valid_kwargs`). Inputs echoed in issues are clipped, so a 1 MB
 * field never comes back in an error.
 */
import { DIFFICULTIES, SPLITS, type Difficulty, type SplitSelector } from '../data/types.ts';
import type { ActionInput } from '../env/actions.ts';
import { formatAction } from '../env/actions.ts';
import { ENV_VERSION } from '../env/env.ts';
import { clipText } from '../env/result-view.ts';
import type { EnvState, Observation, ResetResult, StepResult } from '../env/types.ts';
import type { SqlValue, TableInfo } from '../sql/types.ts';
import { SQL_ACTION_TYPES, type ResetParams, type SqlActionType, type SqlActionWire, type ValidationIssue, type WireObservation, type WireState, type WireStepResult, type WireTable, type WireValue } from './protocol.ts';

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

const ECHO_CHARS = 200;
/** Characters of the action echoed in step metadata (the observation text echoes as many). */
const ECHO_ACTION_CHARS = 500;

/** A value as an issue may echo it: strings clipped, objects summarised. */
function echo(value: unknown): unknown {
  if (typeof value === 'string') return value.length <= ECHO_CHARS ? value : `${value.slice(0, ECHO_CHARS)}…`;
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? `[array of ${value.length}]` : '{object}';
  return value;
}

/** An exception's message for an error response, bounded (an environment error may quote the action). */
export function errorMessage(e: unknown): string {
  return clipText(e instanceof Error ? e.message : String(e), 2_000);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const quoteList = (items: readonly string[]): string => items.map((s) => `'${s}'`).join(', ').replace(/, ([^,]*)$/, ' or $1');

/** SQLAction.model_validate: `{action_type, argument, metadata?}`, nothing else. */
export function validateAction(data: unknown, loc: Array<string | number> = []): Validated<SqlActionWire> {
  if (!isPlainObject(data)) return { ok: false, issues: [{ type: 'model_type', loc, msg: 'Input should be a valid dictionary or instance of SQLAction', input: echo(data) }] };
  const issues: ValidationIssue[] = [];
  const type = data.action_type;
  if (type === undefined) issues.push({ type: 'missing', loc: [...loc, 'action_type'], msg: 'Field required' });
  else if (typeof type !== 'string' || !(SQL_ACTION_TYPES as readonly string[]).includes(type)) {
    issues.push({ type: 'literal_error', loc: [...loc, 'action_type'], msg: `Input should be ${quoteList(SQL_ACTION_TYPES)}`, input: echo(type) });
  }
  const argument = data.argument;
  if (argument === undefined) issues.push({ type: 'missing', loc: [...loc, 'argument'], msg: 'Field required' });
  else if (typeof argument !== 'string') issues.push({ type: 'string_type', loc: [...loc, 'argument'], msg: 'Input should be a valid string', input: echo(argument) });
  if (data.metadata !== undefined && !isPlainObject(data.metadata)) issues.push({ type: 'dict_type', loc: [...loc, 'metadata'], msg: 'Input should be a valid dictionary', input: echo(data.metadata) });
  for (const key of Object.keys(data)) {
    if (key !== 'action_type' && key !== 'argument' && key !== 'metadata') issues.push({ type: 'extra_forbidden', loc: [...loc, key], msg: 'Extra inputs are not permitted', input: echo(data[key]) });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { action_type: type as SqlActionType, argument: argument as string, ...(isPlainObject(data.metadata) && { metadata: data.metadata }) } };
}

/** The environment's `step` input for a SQLAction: the object form, so a table name passes exactly as given. */
export function toActionInput(action: SqlActionWire): ActionInput {
  switch (action.action_type) {
    case 'DESCRIBE':
    case 'SAMPLE':
      return { type: action.action_type, table: action.argument };
    case 'QUERY':
      return { type: 'QUERY', sql: action.argument };
    case 'ANSWER':
      return { type: 'ANSWER', value: action.argument };
    default:
      return action.action_type satisfies never;
  }
}

/** Reset parameters, checked by type; keys `reset` does not take are ignored, as OpenEnv does. */
export function validateReset(data: unknown, loc: Array<string | number> = []): Validated<ResetParams> {
  if (data === undefined || data === null) return { ok: true, value: {} };
  if (!isPlainObject(data)) return { ok: false, issues: [{ type: 'dict_type', loc, msg: 'Input should be a valid dictionary', input: echo(data) }] };
  const issues: ValidationIssue[] = [];
  const value: ResetParams = {};
  const str = (key: 'episode_id' | 'question_id' | 'db_id', max: number): void => {
    const v = data[key];
    if (v === undefined || v === null) return;
    if (typeof v !== 'string') issues.push({ type: 'string_type', loc: [...loc, key], msg: 'Input should be a valid string', input: echo(v) });
    else if (v.length > max) issues.push({ type: 'string_too_long', loc: [...loc, key], msg: `String should have at most ${max} characters`, input: echo(v) });
    else value[key] = v;
  };
  const seed = data.seed;
  if (seed !== undefined && seed !== null) {
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) issues.push({ type: 'int_type', loc: [...loc, 'seed'], msg: 'Input should be a valid integer', input: echo(seed) });
    else if (seed < 0) issues.push({ type: 'greater_than_equal', loc: [...loc, 'seed'], msg: 'Input should be greater than or equal to 0', input: seed });
    else value.seed = seed;
  }
  str('episode_id', 255);
  str('question_id', 255);
  str('db_id', 255);
  const split = data.split;
  if (split !== undefined && split !== null) {
    const allowed: readonly string[] = [...SPLITS, 'all'];
    if (typeof split !== 'string' || !allowed.includes(split)) issues.push({ type: 'literal_error', loc: [...loc, 'split'], msg: `Input should be ${quoteList(allowed)}`, input: echo(split) });
    else value.split = split as SplitSelector;
  }
  const difficulty = data.difficulty;
  if (difficulty !== undefined && difficulty !== null) {
    if (typeof difficulty !== 'string' || !(DIFFICULTIES as readonly string[]).includes(difficulty)) {
      issues.push({ type: 'literal_error', loc: [...loc, 'difficulty'], msg: `Input should be ${quoteList(DIFFICULTIES)}`, input: echo(difficulty) });
    } else value.difficulty = difficulty as Difficulty;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

export function wireValue(value: SqlValue): WireValue {
  return value instanceof Uint8Array ? { $blob: Buffer.from(value).toString('hex') } : value;
}

function wireTable(table: TableInfo): WireTable {
  return {
    name: table.name,
    columns: table.columns.map((c) => ({ name: c.name, type: c.type, not_null: c.notNull, primary_key: c.primaryKey })),
    foreign_keys: table.foreignKeys.map((f) => ({ column: f.column, ref_table: f.refTable, ref_column: f.refColumn })),
    row_count: table.rowCount,
  };
}

function wireObservation(observation: Observation, metadata: Record<string, unknown>): WireObservation {
  const result = observation.result;
  return {
    text: observation.text,
    question: observation.question,
    db_id: observation.dbId,
    tables: observation.tables,
    steps_left: observation.stepsLeft,
    result: result ? { columns: result.columns, rows: result.rows.map((r) => r.map(wireValue)), total_rows: result.totalRows } : null,
    table: observation.table ? wireTable(observation.table) : null,
    error: observation.error ?? null,
    metadata,
  };
}

/** ResetResponse: the first observation, reward null, done false (as OpenEnv envs report a reset). */
export function wireReset(reset: ResetResult, episodeId: string): WireStepResult {
  const { seed, questionId, difficulty, split } = reset.info;
  const metadata = { episode_id: episodeId, seed, question_id: questionId, difficulty, split, env_version: ENV_VERSION };
  return { observation: wireObservation(reset.observation, metadata), reward: null, done: false };
}

/** StepResponse: the observation with the step's reward parts, verdict and running return in its metadata. */
export function wireStep(step: StepResult, episodeId: string): WireStepResult {
  const { info } = step;
  const metadata = {
    episode_id: episodeId,
    action: clipText(formatAction(info.action), ECHO_ACTION_CHARS),
    outcome: info.outcome,
    components: info.components,
    correct: info.correct,
    terminated: info.terminated,
    truncated: info.truncated,
    similarity: info.similarity,
    best_similarity: info.bestSimilarity,
    step_index: info.stepIndex,
    episode_return: info.episodeReturn,
  };
  return { observation: wireObservation(step.observation, metadata), reward: step.reward, done: step.done };
}

/** State: OpenEnv's base State before the first reset, the episode's state after. */
export function wireState(state: EnvState | null, episodeId: string | null): WireState {
  if (!state) return { episode_id: null, step_count: 0 };
  return {
    episode_id: episodeId,
    step_count: state.stepsUsed,
    seed: state.seed,
    question_id: state.questionId,
    db_id: state.dbId,
    steps_left: state.stepsLeft,
    done: state.done,
    terminated: state.terminated,
    truncated: state.truncated,
    best_similarity: state.bestSimilarity,
    episode_return: state.episodeReturn,
  };
}
