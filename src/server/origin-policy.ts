/**
 * Who may talk to the server: the Host, Origin and token checks every HTTP request and WebSocket upgrade passes
 * before any route runs, after Jupyter's model (jupyter_server `check_host`, `check_origin`, token auth).
 *
 * - Host (DNS rebinding): a page on `evil.example` whose name later resolves to 127.0.0.1 sends `Host:
 *   evil.example`. Allowed: `localhost` and `*.localhost` (browsers map them to loopback, RFC 6761), loopback IP
 *   literals, the name or address the server was bound to, the `allowHosts` list; and when the server listens on
 *   every interface (0.0.0.0 or ::), any IP literal too (a browser that reached the server by its address cannot
 *   have been rebound). A request without Host (HTTP/1.0, never a browser) passes.
 * - Origin (cross-site pages): a request without Origin is not from a browser page (CLI, Python, TRL) and passes,
 *   unless Fetch Metadata (`Sec-Fetch-Site: cross-site`/`same-site`) says a page sent it (an `<img>` or no-cors GET
 *   carries no Origin). With an Origin, it passes when it is the page's own origin (`http(s)://<Host>`, the app the
 *   server may serve at /web) or in `allowOrigins` (`*` allows every origin). `null` (sandboxed frames, file://)
 *   passes only when listed.
 * - Token: when set, every request but `GET /health` carries it as `Authorization: Bearer <token>` (or Jupyter's
 *   `token <token>`) or `?token=<token>`; compared in constant time.
 *
 * The checks answer 403 (Host, Origin) or 401 (token) with a reason that says which flag opens the door.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

export interface AccessPolicyOptions {
  /** The address or name the server listens on (its own name is always an allowed Host). */
  bindHost: string;
  /** Origins (`scheme://host[:port]`) allowed besides the page's own; `*` allows any. */
  allowOrigins?: readonly string[];
  /** Host names allowed besides loopback ones; `*` allows any. */
  allowHosts?: readonly string[];
  /** When set, required on every request but GET /health. */
  token?: string | null;
}

export interface AccessRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export type AccessDecision =
  /** `corsOrigin`: a foreign origin that is allowed, to be echoed in Access-Control-Allow-Origin. */
  | { ok: true; corsOrigin: string | null }
  | { ok: false; status: 401 | 403; reason: string };

export type AccessPolicy = (request: AccessRequest) => AccessDecision;

/** Addresses that mean "every interface": the server is reachable from the network. */
export const WILDCARD_HOSTS: readonly string[] = ['0.0.0.0', '::', '[::]', ''];

/** The host name of a Host header (lower case, without port or IPv6 brackets), or null when malformed. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end === -1 || !/^(:\d{1,5})?$/.test(value.slice(end + 1))) return null;
    return value.slice(1, end);
  }
  const match = /^([^:]+)(:\d{1,5})?$/.exec(value);
  return match ? match[1] : null;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);
  return false;
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so timingSafeEqual leaks neither the token nor its length.
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function tokenOf(request: AccessRequest): string | null {
  const auth = request.headers.authorization;
  if (auth !== undefined) {
    const match = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(auth);
    if (match) return match[1];
  }
  return request.query.get('token');
}

const normalOrigin = (origin: string): string => origin.trim().toLowerCase().replace(/\/+$/, '');

export function createAccessPolicy(options: AccessPolicyOptions): AccessPolicy {
  const allowOrigins = new Set((options.allowOrigins ?? []).map(normalOrigin));
  const anyOrigin = allowOrigins.has('*');
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.trim().toLowerCase()));
  const anyHost = allowHosts.has('*');
  const bind = hostName(options.bindHost) ?? options.bindHost.toLowerCase();
  const wildcard = WILDCARD_HOSTS.includes(options.bindHost.trim());
  const token = options.token ?? null;

  const hostAllowed = (host: string): boolean => anyHost || isLoopback(host) || host === bind || allowHosts.has(host) || (wildcard && isIP(host) !== 0);

  return (request) => {
    const hostHeader = request.headers.host;
    if (hostHeader !== undefined) {
      const host = hostName(hostHeader);
      if (host === null || !hostAllowed(host)) {
        return { ok: false, status: 403, reason: `Host '${hostHeader.slice(0, 100)}' is not allowed (DNS rebinding guard). Start the server with --allow-host ${host ?? '<name>'} to serve it under that name.` };
      }
    }
    let corsOrigin: string | null = null;
    const originHeader = request.headers.origin;
    if (originHeader !== undefined) {
      const origin = normalOrigin(originHeader);
      const own = hostHeader !== undefined && (origin === `http://${hostHeader.trim().toLowerCase()}` || origin === `https://${hostHeader.trim().toLowerCase()}`);
      if (!own) {
        if (!anyOrigin && !allowOrigins.has(origin)) {
          return { ok: false, status: 403, reason: `Origin '${originHeader.slice(0, 100)}' is not allowed: a page on another site may not use this server. Start it with --allow-origin ${origin} to allow that page.` };
        }
        corsOrigin = originHeader.trim();
      }
    } else {
      const site = request.headers['sec-fetch-site'];
      const navigation = request.method === 'GET' && request.headers['sec-fetch-mode'] === 'navigate';
      if ((site === 'cross-site' || site === 'same-site') && !navigation) {
        return { ok: false, status: 403, reason: 'A request from another site without an allowed Origin is refused.' };
      }
    }
    if (token !== null && !(request.method === 'GET' && request.path === '/health')) {
      const given = tokenOf(request);
      if (given === null || !sameSecret(given, token)) {
        return { ok: false, status: 401, reason: 'This server needs its token: send "Authorization: Bearer <token>" or add ?token=<token> to the URL.' };
      }
    }
    return { ok: true, corsOrigin };
  };
}
