/**
 * The wire protocol of `sqlenv serve`: OpenEnv's HTTP and WebSocket messages, field for field, so OpenEnv's Python
 * `EnvClient` (and TRL's GRPOTrainer through it) can drive SQLEnv. One types file, as the worker protocols are.
 *
 * Source: meta-pytorch/OpenEnv `src/openenv/core/env_server/types.py` (WSErrorCode l.37–46, ResetRequest l.94–107,
 * ResetResponse/StepResponse l.110–166, State l.178–197, EnvironmentMetadata l.208–222, SchemaResponse l.225–236,
 * HealthResponse l.239–245, WS messages l.248–314) and `serialization.py` (serialize_observation l.136–171: reward
 * and done sit beside the observation, not in it).
 *
 * One deliberate difference: OpenEnv's serialize_observation drops `observation.metadata`; here the observation keeps
 * it, because SQLEnv's reward components, outcome and verdict live there and a trainer needs them (OpenEnv's own
 * clients read `observation.metadata` when present, e.g. envs/textarena_env/client.py).
 *
 * Names on the wire are snake_case (Python's side); the environment's camelCase types are converted in wire.ts.
 */
import type { Difficulty, SplitSelector } from '../data/types.ts';

/** WebSocket error codes (types.py WSErrorCode). */
export const WS_ERROR_CODES = ['INVALID_JSON', 'UNKNOWN_TYPE', 'VALIDATION_ERROR', 'EXECUTION_ERROR', 'CAPACITY_REACHED', 'FACTORY_ERROR', 'SESSION_ERROR'] as const;
export type WSErrorCode = (typeof WS_ERROR_CODES)[number];

/** The original SQLEnv's action (SQLAction): one of four types and its argument. `metadata` is OpenEnv's Action base. */
export const SQL_ACTION_TYPES = ['DESCRIBE', 'SAMPLE', 'QUERY', 'ANSWER'] as const;
export type SqlActionType = (typeof SQL_ACTION_TYPES)[number];
export interface SqlActionWire {
  action_type: SqlActionType;
  /** DESCRIBE/SAMPLE: a table name; QUERY: one SELECT statement; ANSWER: the value (text or JSON list/rows). */
  argument: string;
  metadata?: Record<string, unknown>;
}

/** Reset parameters: OpenEnv's (seed, episode_id) and this environment's filters (src/env/types.ts ResetOptions). */
export interface ResetParams {
  seed?: number;
  episode_id?: string;
  question_id?: string;
  split?: SplitSelector;
  difficulty?: Difficulty;
  db_id?: string;
}

/** A pydantic-style validation error, as OpenEnv sends them (`e.errors()`): type, location, message, input. */
export interface ValidationIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
}

/** A JSON-safe SQL value: BLOBs travel as `{"$blob": "<hex>"}`, as in the CLI's JSON output. */
export type WireValue = number | string | null | { $blob: string };

export interface WireTable {
  name: string;
  columns: Array<{ name: string; type: string; not_null: boolean; primary_key: number }>;
  foreign_keys: Array<{ column: string; ref_table: string; ref_column: string | null }>;
  row_count: number;
}

export interface WireObservation {
  /** The whole observation as text: what a language model reads. */
  text: string;
  question: string;
  db_id: string;
  tables: string[];
  steps_left: number;
  /** Rows shown by a SAMPLE or QUERY step (bounded, see src/sql/limits.ts); null on other steps. */
  result: { columns: string[]; rows: WireValue[][]; total_rows: number | null } | null;
  /** Schema shown by a DESCRIBE step; null on other steps. */
  table: WireTable | null;
  /** Why the step failed, when it did. */
  error: string | null;
  /** Reset: seed, question_id, difficulty, split, episode_id, env_version. Step: also the reward parts (see wire.ts). */
  metadata: Record<string, unknown>;
}

/** ResetResponse / StepResponse, and the `data` of a WS observation message. */
export interface WireStepResult {
  observation: WireObservation;
  reward: number | null;
  done: boolean;
}

/** State: OpenEnv's episode_id and step_count, then this environment's fields once an episode has started. */
export interface WireState {
  episode_id: string | null;
  step_count: number;
  seed?: number;
  question_id?: string;
  db_id?: string;
  steps_left?: number;
  done?: boolean;
  terminated?: boolean;
  truncated?: boolean;
  best_similarity?: number;
  episode_return?: number;
}

