/**
 * OpenEnv's runtime validator (`openenv validate --url`, `validate_running_environment` in OpenEnv's
 * src/openenv/cli/_validation.py), one test per criterion, against a real server. Written from reading the validator,
 * not copied: each request is sent as the validator sends it (python-requests' headers, no Origin, `json={}` for
 * /mcp), and each check is the condition the validator applies, stated here in the project's own terms.
 *
 * The criteria: openapi_version_available, health_endpoint, metadata_endpoint, schema_endpoint, mcp_endpoint,
 * mode_endpoint_consistency. All are required; the report passes only when all six do.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/server.ts';
import { startServer } from './harness.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ maxSessions: 4 });
});
afterAll(async () => {
  await server.close();
});

/** The headers python-requests 2.x sends by default (requests.utils.default_headers), then `json=` adds its own. */
const REQUESTS_HEADERS = { 'user-agent': 'python-requests/2.34.2', 'accept-encoding': 'gzip, deflate', accept: '*/*', connection: 'keep-alive' };

/** A request as `requests.get(url)` / `requests.post(url, json=body)` makes it; the body parsed as JSON or null. */
function asRequests(method: 'GET' | 'POST', path: string, json?: unknown): Promise<{ status: number; body: unknown }> {
  const payload = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string | number> = { ...REQUESTS_HEADERS };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text) as unknown;
        } catch {
          // requests' .json() raises; the validator then treats the body as missing.
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

describe("OpenEnv's runtime validator criteria", () => {
  it('openapi_version_available: GET /openapi.json is 200 with a string info.version (profile openenv-http/1.x)', async () => {
    const { status, body } = await asRequests('GET', '/openapi.json');
    expect(status).toBe(200);
    expect(isObject(body) && isObject(body.info)).toBe(true);
    const version = (body as { info: { version: unknown } }).info.version;
    expect(typeof version).toBe('string');
    // The validator's standard profile is openenv-http/1.x only for a version that starts with "1.".
    expect(version).toMatch(/^1\./);
  });

  it('health_endpoint: GET /health is 200 with status "healthy"', async () => {
    const { status, body } = await asRequests('GET', '/health');
    expect(status).toBe(200);
    expect(isObject(body) && body.status).toBe('healthy');
  });

  it('metadata_endpoint: GET /metadata is 200 with string name and description', async () => {
    const { status, body } = await asRequests('GET', '/metadata');
    expect(status).toBe(200);
    expect(isObject(body)).toBe(true);
    expect(typeof (body as Record<string, unknown>).name).toBe('string');
    expect(typeof (body as Record<string, unknown>).description).toBe('string');
  });

  it('schema_endpoint: GET /schema is 200 with action, observation and state objects', async () => {
    const { status, body } = await asRequests('GET', '/schema');
    expect(status).toBe(200);
    for (const key of ['action', 'observation', 'state']) expect(isObject((body as Record<string, unknown>)[key]), key).toBe(true);
  });

  it('mcp_endpoint: POST /mcp with the JSON body {} is 200 with jsonrpc "2.0"', async () => {
    const { status, body } = await asRequests('POST', '/mcp', {});
    expect(status).toBe(200);
    expect(isObject(body) && body.jsonrpc).toBe('2.0');
  });

  it('mode_endpoint_consistency: the OpenAPI paths have /reset, so simulation mode, and then /step and /state too', async () => {
    const { body } = await asRequests('GET', '/openapi.json');
    const paths = (body as { paths?: unknown }).paths;
    // The validator fails this criterion when paths is missing or empty.
    expect(isObject(paths) && Object.keys(paths).length > 0).toBe(true);
    const names = Object.keys(paths as object);
    // /reset present → "simulation": /step and /state must be present too (absent all three would be "production").
    expect(names).toEqual(expect.arrayContaining(['/reset', '/step', '/state']));
  });
});
