/**
 * The HTTP endpoints, on node:http (six fixed routes need no router), as OpenEnv's `HTTPEnvServer.register_routes`
 * defines them (http_server.py l.603–667 handlers, l.1071–1265 routes):
 *
 *   GET  /health    {"status": "healthy"}
 *   GET  /metadata  EnvironmentMetadata (name, description, readme_content, version, author, documentation_url)
 *   GET  /schema    {"action", "observation", "state"}: JSON Schemas
 *   POST /reset     ResetRequest → ResetResponse {observation, reward, done}
 *   POST /step      StepRequest {action, timeout_s?, request_id?} → StepResponse
 *   GET  /state     State
 *   POST|GET|DELETE /mcp   MCP (JSON-RPC 2.0; the four actions as tools), on the MCP SDK: mcp-http.ts
 *   GET  /openapi.json, /docs   this table as OpenAPI 3.1 (openapi.ts, built from ROUTES) and as an HTML page
 *   GET  /web/…     the built page (static-web.ts); `/` and `/web` redirect to `/web/`
 *
 * Stateless, as OpenEnv's: each /reset, /step and /state gets a fresh environment that is closed when the request
 * ends, so /step over HTTP has no episode to step (500, as OpenEnv gives for an environment that raises) and /state
 * is the empty State. Episodes are played over the WebSocket /ws. Status codes as FastAPI gives them: 422 with
 * `{"detail": [issues]}` for a body that does not validate (malformed JSON included), 500 `{"detail": message}` when
 * the environment raises, 404/405 for unknown paths and methods; and 413 for a body over the message cap, 503 when
 * every session slot is taken.
 *
 * Before any route: the target is read without throwing (request-target.ts; 400 when it is not a path), and the
 * access policy (origin-policy.ts) answers 403 for a foreign Host or Origin and 401 without the token. An allowed
 * foreign origin gets CORS headers and its preflight (OPTIONS) is answered. The page's GETs pass the same Host and
 * Origin checks but no token (a browser cannot add one to the page's own requests; docs/server-security.md says why
 * that is safe). Whatever still throws in a handler is logged and answered 400 by the last-resort guard: no request
 * can end the process.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { DOCS_CSP, renderDocsPage } from './docs-page.ts';
import { createMcpHttpHandler, MCP_PATH, MCP_REQUEST_HEADERS, type McpHttpHandler } from './mcp-http.ts';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.ts';
import { MAX_ID_CHARS } from './openapi-schemas.ts';
import type { AccessPolicy } from './origin-policy.ts';
import { ACTION_SCHEMA, OBSERVATION_SCHEMA, STATE_SCHEMA, type EnvironmentMetadata, type SqlActionWire, type ValidationIssue } from './protocol.ts';
import { parseRequestTarget } from './request-target.ts';
import { SessionCapacityError, type Session, type SessionManager } from './sessions.ts';
import { serveStatic, WEB_PREFIX, type StaticSite } from './static-web.ts';
import { errorMessage, isPlainObject, validateAction, validateReset, type Validated } from './wire.ts';

export interface HttpContext {
  manager: SessionManager;
  metadata: EnvironmentMetadata;
  maxBodyBytes: number;
  access: AccessPolicy;
  /** The policy for the page at /web/: `access` without the token (server.ts). Default: `access`. */
  pageAccess?: AccessPolicy;
  /** The built page; none (then /web/ answers 404 saying how to build it) by default. */
  site?: StaticSite | null;
  /** Where the last-resort guard reports a handler that threw. */
  log: (message: string) => void;
}

