/**
 * Spider sources made of files a person gave the page: a dropped or chosen folder (a list of files with their
 * relative paths) or a zip of it. Works anywhere `Blob` exists (browsers, workers, Node 20), so tests run it in Node.
 *
 * How to think about it: both become one index, path → "read these bytes", and the Spider root is found in it. The
 * files may sit under a top folder (`spider/dev.json`, a zip of `spider_data/…`), so the root is the folder that
 * holds `dev.json` beside `database/` (the shallowest, when there are several); failing that, one that holds either.
 * Nothing is read until the importer asks for it, and a zip is inflated one file at a time, so memory holds the zip
 * and at most one database at once.
 */
import { unzipSync } from 'fflate';
import { DatasetError } from './bundle.ts';
import type { SpiderEntryKind, SpiderSource } from './spider-source.ts';

/** One file given to the page: its path relative to what was chosen (`spider/dev.json`) and its content. */
export interface GivenFile {
  path: string;
  data: Blob | Uint8Array;
}

/** What the page tells a person whose files are not in Spider's layout. */
export const PAGE_LAYOUT_HINT =
  "Choose the folder that holds dev.json and database/<db>/<db>.sqlite (Spider's official layout), or a zip of that folder. Spider 1.0 can be downloaded from its authors' site, https://yale-lily.github.io/spider.";

interface IndexEntry {
  path: string;
  read: () => Promise<Uint8Array>;
}

/** '/'-separated, no leading './' or '/'. */
export function normalizePath(path: string): string {
  return path.replaceAll('\\', '/').replace(/^(\.?\/)+/, '');
}

/** Files no import wants: macOS metadata and folder placeholders. */
function ignored(path: string): boolean {
  return path === '' || path.endsWith('/') || path.startsWith('__MACOSX/') || /(^|\/)\.DS_Store$/.test(path);
}

function depth(prefix: string): number {
  return prefix === '' ? 0 : prefix.split('/').length - 1;
}

function shallowest(prefixes: Iterable<string>): string | null {
  let best: string | null = null;
  for (const p of prefixes) if (best === null || depth(p) < depth(best) || (depth(p) === depth(best) && p < best)) best = p;
  return best;
}

/** The prefix ('' or ending in '/') of the Spider root among `paths`. */
export function findSpiderRoot(paths: readonly string[]): string {
  const devRoots = new Set<string>();
  const databaseRoots = new Set<string>();
  for (const path of paths) {
    const dev = /^(.*\/)?dev\.json$/.exec(path);
    if (dev) devRoots.add(dev[1] ?? '');
    const db = /^(.*\/)?database\/([^/]+)\/\2\.sqlite$/.exec(path);
    if (db) databaseRoots.add(db[1] ?? '');
  }
  const both = [...devRoots].filter((r) => databaseRoots.has(r));
  const found = shallowest(both) ?? shallowest(devRoots) ?? shallowest(databaseRoots);
  if (found !== null) return found;
  // Nothing of Spider's: keep one top folder as the root, so the error names the folder that was chosen.
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/') + 1) : '')));
  return tops.size === 1 ? [...tops][0] : '';
}

function indexedSource(label: string, entries: readonly IndexEntry[]): SpiderSource {
  const usable = entries.filter((e) => !ignored(e.path));
  if (usable.length === 0) throw new DatasetError(`'${label}' holds no files. ${PAGE_LAYOUT_HINT}`);
  const root = findSpiderRoot(usable.map((e) => e.path));
  const files = new Map<string, IndexEntry>();
  const dirs = new Set<string>(['']);
  for (const entry of usable) {
    if (!entry.path.startsWith(root)) continue;
    const rel = entry.path.slice(root.length);
    files.set(rel, entry);
    for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) dirs.add(rel.slice(0, i));
  }
  const trimmedRoot = root.replace(/\/$/, '');
  const location = trimmedRoot === '' || trimmedRoot === label ? label : `${label}: ${trimmedRoot}`;
  const file = (path: string): IndexEntry => {
    const entry = files.get(path);
    if (!entry) throw new DatasetError(`'${location}' has no file ${path}.`);
    return entry;
  };
  return {
    location,
    layoutHint: PAGE_LAYOUT_HINT,
    kind: async (path): Promise<SpiderEntryKind | null> => (files.has(path) ? 'file' : dirs.has(path) ? 'dir' : null),
    readText: async (path) => new TextDecoder().decode(await file(path).read()),
    readBytes: async (path) => file(path).read(),
  };
}

async function bytesOf(data: Blob | Uint8Array): Promise<Uint8Array> {
  return data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer());
}

/** A chosen or dropped folder: `label` names it in messages (usually the folder's name). */
export function fileListSpiderSource(label: string, files: readonly GivenFile[]): SpiderSource {
  return indexedSource(
    label,
    files.map((f) => ({ path: normalizePath(f.path), read: () => bytesOf(f.data) })),
  );
}

/** The first bytes of every zip file that holds anything ("PK\x03\x04"); an empty zip starts "PK\x05\x06". */
export function looksLikeZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05) && (head[3] === 0x04 || head[3] === 0x06);
}

/** A zip of a Spider folder (the official download, or one a person made). `label` is the zip's name. */
export function zipSpiderSource(label: string, zip: Uint8Array): SpiderSource {
  const names: string[] = [];
  try {
    // A filter that declines every entry lists the central directory without inflating anything.
    unzipSync(zip, {
      filter: (f) => {
        names.push(f.name);
        return false;
      },
    });
  } catch (e) {
    throw new DatasetError(`'${label}' is not a readable zip file (${(e as Error).message}). ${PAGE_LAYOUT_HINT}`);
  }
  const read = async (name: string): Promise<Uint8Array> => {
    try {
      const out = unzipSync(zip, { filter: (f) => f.name === name })[name];
      if (!out) throw new Error('entry not found');
      return out;
    } catch (e) {
      throw new DatasetError(`'${label}': ${name} could not be unpacked (${(e as Error).message}).`);
    }
  };
  return indexedSource(
    label,
    names.map((name) => ({ path: normalizePath(name), read: () => read(name) })),
  );
}

/**
 * Whatever a person gave: one zip file becomes a zip source, anything else a folder. `label` names the folder (or
 * is ignored for a zip, which is named by its file name).
 */
export async function spiderSourceFromFiles(label: string, files: readonly GivenFile[]): Promise<SpiderSource> {
  if (files.length === 1) {
    const only = files[0];
    const data = await bytesOf(only.data);
    if (looksLikeZip(data.subarray(0, 4))) return zipSpiderSource(normalizePath(only.path).split('/').pop() ?? label, data);
  }
  return fileListSpiderSource(label, files);
}
