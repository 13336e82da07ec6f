/**
 * JSON Schemas of the HTTP bodies that protocol.ts has no schema for yet (requests, responses, errors), built from the
 * same constants the validators in wire.ts and http-routes.ts check against (SPLITS, DIFFICULTIES, the action schema,
 * the 255-character id limit), so /openapi.json cannot drift from them silently; tests/server/openenv-openapi.test.ts
 * runs seeded random bodies through both the validators and these schemas and requires the same verdict.
 *
 * Shapes follow OpenEnv's pydantic models (src/openenv/core/env_server/types.py: ResetRequest, StepRequest,
 * ResetResponse/StepResponse, HealthResponse, EnvironmentMetadata, SchemaResponse) and FastAPI's HTTPValidationError.
 * Nullable fields are `anyOf [T, null]`, as OpenAPI 3.1 (JSON Schema 2020-12) writes them.
 */
import { DIFFICULTIES, SPLITS } from '../data/types.ts';
import { ACTION_SCHEMA, OBSERVATION_SCHEMA, STATE_SCHEMA } from './protocol.ts';

/** The longest id (episode_id, question_id, db_id, request_id) a request may carry, in characters. */
export const MAX_ID_CHARS = 255;

type Schema = Record<string, unknown>;

const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const id = (title: string): Schema => ({ ...nullable({ type: 'string', maxLength: MAX_ID_CHARS }), title });

export const RESET_REQUEST_SCHEMA = {
  title: 'ResetRequest',
  description: 'Every field is optional; fields `reset` does not take are ignored, as OpenEnv does. An empty body starts a seeded-at-random episode.',
  type: 'object',
  additionalProperties: true,
  properties: {
    seed: { ...nullable({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), title: 'Seed' },
    episode_id: id('Episode Id'),
    question_id: id('Question Id'),
    db_id: id('Db Id'),
    split: { ...nullable({ type: 'string', enum: [...SPLITS, 'all'] }), title: 'Split' },
    difficulty: { ...nullable({ type: 'string', enum: [...DIFFICULTIES] }), title: 'Difficulty' },
  },
} as const;

export const STEP_REQUEST_SCHEMA = {
  title: 'StepRequest',
  type: 'object',
  additionalProperties: true,
  properties: {
    action: { $ref: '#/components/schemas/SQLAction' },
    timeout_s: { ...nullable({ type: 'number', exclusiveMinimum: 0 }), title: 'Timeout S' },
    request_id: id('Request Id'),
  },
  required: ['action'],
} as const;

/** ResetResponse and StepResponse: reward and done sit beside the observation (OpenEnv's serialize_observation). */
export const STEP_RESPONSE_SCHEMA = {
  title: 'StepResponse',
  type: 'object',
  properties: {
    observation: { $ref: '#/components/schemas/SQLObservation' },
    reward: { ...nullable({ type: 'number' }), title: 'Reward' },
    done: { type: 'boolean', title: 'Done' },
  },
  required: ['observation', 'reward', 'done'],
} as const;

export const HEALTH_RESPONSE_SCHEMA = {
  title: 'HealthResponse',
  type: 'object',
  properties: { status: { type: 'string', enum: ['healthy'] } },
  required: ['status'],
} as const;

export const METADATA_SCHEMA = {
  title: 'EnvironmentMetadata',
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    readme_content: nullable({ type: 'string' }),
    version: nullable({ type: 'string' }),
    author: nullable({ type: 'string' }),
    documentation_url: nullable({ type: 'string' }),
  },
  required: ['name', 'description'],
} as const;

export const SCHEMA_RESPONSE_SCHEMA = {
  title: 'SchemaResponse',
  type: 'object',
  properties: { action: { type: 'object' }, observation: { type: 'object' }, state: { type: 'object' } },
  required: ['action', 'observation', 'state'],
} as const;

/** FastAPI's 422 body: pydantic issues (type, loc, msg, input). */
export const VALIDATION_ERROR_SCHEMA = {
  title: 'HTTPValidationError',
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        properties: { type: { type: 'string' }, loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, input: {} },
        required: ['type', 'loc', 'msg'],
      },
    },
  },
  required: ['detail'],
} as const;

/** Every other error: 400, 401, 403, 404, 405, 413, 500, 503. */
export const ERROR_SCHEMA = {
  title: 'ErrorDetail',
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
} as const;

/** A JSON-RPC 2.0 message as POST /mcp takes it (MCP: initialize, tools/list, tools/call, notifications). */
export const JSONRPC_REQUEST_SCHEMA = {
  title: 'JsonRpcRequest',
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { type: 'string' },
    params: { type: 'object' },
  },
  required: ['jsonrpc', 'method'],
} as const;

export const JSONRPC_RESPONSE_SCHEMA = {
  title: 'JsonRpcResponse',
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    result: {},
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }, required: ['code', 'message'] },
  },
  required: ['jsonrpc'],
} as const;

/** components.schemas of /openapi.json: every schema above and protocol.ts's, by the name $refs use. */
export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  SQLAction: ACTION_SCHEMA,
  SQLObservation: OBSERVATION_SCHEMA,
  SQLState: STATE_SCHEMA,
  ResetRequest: RESET_REQUEST_SCHEMA,
  StepRequest: STEP_REQUEST_SCHEMA,
  StepResponse: STEP_RESPONSE_SCHEMA,
  HealthResponse: HEALTH_RESPONSE_SCHEMA,
  EnvironmentMetadata: METADATA_SCHEMA,
  SchemaResponse: SCHEMA_RESPONSE_SCHEMA,
  HTTPValidationError: VALIDATION_ERROR_SCHEMA,
  ErrorDetail: ERROR_SCHEMA,
  JsonRpcRequest: JSONRPC_REQUEST_SCHEMA,
  JsonRpcResponse: JSONRPC_RESPONSE_SCHEMA,
};
