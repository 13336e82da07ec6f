/**
 * Importing a run file into this browser (from a picked or dropped file, or from a URL): size checked before
 * reading, parsed by the one reader (src/eval/run-file.ts) with progress, the dataset checked against the ones this
 * page can load, and only then saved in the run store, under the file's own run id so that a Compare link naming it
 * opens the same run in every browser that imported the file. A refusal throws `RunFileError` and saves nothing.
 */
import { checkRunFileSize, parseRunFile, RUN_FILE_LIMITS, RunFileError, savedRunOf } from '../../eval/run-file.ts';
import { saveRun, type RunSummary } from '../../eval/run-store.ts';

export interface ImportedRun {
  summary: RunSummary;
  warnings: string[];
}

export interface ImportOptions {
  /** Whether this page can load the dataset (`loadDataset` resolves to a summary). */
  knowsDataset: (name: string) => Promise<boolean>;
  onProgress?: (done: number, total: number) => void;
}

/** Lets the page paint the progress bar between chunks of episodes. */
const nextFrame = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export async function importRunText(text: string, options: ImportOptions): Promise<ImportedRun> {
  const { file, warnings } = await parseRunFile(text, { onProgress: options.onProgress }, nextFrame);
  if (!(await options.knowsDataset(file.header.dataset)))
    throw new RunFileError(`This run is on dataset '${file.header.dataset}', which this page cannot load: import that dataset in the Data view first.`);
  const saved = savedRunOf(file);
  await saveRun(saved);
  return { summary: saved.summary, warnings };
}

export async function importRunFile(picked: File, options: ImportOptions): Promise<ImportedRun> {
  checkRunFileSize(picked.size);
  return importRunText(await picked.text(), options);
}

/** Reads a response body up to the run file limit, refusing it as soon as it passes (a server may lie or omit its size). */
async function boundedText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > 0) checkRunFileSize(declared);
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > RUN_FILE_LIMITS.fileBytes) {
      await reader.cancel();
      checkRunFileSize(bytes);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

export async function importRunUrl(url: string, options: ImportOptions): Promise<ImportedRun> {
  let parsed: URL;
  try {
    parsed = new URL(url, location.href);
  } catch {
    throw new RunFileError(`'${url.slice(0, 200)}' is not a URL.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new RunFileError(`Run files are read over http or https, not ${parsed.protocol}`);
  let response: Response;
  try {
    response = await fetch(parsed, { credentials: 'omit' });
  } catch (e) {
    throw new RunFileError(`The run file could not be fetched from ${parsed.href} (${e instanceof Error ? e.message : String(e)}); the server must allow this page to read it (CORS).`);
  }
  if (!response.ok) throw new RunFileError(`${parsed.href} answered ${response.status} ${response.statusText}.`);
  return importRunText(await boundedText(response), options);
}

/** A URL a Compare link may carry instead of a run id. */
export function isRunUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}
