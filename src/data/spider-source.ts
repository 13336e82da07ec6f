/**
 * Where the Spider importer reads from: a small interface over "files at paths relative to the Spider folder", so
 * one importer (spider.ts) reads a folder on disk in Node (spider-source-node.ts), files a person dropped on the page
 * or a zip of them (spider-source-memory.ts, read under spider-zip.ts's expansion rules).
 *
 * Paths are relative to the Spider root and always use '/': `dev.json`, `database/zoo/zoo.sqlite`; '' is the root.
 * The layout check lives here because it only asks the source what is there.
 */
import { DatasetError } from './bundle.ts';
import { printable } from './printable.ts';

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

/** The longest `db_id` the importer takes (Spider's longest is 31 characters). */
export const MAX_DB_ID_CHARS = 128;

/**
 * Why `dbId` cannot name a database, or null when it can. A db_id becomes a path twice (`database/<id>/<id>.sqlite`
 * here, `db/<id>.sqlite` in a bundle), so it must be a plain name: 1–MAX_DB_ID_CHARS characters, no '/', '\\' or ':'
 * (separators and drive letters), no control character (NUL cuts a path short), and no leading '.' (so never '.' or
 * '..', and never a hidden file). `../../outside/secret` would otherwise read a file outside the Spider folder.
 */
export function dbIdProblem(dbId: string): string | null {
  if (dbId.length === 0) return 'it is empty';
  if (dbId.length > MAX_DB_ID_CHARS) return `it is longer than ${MAX_DB_ID_CHARS} characters`;
  if (/[/\\:]/.test(dbId)) return "it holds a '/', '\\' or ':'";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f-\u009f]/.test(dbId)) return 'it holds a control character';
  if (dbId.startsWith('.')) return "it starts with '.'";
  return null;
}

/** A database's file in Spider's layout; throws a DatasetError for a db_id that is not a plain name (dbIdProblem). */
export function spiderDatabaseFile(dbId: string): string {
  const problem = dbIdProblem(dbId);
  if (problem) throw new DatasetError(`db_id '${printable(dbId)}' is not a plain database name: ${problem}.`);
  return `database/${dbId}/${dbId}.sqlite`;
}

/** Fails with a DatasetError naming everything missing when the source is not in Spider's layout. */
export async function checkSpiderSource(source: SpiderSource): Promise<void> {
  if ((await source.kind('')) !== 'dir') {
    throw new DatasetError(`Spider folder '${printable(source.location)}' does not exist or is not a folder. ${source.layoutHint}`);
  }
  const missing: string[] = [];
  if ((await source.kind('database')) !== 'dir') missing.push('database/ (a folder of <db>/<db>.sqlite files)');
  if ((await source.kind('dev.json')) !== 'file') missing.push('dev.json');
  if (missing.length > 0) {
    throw new DatasetError(`'${printable(source.location)}' is not in Spider's official layout: it lacks ${missing.join(' and ')}. ${source.layoutHint}`);
  }
}