class HttpError extends Error {
  readonly status: number;
  readonly detail: unknown;
  constructor(status: number, detail: unknown) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = 'HttpError';
    this.status = status;
    this.detail = detail;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The request body as JSON; undefined when empty. Over `max` bytes: 413; not JSON: 422 json_invalid. */
async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new HttpError(413, `Request body over ${max} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const issue: ValidationIssue = { type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} };
    throw new HttpError(422, [{ ...issue, ctx: { error: e instanceof Error ? e.message : String(e) } }]);
  }
}

/** Runs `work` on a session that lives for this request only (OpenEnv creates and closes an env per request). */
async function withFreshSession<T>(manager: SessionManager, work: (session: Session) => Promise<T>): Promise<T> {
  let session: Session;
  try {
    session = manager.open();
  } catch (e) {
    if (e instanceof SessionCapacityError) throw new HttpError(503, e.message);
    throw e;
  }
  try {
    return await session.run(() => work(session));
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(500, errorMessage(e));
  } finally {
    await manager.close(session);
  }
}

async function reset(req: IncomingMessage, ctx: HttpContext): Promise<unknown> {
  const body = await readJson(req, ctx.maxBodyBytes);
  const params = validateReset(body, ['body']);
  if (!params.ok) throw new HttpError(422, params.issues);
  return withFreshSession(ctx.manager, (session) => session.reset(params.value));
}

/** StepRequest (the body of POST /step, `undefined` when empty): `{action, timeout_s?, request_id?}`; the action. */
export function validateStepRequest(body: unknown): Validated<SqlActionWire> {
  if (!isPlainObject(body)) return { ok: false, issues: [{ type: body === undefined ? 'missing' : 'model_attributes_type', loc: ['body'], msg: body === undefined ? 'Field required' : 'Input should be a valid dictionary or object to extract fields from' }] };
  const issues: ValidationIssue[] = [];
  if (body.action === undefined) issues.push({ type: 'missing', loc: ['body', 'action'], msg: 'Field required' });
  else if (!isPlainObject(body.action)) issues.push({ type: 'dict_type', loc: ['body', 'action'], msg: 'Input should be a valid dictionary' });
  if (body.timeout_s !== undefined && body.timeout_s !== null && !(typeof body.timeout_s === 'number' && body.timeout_s > 0)) {
    issues.push({ type: 'greater_than', loc: ['body', 'timeout_s'], msg: 'Input should be greater than 0' });
  }
  if (body.request_id !== undefined && body.request_id !== null && !(typeof body.request_id === 'string' && body.request_id.length <= MAX_ID_CHARS)) {
    issues.push({ type: 'string_type', loc: ['body', 'request_id'], msg: `Input should be a valid string of at most ${MAX_ID_CHARS} characters` });
  }
  if (issues.length > 0) return { ok: false, issues };
  return validateAction(body.action, ['body', 'action']);
}

async function step(req: IncomingMessage, ctx: HttpContext): Promise<unknown> {
  const action = validateStepRequest(await readJson(req, ctx.maxBodyBytes));
  if (!action.ok) throw new HttpError(422, action.issues);
  return withFreshSession(ctx.manager, (session) => session.step(action.value));
}

/** What a route returns when it has written the response itself (an HTML page, an MCP transport's answer). */
export const SENT: unique symbol = Symbol('response sent');

/** Answers with the JSON it resolves to (200), or writes the response itself and resolves to SENT. */
type Route = (req: IncomingMessage, ctx: RouteContext, res: ServerResponse) => Promise<unknown>;

function sendHtml(res: ServerResponse, html: string): typeof SENT {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), 'content-security-policy': DOCS_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
  res.end(html);
  return SENT;
}

/** Every /mcp method: the MCP handler writes its own answers (JSON-RPC bodies, the SDK transport's headers). */
async function mcpRoute(req: IncomingMessage, ctx: RouteContext, res: ServerResponse): Promise<typeof SENT> {
  await ctx.mcp(req, res);
  return SENT;
}

const ROUTES: Record<string, Partial<Record<string, Route>>> = {
  '/health': { GET: async () => ({ status: 'healthy' }) },
  '/metadata': { GET: async (_req, ctx) => ctx.metadata },
  '/schema': { GET: async () => ({ action: ACTION_SCHEMA, observation: OBSERVATION_SCHEMA, state: STATE_SCHEMA }) },
  '/reset': { POST: reset },
  '/step': { POST: step },
  '/state': { GET: async (_req, ctx) => withFreshSession(ctx.manager, async (session) => session.state()) },
  '/openapi.json': { GET: async (_req, ctx) => ctx.openapi },
  '/docs': { GET: async (_req, ctx, res) => sendHtml(res, ctx.docsHtml) },
  [MCP_PATH]: { POST: mcpRoute, GET: mcpRoute, DELETE: mcpRoute },
};

/** Each path the server answers and its methods: what /openapi.json describes. */
export function routeTable(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(ROUTES).map(([path, methods]) => [path, Object.keys(methods)]));
}

/** The context the routes see: the server's, with its API description built once at start. */
interface RouteContext extends HttpContext {
  openapi: OpenApiDocument;
  docsHtml: string;
  mcp: McpHttpHandler;
}

function routeContext(ctx: HttpContext): RouteContext {
  // Throws for a route without a description (openapi.ts), so an undocumented route fails at server start.
  const openapi = buildOpenApiDocument(routeTable(), {
    title: 'SQLEnv — OpenEnv environment server',
    description: `${ctx.metadata.description} The HTTP routes are OpenEnv's (stateless: one environment per request); episodes are played over the WebSocket /ws (OpenEnv's reset, step, state, close and mcp messages); MCP clients use POST /mcp. The app itself is at /web/.`,
    envVersion: ctx.metadata.version ?? 'unknown',
  });
  return { ...ctx, openapi, docsHtml: renderDocsPage(openapi), mcp: createMcpHttpHandler({ manager: ctx.manager, maxBodyBytes: ctx.maxBodyBytes }) };
}

/** `/`, `/web`, `/web/…`: the page, behind the page's access policy. */
function handlePage(req: IncomingMessage, res: ServerResponse, ctx: HttpContext, path: string, query: URLSearchParams): void {
  const method = req.method ?? 'GET';
  const decision = (ctx.pageAccess ?? ctx.access)({ method, path, query, headers: req.headers });
  if (!decision.ok) return send(res, decision.status, { detail: decision.reason }, { connection: 'close' });
  if (path === '/' || path === '/web') {
    if (method !== 'GET' && method !== 'HEAD') return send(res, 405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
    // Relative URLs in the build resolve against the folder, so the page must be loaded from `/web/`, not `/web`.
    res.writeHead(307, { location: WEB_PREFIX, 'content-length': 0 });
    res.end();
    return;
  }
  serveStatic(ctx.site ?? null, path.slice(WEB_PREFIX.length), req, res, {});
}

export function isPagePath(path: string): boolean {
  return path === '/' || path === '/web' || path.startsWith(WEB_PREFIX);
}

function handle(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): void {
  const target = parseRequestTarget(req.url);
  if (!target) return send(res, 400, { detail: 'Bad Request: the request target is not a path.' }, { connection: 'close' });
  if (isPagePath(target.path)) return handlePage(req, res, ctx, target.path, target.query);
  const method = req.method ?? 'GET';
  const decision = ctx.access({ method, path: target.path, query: target.query, headers: req.headers });
  if (!decision.ok) return send(res, decision.status, { detail: decision.reason }, { connection: 'close', ...(decision.status === 401 && { 'www-authenticate': 'Bearer' }) });
  const cors: OutgoingHttpHeaders = decision.corsOrigin === null ? {} : { 'access-control-allow-origin': decision.corsOrigin, vary: 'Origin' };
  const methods = ROUTES[target.path];
  if (!methods) return send(res, 404, { detail: 'Not Found' }, cors);
  if (method === 'OPTIONS' && decision.corsOrigin !== null) {
    res.writeHead(204, { ...cors, 'access-control-allow-methods': Object.keys(methods).join(', '), 'access-control-allow-headers': ['content-type', 'authorization', ...MCP_REQUEST_HEADERS].join(', '), 'access-control-max-age': '600' });
    res.end();
    return;
  }
  const route = methods[method];
  if (!route) return send(res, 405, { detail: 'Method Not Allowed' }, cors);
  // Routes that write their own response (SENT) carry the CORS headers too.
  for (const [name, value] of Object.entries(cors)) if (value !== undefined) res.setHeader(name, value);
  route(req, ctx, res).then(
    (body) => {
      if (body !== SENT) send(res, 200, body, cors);
    },
    (e: unknown) => {
      if (e instanceof HttpError && e.status === 413) {
        // The rest of an oversized body is read and dropped, and the connection is not reused.
        res.setHeader('connection', 'close');
        req.resume();
      }
      if (e instanceof HttpError) send(res, e.status, { detail: e.detail }, cors);
      else send(res, 500, { detail: errorMessage(e) }, cors);
    },
  ).catch((e: unknown) => lastResort(res, e, ctx));
}

/** A handler threw: log it, answer 400 if nothing was sent yet (else drop the connection), and keep serving. */
function lastResort(res: ServerResponse, e: unknown, ctx: HttpContext): void {
  ctx.log(`sqlenv serve: a request handler failed (answered 400, still serving): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  try {
    if (res.headersSent) res.destroy();
    else send(res, 400, { detail: 'Bad Request: the server could not handle this request.' }, { connection: 'close' });
  } catch {
    res.destroy();
  }
}

/** The request handler; it never throws (every failure is a JSON error response, the last resort a 400). */
export function createHttpHandler(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = routeContext(ctx);
  return (req, res) => {
    try {
      handle(req, res, routes);
    } catch (e) {
      lastResort(res, e, ctx);
    }
  };
}
