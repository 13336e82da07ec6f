/** Node side of bundles: reading one from a folder and writing one into a folder. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readBundle, toManifest, type BundleReader } from './bundle.ts';
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

/** Replaces `dir` with the dataset's bundle: manifest.json plus each database file at its `file` path. */
export async function writeBundleFolder(dir: string, dataset: Dataset): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'db'), { recursive: true });
  for (const db of dataset.databases) {
    await writeFile(join(dir, db.file), await dataset.loadDatabase(db.id));
  }
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(toManifest(dataset)));
}
