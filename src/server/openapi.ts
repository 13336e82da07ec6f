/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the server, built from the route table the server dispatches on
 * (http-routes.ts passes its paths and methods in) and the schemas the validators check against
 * (openapi-schemas.ts, protocol.ts). A route without a description below is an error at server start, so the
 * document never omits a real route, and a description without a route is left out, so it never invents one.
 *
 * `info.version` is the version of OpenEnv's HTTP contract the routes follow, "1.0.0" as OpenEnv's own `create_app`
 * declares it (http_server.py); OpenEnv's validator reads it as the profile `openenv-http/1.x`. The environment's own
 * version (rewards, dynamics) is `GET /metadata`'s `version`, repeated here as `info.x-sqlenv-env-version`.
 *
 * The WebSocket `/ws` and the page at `/web/` are not HTTP operations OpenAPI can describe; `info.description` names
 * them. /docs renders this document as HTML (docs-page.ts).
 */
import { MCP_PATH } from './mcp-http.ts';
import { COMPONENT_SCHEMAS } from './openapi-schemas.ts';

export const OPENENV_HTTP_API_VERSION = '1.0.0';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

interface MediaBody {
  description: string;
  /** A JSON Schema, usually a $ref into components.schemas; absent for a body that is not JSON. */
  schema?: Record<string, unknown>;
  /** The media type when not application/json. */
  mediaType?: string;
}

export interface OperationDoc {
  summary: string;
  description?: string;
  requestBody?: MediaBody & { required: boolean };
  /** Status code → body. */
  responses: Record<string, MediaBody>;
}

const ref = (name: string): Record<string, unknown> => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string): MediaBody => ({ description, schema: ref('ErrorDetail') });
const invalid: MediaBody = { description: 'The body does not validate (malformed JSON included).', schema: ref('HTTPValidationError') };
const tooLarge = error('The body is over the message cap (--max-message-bytes, 1 MiB by default).');
const busy = error('Every session slot is taken (--max-sessions).');

