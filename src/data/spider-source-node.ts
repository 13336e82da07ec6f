/**
 * A Spider folder on disk, as a `SpiderSource` (Node: the import script, the CLI, tests and benchmarks).
 *
 * Confinement: every path is relative and '/'-separated (no '..' segment, no absolute path), and before a file is
 * read its real path (symbolic links resolved) must lie inside the folder's real path. A link to another place in
 * the folder is followed; one that leads out (`database/x/x.sqlite -> /home/me/secret.sqlite`) is refused with a
 * DatasetError, which the importer reports as an unreadable database. `kind` answers what a plain `stat` sees, so a
 * link that leads out is still reported when it is read, never silently taken for a missing file.
 *
 * `node:fs` is imported when a method first runs, not at the top: spider.ts reaches this module for folder paths,
 * and the page's worker bundles spider.ts too. The module names sit in variables so the bundler leaves the imports
 * alone (no browser stub, no warning); only Node ever runs them.
 */
import { DatasetError } from './bundle.ts';
import { printable } from './printable.ts';
import type { SpiderEntryKind, SpiderSource } from './spider-source.ts';

/** The hint every layout error for a folder ends with. */
export const FOLDER_LAYOUT_HINT = 'Download Spider 1.0 and point SPIDER_DIR (or --spider) at the folder that holds dev.json.';

const NODE_FS = 'node:fs/promises';
const NODE_PATH = 'node:path';

type Fs = typeof import('node:fs/promises');
type Path = typeof import('node:path');

/** Why `path` (relative to a Spider root) may not be used at all, or null. */
function relativePathProblem(path: string): string | null {
  if (path.includes('\0')) return 'it holds a NUL character';
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) return 'it is not a relative path';
  if (path.split('/').includes('..')) return "it climbs out with '..'";
  return null;
}

export function folderSpiderSource(dir: string): SpiderSource {
  const fs = () => import(/* @vite-ignore */ NODE_FS) as Promise<Fs>;
  const nodePath = () => import(/* @vite-ignore */ NODE_PATH) as Promise<Path>;
  const full = (path: string): string => {
    const problem = relativePathProblem(path);
    if (problem) throw new DatasetError(`'${printable(path)}' cannot be read from the Spider folder: ${problem}.`);
    return path === '' ? dir : `${dir.replace(/[\\/]+$/, '')}/${path}`;
  };
  let root: Promise<string> | null = null;

  /** The real path of `path`, after checking that it stays inside the folder's real path. */
  const confined = async (path: string): Promise<string> => {
    const target = full(path);
    const [files, paths] = await Promise.all([fs(), nodePath()]);
    root ??= files.realpath(dir);
    const [base, real] = await Promise.all([root, files.realpath(target)]);
    const inside = paths.relative(base, real);
    if (inside === '..' || inside.startsWith(`..${paths.sep}`) || paths.isAbsolute(inside)) {
      throw new DatasetError(`${printable(path)} leads outside the Spider folder (it resolves to '${printable(real)}'); only files inside '${printable(dir)}' are read.`);
    }
    return real;
  };

  return {
    location: dir,
    layoutHint: FOLDER_LAYOUT_HINT,
    kind: async (path): Promise<SpiderEntryKind | null> => {
      try {
        const info = await (await fs()).stat(full(path));
        return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : null;
      } catch {
        return null;
      }
    },
    readText: async (path) => (await fs()).readFile(await confined(path), 'utf8'),
    readBytes: async (path) => new Uint8Array(await (await fs()).readFile(await confined(path))),
  };
}
