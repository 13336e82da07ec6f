/**
 * Where the Spider importer reads from: a small interface over "files at paths relative to the Spider folder", so
 * one importer (spider.ts) reads a folder on disk in Node (spider-source-node.ts), files a person dropped on the page
 * or a zip of them (spider-source-memory.ts, spider-source-zip.ts).
 *
 * Paths are relative to the Spider root and always use '/': `dev.json`, `database/zoo/zoo.sqlite`; '' is the root.
 * The layout check lives here because it only asks the source what is there.
 */
import { DatasetError } from './bundle.ts';

export type SpiderEntryKind = 'file' | 'dir';

export interface SpiderSource {
  /** What the files are, for messages: a folder path, a zip's name, "the dropped folder 'spider'". */
  readonly location: string;
  /** How to put a layout problem right, said to whoever gave this source (a command-line user, a person on the page). */
  readonly layoutHint: string;
  /** Whether `path` is a file, a folder, or absent (null). */
  kind(path: string): Promise<SpiderEntryKind | null>;
  readText(path: string): Promise<string>;
  readBytes(path: string): Promise<Uint8Array>;
}

/** A database's file in Spider's layout. */
export function spiderDatabaseFile(dbId: string): string {
  return `database/${dbId}/${dbId}.sqlite`;
}

/** Fails with a DatasetError naming everything missing when the source is not in Spider's layout. */
export async function checkSpiderSource(source: SpiderSource): Promise<void> {
  if ((await source.kind('')) !== 'dir') {
    throw new DatasetError(`Spider folder '${source.location}' does not exist or is not a folder. ${source.layoutHint}`);
  }
  const missing: string[] = [];
  if ((await source.kind('database')) !== 'dir') missing.push('database/ (a folder of <db>/<db>.sqlite files)');
  if ((await source.kind('dev.json')) !== 'file') missing.push('dev.json');
  if (missing.length > 0) {
    throw new DatasetError(`'${source.location}' is not in Spider's official layout: it lacks ${missing.join(' and ')}. ${source.layoutHint}`);
  }
}
