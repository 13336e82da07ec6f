/** Node side of bundles: reading one from a folder and writing one into a folder. */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { bundleFileProblem, DatasetError, readBundle, toManifest, type BundleReader } from './bundle.ts';
import { printable } from './printable.ts';
import type { Dataset } from './types.ts';

export function folderBundleReader(dir: string): BundleReader {
  return {
    location: dir,
    readText: (path) => readFile(join(dir, path), 'utf8'),
    readBytes: async (path) => new Uint8Array(await readFile(join(dir, path))),
  };
}

export function readBundleFolder(dir: string): Promise<Dataset> {
  return readBundle(folderBundleReader(dir));
}

/**
 * Writes `index.json` in a folder of bundles: the names of the sub-folders that hold a manifest, so the page knows
 * which bundles exist without probing (and logging 404s) for each.
 */
export async function writeBundleIndex(root: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.isDirectory() && existsSync(join(root, entry.name, 'manifest.json'))) names.push(entry.name);
  }
  names.sort();
  await writeFile(join(root, 'index.json'), JSON.stringify({ bundles: names }));
  return names;
}

/**
 * Replaces `dir` with the dataset's bundle: manifest.json plus each database file at its `file` path, and refreshes
 * the bundle index of the parent folder.
 */
export async function writeBundleFolder(dir: string, dataset: Dataset): Promise<void> {
  // Checked before anything is removed: a database file outside `dir` would be written wherever it points.
  for (const db of dataset.databases) {
    const problem = bundleFileProblem(db.file);
    if (problem) throw new DatasetError(`Database '${printable(db.id)}' cannot be written into the bundle: ${problem}.`);
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'db'), { recursive: true });
  for (const db of dataset.databases) {
    await writeFile(join(dir, db.file), await dataset.loadDatabase(db.id));
  }
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(toManifest(dataset)));
  if (basename(dir) !== '') await writeBundleIndex(dirname(dir));
}
