/**
 * A Spider folder on disk, as a `SpiderSource` (Node: the import script, the CLI, tests and benchmarks).
 *
 * `node:fs` is imported when a method first runs, not at the top: spider.ts reaches this module for folder paths,
 * and the page's worker bundles spider.ts too. The module name sits in a variable so the bundler leaves the import
 * alone (no browser stub, no warning); only Node ever runs it.
 */
import type { SpiderEntryKind, SpiderSource } from './spider-source.ts';

/** The hint every layout error for a folder ends with. */
export const FOLDER_LAYOUT_HINT = 'Download Spider 1.0 and point SPIDER_DIR (or --spider) at the folder that holds dev.json.';

const NODE_FS = 'node:fs/promises';

export function folderSpiderSource(dir: string): SpiderSource {
  const full = (path: string): string => (path === '' ? dir : `${dir.replace(/[\\/]+$/, '')}/${path}`);
  const fs = () => import(/* @vite-ignore */ NODE_FS) as Promise<typeof import('node:fs/promises')>;
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
    readText: async (path) => (await fs()).readFile(full(path), 'utf8'),
    readBytes: async (path) => new Uint8Array(await (await fs()).readFile(full(path))),
  };
}
