/**
 * The built page (`dist/`, `npm run build`) served at `/web/`, so an OpenEnv Space shows the whole app.
 *
 * No request path ever reaches the file system: the folder is listed once when the server starts (regular files
 * only, symbolic links and dot-files skipped, at most MAX_FILES), and a request is answered only when its decoded
 * path is a key of that listing. `..`, `%2e%2e`, backslashes, NUL bytes and absolute paths are therefore simply
 * names that are not in the list (404). A rebuild while serving is picked up for files that keep their names (each
 * answer stats the file again); new names need a restart.
 *
 * Caching: Vite's content-hashed files under `assets/` are immutable for a year; everything else (index.html, the
 * service worker, data bundles) is `no-cache` with an ETag, so a rebuilt page is seen at once. Content types come
 * from a fixed table; `nosniff` stops a browser from guessing another. GET and HEAD only.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';

/** Where the page is mounted. `/web` and `/` redirect to it. */
export const WEB_PREFIX = '/web/';
/** A listing larger than this is refused at start (the build has about 70 files). */
export const MAX_FILES = 20_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
  '.sqlite': 'application/vnd.sqlite3',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Vite's hashed output (`assets/name-<hash>.ext`) never changes under one name. */
export function isImmutable(name: string): boolean {
  return name.startsWith('assets/');
}

export interface StaticSite {
  root: string;
  /** Relative paths with `/` separators (e.g. `assets/index-abc.js`) → absolute file paths. */
  files: ReadonlyMap<string, string>;
}

export class StaticSiteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaticSiteError';
  }
}

/** Lists `root`; null when it has no index.html (the page is not built). */
export async function loadStaticSite(root: string): Promise<StaticSite | null> {
  const files = new Map<string, string>();
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, `${prefix}${entry.name}/`);
      else if (entry.isFile()) {
        if (files.size >= MAX_FILES) throw new StaticSiteError(`The page folder ${root} has more than ${MAX_FILES} files; is it really a build?`);
        files.set(`${prefix}${entry.name}`, path);
      }
    }
  };
  try {
    if (!(await stat(root)).isDirectory()) return null;
  } catch {
    return null;
  }
  await walk(root, '');
  return files.has('index.html') ? { root, files } : null;
}

function sendText(res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The listing key for the part of a path after WEB_PREFIX, or null when it cannot be one (bad escapes). */
export function siteKey(rest: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  return decoded === '' || decoded.endsWith('/') ? `${decoded}index.html` : decoded;
}

/**
 * Answers a GET or HEAD for `rest` (the path after WEB_PREFIX, as sent). `site` null: the page is not built (404
 * with the command that builds it).
 */
export function serveStatic(site: StaticSite | null, rest: string, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, JSON.stringify({ detail: 'Method Not Allowed' }), { ...headers, allow: 'GET, HEAD' });
  if (site === null) return sendText(res, 404, JSON.stringify({ detail: 'The page is not built: run `npm run build` (or start `sqlenv serve --web DIR` with a built dist/).' }), headers);
  const key = siteKey(rest);
  const file = key === null ? undefined : site.files.get(key);
  if (key === null || file === undefined) return sendText(res, 404, JSON.stringify({ detail: 'Not Found' }), headers);
  stat(file).then(
    (info) => {
      const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      const common: OutgoingHttpHeaders = {
        ...headers,
        etag,
        'cache-control': isImmutable(key) ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
      };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, common);
        res.end();
        return;
      }
      res.writeHead(200, { ...common, 'content-type': contentTypeOf(key), 'content-length': info.size });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const stream = createReadStream(file);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
    },
    // Listed at start but gone now (a rebuild renamed it).
    () => sendText(res, 404, JSON.stringify({ detail: 'Not Found' }), headers),
  );
}