export type WSIncoming =
  | { type: 'reset'; data?: Record<string, unknown> }
  | { type: 'step'; data: Record<string, unknown> }
  | { type: 'state' }
  | { type: 'close' };

export interface WSErrorData {
  message: string;
  code: WSErrorCode;
  errors?: ValidationIssue[];
  active_sessions?: number;
  max_sessions?: number;
}

export type WSOutgoing =
  | { type: 'observation'; data: WireStepResult }
  | { type: 'state'; data: WireState }
  | { type: 'error'; data: WSErrorData };

export interface EnvironmentMetadata {
  name: string;
  description: string;
  readme_content: string | null;
  version: string | null;
  author: string | null;
  documentation_url: string | null;
}

// JSON Schemas for GET /schema, written as pydantic's model_json_schema() writes them for the Python models.

const metadataField = { type: 'object', additionalProperties: true, title: 'Metadata' };

export const ACTION_SCHEMA = {
  title: 'SQLAction',
  description: 'One step: DESCRIBE <table>, SAMPLE <table>, QUERY <one SELECT statement> or ANSWER <value>.',
  type: 'object',
  additionalProperties: false,
  properties: {
    metadata: { ...metadataField, description: 'Additional metadata for the action' },
    action_type: { type: 'string', enum: [...SQL_ACTION_TYPES], title: 'Action Type' },
    argument: { type: 'string', title: 'Argument', description: 'A table name, a SQL statement, or the answer value (text, or a JSON list or rows).' },
  },
  required: ['action_type', 'argument'],
} as const;

const nullable = (schema: Record<string, unknown>): Record<string, unknown> => ({ anyOf: [schema, { type: 'null' }] });
const cell = { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }, { type: 'object', properties: { $blob: { type: 'string' } }, required: ['$blob'] }] };

export const OBSERVATION_SCHEMA = {
  title: 'SQLObservation',
  type: 'object',
  additionalProperties: false,
  properties: {
    done: { type: 'boolean', default: false, title: 'Done' },
    reward: { ...nullable({ type: 'number' }), default: null, title: 'Reward' },
    metadata: { ...metadataField, description: 'seed, question_id, episode_id; after a step: outcome, components, correct, episode_return, …' },
    text: { type: 'string', title: 'Text' },
    question: { type: 'string', title: 'Question' },
    db_id: { type: 'string', title: 'Db Id' },
    tables: { type: 'array', items: { type: 'string' }, title: 'Tables' },
    steps_left: { type: 'integer', minimum: 0, title: 'Steps Left' },
    result: {
      ...nullable({
        type: 'object',
        properties: { columns: { type: 'array', items: { type: 'string' } }, rows: { type: 'array', items: { type: 'array', items: cell } }, total_rows: nullable({ type: 'integer' }) },
        required: ['columns', 'rows', 'total_rows'],
      }),
      default: null,
      title: 'Result',
    },
    table: { ...nullable({ type: 'object', properties: { name: { type: 'string' }, columns: { type: 'array' }, foreign_keys: { type: 'array' }, row_count: { type: 'integer' } } }), default: null, title: 'Table' },
    error: { ...nullable({ type: 'string' }), default: null, title: 'Error' },
  },
  required: ['text', 'question', 'db_id', 'tables', 'steps_left'],
} as const;

export const STATE_SCHEMA = {
  title: 'SQLState',
  type: 'object',
  additionalProperties: true,
  properties: {
    episode_id: { ...nullable({ type: 'string' }), default: null, title: 'Episode Id' },
    step_count: { type: 'integer', minimum: 0, default: 0, title: 'Step Count' },
    seed: { type: 'integer', title: 'Seed' },
    question_id: { type: 'string', title: 'Question Id' },
    db_id: { type: 'string', title: 'Db Id' },
    steps_left: { type: 'integer', title: 'Steps Left' },
    done: { type: 'boolean', title: 'Done' },
    terminated: { type: 'boolean', title: 'Terminated' },
    truncated: { type: 'boolean', title: 'Truncated' },
    best_similarity: { type: 'number', title: 'Best Similarity' },
    episode_return: { type: 'number', title: 'Episode Return' },
  },
} as const;