/** What each route does; keyed by path, then method. */
export const OPERATION_DOCS: Record<string, Partial<Record<HttpMethod, OperationDoc>>> = {
  '/health': { GET: { summary: 'Health check', description: 'Needs no token, even when the server has one.', responses: { '200': { description: 'The server is up.', schema: ref('HealthResponse') } } } },
  '/metadata': { GET: { summary: 'Environment metadata', description: 'Name, description (with the dataset), version of the environment.', responses: { '200': { description: 'Metadata.', schema: ref('EnvironmentMetadata') } } } },
  '/schema': { GET: { summary: 'Action, observation and state schemas', responses: { '200': { description: 'JSON Schemas, as pydantic writes them.', schema: ref('SchemaResponse') } } } },
  '/reset': {
    POST: {
      summary: 'Start an episode (stateless)',
      description: 'Each HTTP request gets a fresh environment, closed when the request ends (as OpenEnv\'s HTTP server does): play episodes over the WebSocket /ws.',
      requestBody: { required: false, description: 'Reset parameters.', schema: ref('ResetRequest') },
      responses: { '200': { description: 'The first observation.', schema: ref('StepResponse') }, '413': tooLarge, '422': invalid, '500': error('The environment raised (e.g. no question matches the filters).'), '503': busy },
    },
  },
  '/step': {
    POST: {
      summary: 'Take one action (stateless)',
      description: 'Over HTTP there is no episode to step: a valid action is answered 500, as OpenEnv answers an environment that raises. Play over /ws.',
      requestBody: { required: true, description: 'The action.', schema: ref('StepRequest') },
      responses: { '200': { description: 'Observation, reward, done.', schema: ref('StepResponse') }, '413': tooLarge, '422': invalid, '500': error('The environment raised.'), '503': busy },
    },
  },
  '/state': { GET: { summary: 'Episode state (stateless)', description: 'A fresh environment\'s state: no episode.', responses: { '200': { description: 'State.', schema: ref('SQLState') }, '503': busy } } },
  [MCP_PATH]: {
    POST: {
      summary: 'MCP over JSON-RPC 2.0',
      description: 'The four actions as MCP tools (initialize, tools/list, tools/call), on the MCP TypeScript SDK; OpenEnv\'s MCPToolClient and plain JSON-RPC bodies too. See docs/mcp.md.',
      requestBody: { required: true, description: 'A JSON-RPC 2.0 message.', schema: ref('JsonRpcRequest') },
      responses: {
        '200': { description: 'A JSON-RPC 2.0 response; JSON-RPC errors too (OpenEnv answers them with 200).', schema: ref('JsonRpcResponse') },
        '404': { description: 'Mcp-Session-Id names no session.', schema: ref('JsonRpcResponse') },
        '406': { description: 'The Streamable HTTP transport\'s Accept check (the SDK\'s).' },
        '413': tooLarge,
        '415': { description: 'The Streamable HTTP transport\'s Content-Type check (the SDK\'s).' },
      },
    },
    GET: { summary: 'MCP server-to-client stream: not offered', description: 'The server never starts a message, so there is no event stream.', responses: { '405': { description: 'No stream is offered.', schema: ref('JsonRpcResponse') } } },
    DELETE: {
      summary: 'End an MCP session',
      description: 'Names the session in the Mcp-Session-Id header.',
      responses: { '200': { description: 'The session is closed.' }, '404': { description: 'No such session.', schema: ref('JsonRpcResponse') }, '405': { description: 'No Mcp-Session-Id header.', schema: ref('JsonRpcResponse') } },
    },
  },
  '/openapi.json': { GET: { summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1.' } } } },
  '/docs': { GET: { summary: 'This document as an HTML page', responses: { '200': { description: 'HTML.', mediaType: 'text/html' } } } },
};

/** Responses every route may give, from the access policy and the request reader. */
const COMMON_RESPONSES: Record<string, MediaBody> = {
  '400': error('The request target is not a path.'),
  '401': error('The server has a token (--token) and the request did not carry it.'),
  '403': error('A foreign Host (DNS rebinding) or Origin.'),
};

export interface OpenApiInfo {
  title: string;
  description: string;
  /** The environment's version (ENV_VERSION), the /metadata `version`. */
  envVersion: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string; 'x-sqlenv-env-version': string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
}

function content(body: MediaBody): Record<string, unknown> {
  if (body.mediaType === undefined && body.schema === undefined) return { description: body.description };
  return { description: body.description, content: { [body.mediaType ?? 'application/json']: body.schema === undefined ? {} : { schema: body.schema } } };
}

function operation(doc: OperationDoc, path: string, method: HttpMethod): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [code, body] of Object.entries({ ...doc.responses, ...COMMON_RESPONSES })) responses[code] = content(body);
  return {
    operationId: `${method.toLowerCase()}_${path.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'root'}`,
    summary: doc.summary,
    ...(doc.description !== undefined && { description: doc.description }),
    ...(doc.requestBody !== undefined && { requestBody: { required: doc.requestBody.required, ...content(doc.requestBody) } }),
    responses,
  };
}

/** The document for these routes (path → methods the server answers). Throws for a route with no description. */
export function buildOpenApiDocument(routes: Record<string, readonly string[]>, info: OpenApiInfo): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, methods] of Object.entries(routes)) {
    const item: Record<string, unknown> = {};
    for (const method of methods) {
      const doc = OPERATION_DOCS[path]?.[method as HttpMethod];
      if (!doc) throw new Error(`OpenAPI: the route ${method} ${path} has no description; add one to OPERATION_DOCS in src/server/openapi.ts.`);
      item[method.toLowerCase()] = operation(doc, path, method as HttpMethod);
    }
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: OPENENV_HTTP_API_VERSION, description: info.description, 'x-sqlenv-env-version': info.envVersion },
    paths,
    components: {
      schemas: COMPONENT_SCHEMAS,
      // Only enforced when the server was started with a token (--token or SQLENV_TOKEN); ?token= works too.
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}
