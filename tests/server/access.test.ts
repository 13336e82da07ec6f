/**
 * The pure parts of the server's defences, table-driven from the rules they implement: request targets
 * (RFC 9112 §3.2), the Host/Origin/token policy (Jupyter's model, RFC 6761 for *.localhost), the connection limit
 * under the open-files limit, the `serve` warning for a network-wide bind, and `run`'s clipped echo.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { echoedStep } from '../../src/cli/run-command.ts';
import { exposureWarning } from '../../src/cli/serve-command.ts';
import type { StepResult } from '../../src/env/types.ts';
import { VALUE_LIMITS } from '../../src/sql/limits.ts';
import { connectionLimit, openFilesLimit, RESERVED_FILES } from '../../src/server/connection-limit.ts';
import { createAccessPolicy, hostName, type AccessPolicyOptions } from '../../src/server/origin-policy.ts';
import { parseRequestTarget } from '../../src/server/request-target.ts';

describe('parseRequestTarget', () => {
  it.each([
    ['/health', '/health', ''],
    ['//', '//', ''],
    ['///', '///', ''],
    ['/ws?token=abc&x=1', '/ws', 'token=abc&x=1'],
    ['/a#frag?no', '/a', ''],
    ['/a?q=1#frag', '/a', 'q=1'],
    ['http://127.0.0.1:8000/state?token=t', '/state', 'token=t'],
  ])('%s → path %s, query %s', (target, path, query) => {
    const parsed = parseRequestTarget(target);
    expect(parsed?.path).toBe(path);
    expect(parsed?.query.toString()).toBe(query);
  });

  it.each(['http://[', 'http://', '*', 'example.com:443', '', 'ftp://x/y', `/${'a'.repeat(9_000)}`])('refuses %j', (target) => {
    expect(parseRequestTarget(target)).toBeNull();
  });
});

describe('hostName', () => {
  it.each([
    ['127.0.0.1:8000', '127.0.0.1'],
    ['LOCALHOST', 'localhost'],
    ['[::1]:8000', '::1'],
    ['[::1]', '::1'],
    ['evil.example:80', 'evil.example'],
  ])('%s → %s', (header, host) => {
    expect(hostName(header)).toBe(host);
  });
  it.each(['[::1', '[::1]x', 'a:b:c', 'host:port', ''])('malformed %j → null', (header) => {
    expect(hostName(header)).toBeNull();
  });
});

describe('createAccessPolicy', () => {
  const decide = (options: Partial<AccessPolicyOptions>, headers: Record<string, string>, method = 'GET', path = '/state', query = ''): number => {
    const decision = createAccessPolicy({ bindHost: '127.0.0.1', ...options })({ method, path, query: new URLSearchParams(query), headers });
    return decision.ok ? 200 : decision.status;
  };

  it.each([
    ['127.0.0.1:8000', 200],
    ['127.1.2.3', 200],
    ['localhost:8000', 200],
    ['app.localhost:8000', 200],
    ['[::1]:8000', 200],
    ['evil.example', 403],
    ['127.0.0.1.evil.example', 403],
    ['localhost.evil.example', 403],
    ['192.168.1.5:8000', 403],
    ['[::1', 403],
  ])('Host %s on a loopback server → %i', (host, status) => {
    expect(decide({}, { host })).toBe(status);
  });

  it('with a wildcard bind, any IP literal passes but names still need --allow-host', () => {
    expect(decide({ bindHost: '0.0.0.0' }, { host: '192.168.1.5:8000' })).toBe(200);
    expect(decide({ bindHost: '0.0.0.0' }, { host: 'box.lan:8000' })).toBe(403);
    expect(decide({ bindHost: '0.0.0.0', allowHosts: ['box.lan'] }, { host: 'box.lan:8000' })).toBe(200);
    expect(decide({ bindHost: 'box.lan' }, { host: 'box.lan:8000' })).toBe(200);
    expect(decide({ allowHosts: ['*'] }, { host: 'anything.example' })).toBe(200);
  });

  it.each([
    [{}, { host: '127.0.0.1:8000', origin: 'http://127.0.0.1:8000' }, 200],
    [{}, { host: '127.0.0.1:8000', origin: 'http://127.0.0.1:8001' }, 403],
    [{}, { host: '127.0.0.1:8000', origin: 'http://localhost:8000' }, 403],
    [{}, { host: '127.0.0.1:8000', origin: 'null' }, 403],
    [{ allowOrigins: ['null'] }, { host: '127.0.0.1:8000', origin: 'null' }, 200],
    [{ allowOrigins: ['http://localhost:5173/'] }, { host: '127.0.0.1:8000', origin: 'http://LOCALHOST:5173' }, 200],
    [{ allowOrigins: ['*'] }, { host: '127.0.0.1:8000', origin: 'https://any.example' }, 200],
    [{}, { host: '127.0.0.1:8000' }, 200],
    [{}, { host: '127.0.0.1:8000', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, 403],
    [{}, { host: '127.0.0.1:8000', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' }, 403],
    [{}, { host: '127.0.0.1:8000', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, 200],
    [{}, { host: '127.0.0.1:8000', 'sec-fetch-site': 'same-origin' }, 200],
  ])('%j %j → %i', (options, headers, status) => {
    expect(decide(options, headers)).toBe(status);
  });

  it('echoes an allowed foreign origin for CORS, never the page’s own', () => {
    const policy = createAccessPolicy({ bindHost: '127.0.0.1', allowOrigins: ['https://app.example'] });
    const request = (origin: string) => policy({ method: 'POST', path: '/reset', query: new URLSearchParams(), headers: { host: '127.0.0.1:8000', origin } });
    expect(request('https://app.example')).toEqual({ ok: true, corsOrigin: 'https://app.example' });
    expect(request('http://127.0.0.1:8000')).toEqual({ ok: true, corsOrigin: null });
  });

  it.each([
    [{}, '/state', '', 401],
    [{ authorization: 'Bearer s3cret-token' }, '/state', '', 200],
    [{ authorization: 'token s3cret-token' }, '/state', '', 200],
    [{ authorization: 'Bearer s3cret-token-longer' }, '/state', '', 401],
    [{ authorization: 'Basic s3cret-token' }, '/state', '', 401],
    [{}, '/state', 'token=s3cret-token', 200],
    [{}, '/state', 'token=s3cret', 401],
    [{}, '/health', '', 200],
  ])('token: headers %j on %s?%s → %i', (headers, path, query, status) => {
    expect(decide({ token: 's3cret-token' }, { host: '127.0.0.1', ...headers }, 'GET', path, query)).toBe(status);
  });

  it('checks the Host before the token: a rebound page learns nothing about the token', () => {
    expect(decide({ token: 's3cret-token' }, { host: 'evil.example' })).toBe(403);
  });
});

describe('connection limit', () => {
  it.each([
    [1_024, 20_000, 1_024],
    [1_024, 1_024, 1_024 - RESERVED_FILES],
    [1_024, 100, 50],
    [10, 1_024, 10],
    [1_024, null, 1_024],
    [1_024, 1, 1],
  ])('configured %i with %s open files → %i', (configured, files, limit) => {
    expect(connectionLimit(configured, files)).toBe(limit);
  });

  it('reads the same open-files limit as `ulimit -n`', () => {
    const shell = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
    expect(String(openFilesLimit() ?? 'unlimited')).toBe(shell);
  });
});

describe('sqlenv serve and run, low items', () => {
  it('warns when serving on every interface, naming the token', () => {
    expect(exposureWarning('127.0.0.1', false)).toBeNull();
    expect(exposureWarning('::1', false)).toBeNull();
    for (const host of ['0.0.0.0', '::']) {
      expect(exposureWarning(host, false)).toMatch(/reachable from the network.*--token/);
      expect(exposureWarning(host, true)).toMatch(/only clients with the token/);
    }
  });

  it('clips the action that `run` echoes', () => {
    const sql = `SELECT '${'x'.repeat(10_000_000)}'`;
    const step = { observation: { text: '' }, reward: 0, done: false, info: { action: { type: 'QUERY', sql } } } as unknown as StepResult;
    const echoed = echoedStep(step).info.action as { type: string; sql: string };
    expect(echoed.type).toBe('QUERY');
    expect(echoed.sql.length).toBe(VALUE_LIMITS.transcriptActionChars);
    expect(sql.startsWith(echoed.sql.slice(0, -1))).toBe(true);
    expect(step.info.action).toEqual({ type: 'QUERY', sql });
  });
});
