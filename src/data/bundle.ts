/**
 * Dataset bundles: `manifest.json` + `db/<db_id>.sqlite`, read through a `BundleReader` so the same code loads a
 * bundle from disk (Node) or over HTTP (browser). A manifest's database files must be `db/<name>.sqlite` with no
 * separator in the name (bundleFileProblem), so no manifest reads or writes a file outside its bundle; its questions
 * are checked before they are graded against (src/data/manifest-check.ts).
 */
import { decodeValue, encodeValue } from './gold.ts';
import { manifestQuestionsProblem } from './manifest-check.ts';
import { printable } from './printable.ts';
import { DATASET_FORMAT_VERSION, type Dataset, type DatasetManifest, type Question } from './types.ts';

export interface BundleReader {
  /** Where the bundle lives, for error messages. */
  location: string;
  readText(path: string): Promise<string>;
  readBytes(path: string): Promise<Uint8Array>;
}

export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

/** Why a manifest's database `file` could leave its bundle, or null when it is `db/<name>.sqlite` with a plain name. */
export function bundleFileProblem(file: unknown): string | null {
  if (typeof file !== 'string') return 'it is not a text';
  // eslint-disable-next-line no-control-regex -- NUL is exactly what is refused here (it cuts a path short)
  return /^db\/[^/\\\u0000]+\.sqlite$/.test(file) ? null : `'${printable(file)}' is not db/<name>.sqlite with a plain name`;
}

export function toManifest(dataset: Omit<Dataset, 'loadDatabase'>): DatasetManifest {
  return {
    format: DATASET_FORMAT_VERSION,
    name: dataset.name,
    description: dataset.description,
    license: dataset.license,
    databases: dataset.databases,
    questions: dataset.questions.map((q) => ({ ...q, goldResult: { columns: q.goldResult.columns, rows: q.goldResult.rows.map((r) => r.map(encodeValue)) } })),
  };
}

export function fromManifest(manifest: DatasetManifest, loadDatabase: (dbId: string) => Promise<Uint8Array>): Dataset {
  const questions: Question[] = manifest.questions.map((q) => ({ ...q, goldResult: { columns: q.goldResult.columns, rows: q.goldResult.rows.map((r) => r.map(decodeValue)) } }));
  return { name: manifest.name, description: manifest.description, license: manifest.license, databases: manifest.databases, questions, loadDatabase };
}

export async function readBundle(reader: BundleReader): Promise<Dataset> {
  let manifest: DatasetManifest;
  try {
    manifest = JSON.parse(await reader.readText('manifest.json')) as DatasetManifest;
  } catch (e) {
    throw new DatasetError(`No readable dataset at ${reader.location}: ${(e as Error).message}. Run 'npm run data:demo' or 'npm run data:spider' to create it.`);
  }
  if (manifest.format !== DATASET_FORMAT_VERSION) {
    throw new DatasetError(`Dataset at ${reader.location} has format ${String(manifest.format)}, this app reads format ${DATASET_FORMAT_VERSION}: import it again.`);
  }
  if (!Array.isArray(manifest.questions) || !Array.isArray(manifest.databases)) {
    throw new DatasetError(`Dataset at ${reader.location} is malformed: manifest.json lacks 'questions' or 'databases'.`);
  }
  for (const db of manifest.databases) {
    const problem = bundleFileProblem(db.file);
    if (problem) throw new DatasetError(`Dataset at ${reader.location} is malformed: database '${printable(String(db.id))}' has a file outside the bundle (${problem}).`);
  }
  const files = new Map(manifest.databases.map((d) => [d.id, d.file]));
  const problem = manifestQuestionsProblem(manifest.questions, new Set(files.keys()));
  if (problem) throw new DatasetError(`Dataset at ${reader.location} is malformed: ${problem}. Make it again ('npm run data:spider' or 'npm run data:demo').`);
  return fromManifest(manifest, async (dbId) => {
    const file = files.get(dbId);
    if (!file) throw new DatasetError(`Dataset '${printable(manifest.name)}' has no database '${printable(dbId)}'.`);
    return reader.readBytes(file);
  });
}

/** Reads a bundle served over HTTP at `baseUrl` (ending in '/'). */
export function httpBundleReader(baseUrl: string): BundleReader {
  const get = async (path: string): Promise<Response> => {
    const response = await fetch(new URL(path, baseUrl));
    if (!response.ok) throw new DatasetError(`${path}: HTTP ${response.status}`);
    return response;
  };
  return {
    location: baseUrl,
    readText: async (path) => (await get(path)).text(),
    readBytes: async (path) => new Uint8Array(await (await get(path)).arrayBuffer()),
  };
}

/** The bundles a folder of bundles offers, from its `index.json` (see writeBundleIndex); [] when there is none. */
export async function readBundleIndex(rootUrl: string): Promise<string[]> {
  try {
    const response = await fetch(new URL('index.json', rootUrl));
    if (!response.ok) return [];
    const index = (await response.json()) as { bundles?: unknown };
    return Array.isArray(index.bundles) ? index.bundles.filter((b): b is string => typeof b === 'string') : [];
  } catch {
    return [];
  }
}
