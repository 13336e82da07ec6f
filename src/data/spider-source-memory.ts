/**
 * Spider sources made of files a person gave the page: a dropped or chosen folder (a list of files with their
 * relative paths) or a zip of it. Works anywhere `Blob` exists (browsers, workers, Node 20), so tests run it in Node.
 *
 * How to think about it: both become one index, path → "read these bytes", and the Spider root is found in it. The
 * files may sit under a top folder (`spider/dev.json`, a zip of `spider_data/…`), so the root is the folder that
 * holds `dev.json` beside `database/` (the shallowest, when there are several); failing that, one that holds either.
 * Nothing is read until the importer asks for it, and a zip is inflated one file at a time, so memory holds the zip
 * and at most one database at once.
 *
 * Untrusted files: a zip is read under spider-zip.ts's expansion rules (a bomb is refused from its directory, before
 * anything is inflated); two files with one path (after normalising), or a path with a '..' segment, are refused
 * with a DatasetError naming the entry, so no file can silently replace another (the last `dev.json` used to win).
 */
import { DatasetError } from './bundle.ts';
import { printable } from './printable.ts';
import type { SpiderEntryKind, SpiderSource } from './spider-source.ts';
import { listZipEntries, readZipEntry, ZIP_LIMITS, ZipError, type ZipLimits } from './spider-zip.ts';

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

/** Refuses a file list in which two files share a path, or a path climbs out with '..'. */
function checkPaths(label: string, entries: readonly IndexEntry[]): void {
  const seen = new Set<string>();
  for (const { path } of entries) {
    if (path.split('/').includes('..')) {
      throw new DatasetError(`'${printable(label)}' holds '${printable(path)}', a path that climbs out of its folder with '..'. Nothing was imported: make the zip again from the Spider folder itself.`);
    }
    if (seen.has(path)) {
      throw new DatasetError(`'${printable(label)}' holds two files named '${printable(path)}', and only one can be read. Nothing was imported: make the zip again from the Spider folder itself, so each file is in it once.`);
    }
    seen.add(path);
  }
}

function indexedSource(label: string, entries: readonly IndexEntry[]): SpiderSource {
  const usable = entries.filter((e) => !ignored(e.path));
  if (usable.length === 0) throw new DatasetError(`'${printable(label)}' holds no files. ${PAGE_LAYOUT_HINT}`);
  checkPaths(label, usable);
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
    if (!entry) throw new DatasetError(`'${printable(location)}' has no file ${printable(path)}.`);
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

/**
 * A zip of a Spider folder (the official download, or one a person made). `label` is the zip's name. The zip's
 * directory is read and checked against `limits` here; an entry is inflated only when the importer reads it.
 */
export function zipSpiderSource(label: string, zip: Uint8Array, limits: ZipLimits = ZIP_LIMITS): SpiderSource {
  let entries: ReturnType<typeof listZipEntries>;
  try {
    entries = listZipEntries(zip, limits);
  } catch (e) {
    if (!(e instanceof ZipError)) throw e;
    if (e.kind === 'damaged') throw new DatasetError(`'${printable(label)}' is not a readable zip file (${e.message}). ${PAGE_LAYOUT_HINT}`);
    throw new DatasetError(`'${printable(label)}' cannot be imported: ${e.message}. Nothing was imported; if it is a real Spider download, unzip it and choose the folder instead.`);
  }
  // An entry that breaks a rule only when inflated (it lies about its size) fails the read: a database is then
  // skipped as unreadable with this message, a question file fails the import.
  const refuse = (e: unknown): never => {
    if (!(e instanceof ZipError)) throw e;
    throw new DatasetError(`'${printable(label)}': ${e.message}.`);
  };
  return indexedSource(
    label,
    entries.map((entry) => ({
      path: normalizePath(entry.name),
      read: async () => {
        try {
          return readZipEntry(zip, entry);
        } catch (e) {
          return refuse(e);
        }
      },
    })),
  );
}

/**
 * Whatever a person gave: one zip file becomes a zip source, anything else a folder. `label` names the folder (or
 * is ignored for a zip, which is named by its file name).
 */
export async function spiderSourceFromFiles(label: string, files: readonly GivenFile[]): Promise<SpiderSource> {
  if (files.length === 1) {
    const only = files[0];
    // Only the first bytes are read to recognise a zip, and its size is checked before the rest is read.
    const head = only.data instanceof Uint8Array ? only.data.subarray(0, 4) : await bytesOf(only.data.slice(0, 4));
    if (looksLikeZip(head)) {
      const name = normalizePath(only.path).split('/').pop() ?? label;
      const size = only.data instanceof Uint8Array ? only.data.length : only.data.size;
      if (size > ZIP_LIMITS.maxZipBytes) {
        throw new DatasetError(`'${printable(name)}' is ${Math.round(size / 2 ** 20)} MiB, more than the ${ZIP_LIMITS.maxZipBytes / 2 ** 20} MiB a zip may be here. Unzip it and choose the folder instead.`);
      }
      return zipSpiderSource(name, await bytesOf(only.data));
    }
  }
  return fileListSpiderSource(label, files);
}
