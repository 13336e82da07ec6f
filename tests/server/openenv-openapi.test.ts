/**
 * /openapi.json describes the server that serves it: every documented operation is answered by the server with a
 * documented status, every route is documented, real replies validate against the documented schemas (checked with
 * the MCP SDK's Ajv validator, an implementation independent of this project), and the request schemas accept
 * exactly what the server's validators accept (seeded random bodies, seed printed). /docs renders it as HTML.
 */
import { randomInt as cryptoRandomInt } from 'node:crypto';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, pick, type Rng } from '../../src/data/rng.ts';
import { DIFFICULTIES, SPLITS } from '../../src/data/types.ts';
import { SqlEnvClient } from '../../src/server/client.ts';
import { escapeHtml, renderDocsPage } from '../../src/server/docs-page.ts';
import { routeTable, validateStepRequest } from '../../src/server/http-routes.ts';
import { buildOpenApiDocument, OPENENV_HTTP_API_VERSION, type OpenApiDocument } from '../../src/server/openapi.ts';
import { COMPONENT_SCHEMAS } from '../../src/server/openapi-schemas.ts';
import { SQL_ACTION_TYPES } from '../../src/server/protocol.ts';
import type { RunningServer } from '../../src/server/server.ts';
import { validateReset } from '../../src/server/wire.ts';
import { startServer } from './harness.ts';

const SEED = cryptoRandomInt(1_000_000);
console.log(`openenv-openapi.test.ts: random bodies from seed ${SEED}`);

let server: RunningServer;
let doc: OpenApiDocument;

beforeAll(async () => {
  server = await startServer({ maxSessions: 4 });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, unknown>;

/** The schema with every `#/components/schemas/X` reference replaced by X itself (the schemas have no cycles). */
function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = COMPONENT_SCHEMAS[name];
    if (!target) throw new Error(`dangling $ref ${ref}`);
    return inline(target);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v)]));
}

const ajv = new AjvJsonSchemaValidator();
function validator(schema: unknown): (value: unknown) => boolean {
  const check = ajv.getValidator(inline(schema) as never);
  return (value) => check(value).valid;
}

