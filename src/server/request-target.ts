/**
 * The request target of an HTTP request or WebSocket upgrade (`req.url`), read without ever throwing.
 *
 * `new URL(req.url, base)` throws on targets a client fully controls — `//`, `///` (read as a scheme-relative URL
 * with an empty host) and `http://[` (an absolute-form target that is not a URL) — and a throw out of a node:http
 * handler ends the process. Here the target is split by hand: origin-form (`/path?query`, RFC 9112 §3.2.1) keeps its
 * path exactly as sent (so `//` is just an unknown path, 404); absolute-form (`http://host/path`, sent to proxies) is
 * parsed inside a try; anything else (`*`, `example.com:80`, empty) is not a target this server serves: null (400).
 */

export interface RequestTarget {
  /** The path as sent, without query or fragment; always starts with '/'. */
  path: string;
  query: URLSearchParams;
}

/** Targets longer than this are refused before any parsing (node:http already caps the whole header at 16 KiB). */
const MAX_TARGET_CHARS = 8_192;

function searchParams(query: string): URLSearchParams {
  try {
    return new URLSearchParams(query);
  } catch {
    // URLSearchParams does not throw on any string today; an empty query is the safe reading if it ever does.
    return new URLSearchParams();
  }
}

/** The path and query of `target`, or null when it is not an origin-form or absolute-form http(s) target. */
export function parseRequestTarget(target: string | undefined): RequestTarget | null {
  if (target === undefined || target.length === 0 || target.length > MAX_TARGET_CHARS) return null;
  if (target.startsWith('/')) {
    const end = target.search(/[?#]/);
    if (end === -1) return { path: target, query: new URLSearchParams() };
    const query = target[end] === '?' ? target.slice(end + 1).split('#', 1)[0] : '';
    return { path: target.slice(0, end), query: searchParams(query) };
  }
  if (!/^https?:\/\//i.test(target)) return null;
  try {
    const url = new URL(target);
    return { path: url.pathname, query: url.searchParams };
  } catch {
    return null;
  }
}