/** The JSON schema of an operation's response body for a status. */
function responseSchema(path: string, method: string, status: number): unknown {
  const op = doc.paths[path]?.[method] as { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> } | undefined;
  const schema = op?.responses[String(status)]?.content?.['application/json']?.schema;
  if (schema === undefined) throw new Error(`${method.toUpperCase()} ${path} documents no JSON body for ${status}`);
  return schema;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; type: string | null }> {
  const res = await fetch(`${server.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: body === undefined ? {} : { 'content-type': 'application/json' } });
  return { status: res.status, json: parseOrText(await res.text()), type: res.headers.get('content-type') };
}

describe('/openapi.json describes the real routes', () => {
  it('is OpenAPI 3.1 with the OpenEnv HTTP API version and the environment version beside it', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(OPENENV_HTTP_API_VERSION);
    const metadata = (await call('GET', '/metadata')).json as { version: string };
    expect(doc.info['x-sqlenv-env-version']).toBe(metadata.version);
  });

  it('documents exactly the route table, path by path and method by method', () => {
    const documented = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [p, Object.keys(item).map((m) => m.toUpperCase()).sort()]));
    const served = Object.fromEntries(Object.entries(routeTable()).map(([p, methods]) => [p, [...methods].sort()]));
    expect(documented).toEqual(served);
    expect(Object.keys(documented)).toEqual(expect.arrayContaining(['/health', '/metadata', '/schema', '/reset', '/step', '/state', '/mcp']));
  });

  it('every documented operation is answered with one of its documented statuses (never 404 or 405 unless documented)', async () => {
    const bodies: Record<string, unknown> = { '/reset': { seed: 1 }, '/step': {}, '/mcp': { jsonrpc: '2.0', id: 1, method: 'tools/list' } };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const { status } = await call(method.toUpperCase(), path, method === 'post' ? bodies[path] : undefined);
        expect(Object.keys((op as { responses: object }).responses), `${method} ${path} answered ${status}`).toContain(String(status));
      }
    }
  });

  it('a path that is not a route is neither documented nor served', async () => {
    expect(doc.paths['/render']).toBeUndefined();
    expect((await call('GET', '/render')).status).toBe(404);
  });

  it('refuses to describe a route nobody documented, so a new route cannot be left out', () => {
    expect(() => buildOpenApiDocument({ ...routeTable(), '/secret': ['GET'] }, { title: 't', description: 'd', envVersion: '1' })).toThrow(/GET \/secret has no description/);
  });
});

describe('real replies validate against the documented schemas', () => {
  it.each([
    ['GET', '/health', undefined, 200],
    ['GET', '/metadata', undefined, 200],
    ['GET', '/schema', undefined, 200],
    ['GET', '/state', undefined, 200],
    ['POST', '/reset', { seed: 3, split: 'eval' }, 200],
    ['POST', '/reset', { seed: -1 }, 422],
    ['POST', '/step', { action: { action_type: 'LOOK', argument: 'x' } }, 422],
    ['POST', '/step', { action: { action_type: 'DESCRIBE', argument: 'x' } }, 500],
    ['POST', '/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/list' }, 200],
  ] as const)('%s %s %j → %i', async (method, path, body, expected) => {
    const { status, json } = await call(method, path, body);
    expect(status).toBe(expected);
    expect(validator(responseSchema(path, method.toLowerCase(), status))(json)).toBe(true);
  });

  it('the schemas can tell a wrong reply: a reset reply without its observation, a 422 without issues', async () => {
    const reply = (await call('POST', '/reset', { seed: 3 })).json as Json;
    expect(validator(responseSchema('/reset', 'post', 200))({ ...reply, observation: undefined })).toBe(false);
    expect(validator(responseSchema('/reset', 'post', 422))({ detail: 'no' })).toBe(false);
  });

  it('every step of a WebSocket episode is a StepResponse', async () => {
    const valid = validator(COMPONENT_SCHEMAS.StepResponse);
    const client = await SqlEnvClient.connect(server.url);
    try {
      const start = await client.reset({ seed: SEED });
      expect(valid(start)).toBe(true);
      const table = start.observation.tables[0];
      for (const action of [{ action_type: 'DESCRIBE', argument: table }, { action_type: 'SAMPLE', argument: table }, { action_type: 'QUERY', argument: 'SELECT 1, NULL, x\'00ff\'' }, { action_type: 'ANSWER', argument: '1' }] as const) {
        expect(valid(await client.step(action)), action.action_type).toBe(true);
      }
      expect(validator(COMPONENT_SCHEMAS.SQLState)(await client.state())).toBe(true);
    } finally {
      await client.close();
    }
  });
});

/** A value of some JSON type, often one a field accepts, often not. */
function randomValue(rng: Rng, near: readonly unknown[]): unknown {
  const odd: unknown[] = [null, -1, 0, 1.5, 2 ** 53, 'x', '', 'a'.repeat(255), 'a'.repeat(256), true, [], {}, [1], { a: 1 }];
  return rng.next() < 0.5 ? pick(rng, near) : pick(rng, odd);
}

function randomReset(rng: Rng): unknown {
  if (rng.next() < 0.05) return pick(rng, [null, undefined, [], 'x', 3]);
  const body: Json = {};
  const fields: Array<[string, readonly unknown[]]> = [
    ['seed', [0, 7, Number.MAX_SAFE_INTEGER, 123_456]],
    ['episode_id', ['e1', 'a'.repeat(255)]],
    ['question_id', ['demo-0001']],
    ['db_id', ['library']],
    ['split', [...SPLITS, 'all']],
    ['difficulty', [...DIFFICULTIES]],
    ['unknown_field', [1, 'x']],
  ];
  for (const [name, near] of fields) if (rng.next() < 0.5) body[name] = randomValue(rng, near);
  return body;
}

function randomStep(rng: Rng): unknown {
  if (rng.next() < 0.05) return pick(rng, [undefined, null, [], 'x']);
  const body: Json = {};
  if (rng.next() < 0.9) {
    const action: Json = {};
    if (rng.next() < 0.9) action.action_type = randomValue(rng, SQL_ACTION_TYPES);
    if (rng.next() < 0.9) action.argument = randomValue(rng, ['t', 'SELECT 1', '']);
    if (rng.next() < 0.3) action.metadata = randomValue(rng, [{}, { k: 'v' }]);
    if (rng.next() < 0.1) action.extra = 1;
    body.action = rng.next() < 0.9 ? action : randomValue(rng, [action]);
  }
  if (rng.next() < 0.4) body.timeout_s = randomValue(rng, [0.5, 30]);
  if (rng.next() < 0.4) body.request_id = randomValue(rng, ['r1']);
  return body;
}

describe('the request schemas accept exactly what the server accepts', () => {
  it.each([
    ['ResetRequest', (body: unknown) => validateReset(body, ['body']).ok, randomReset],
    ['StepRequest', (body: unknown) => validateStepRequest(body).ok, randomStep],
  ] as const)('%s, on 600 seeded random bodies', (name, serverAccepts, generate) => {
    const rng = createRng(SEED + name.length);
    const schemaAccepts = validator(COMPONENT_SCHEMAS[name]);
    const counts = { accepted: 0, refused: 0 };
    for (let i = 0; i < 600; i++) {
      const body = generate(rng);
      // An absent body is no JSON document at all; the server reads it as "no parameters" for reset only.
      const schemaVerdict = body === undefined ? name === 'ResetRequest' : body === null && name === 'ResetRequest' ? true : schemaAccepts(body);
      expect(serverAccepts(body), `seed ${SEED}, body ${JSON.stringify(body)}`).toBe(schemaVerdict);
      counts[schemaVerdict ? 'accepted' : 'refused']++;
    }
    // Both verdicts occur often, so the agreement is not that of two validators that accept (or refuse) everything.
    expect(counts.accepted).toBeGreaterThan(50);
    expect(counts.refused).toBeGreaterThan(50);
  });
});

describe('/docs', () => {
  it('is a self-contained HTML page of every operation, with no script allowed', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/i);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(html).toContain(`<span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> — ${escapeHtml((op as { summary: string }).summary)}`);
      }
    }
  });

  it('escapes every text it shows', () => {
    const hostile = buildOpenApiDocument({ '/health': ['GET'] }, { title: '<script>alert(1)</script>', description: '"><img src=x onerror=alert(1)>', envVersion: "1'" });
    const html = renderDocsPage(hostile);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
