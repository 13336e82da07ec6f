/**
 * Files a person gives the Data view — chosen with a file input (a folder through `webkitdirectory`, or single
 * files) or dropped — as `GivenFile`s with their paths relative to what was given (`spider/dev.json`), plus a label
 * naming it for messages (the folder's or the file's name). Nothing is read here: the Files go to the worker, which
 * reads only what it needs.
 *
 * A drop's items are only valid during the drop event, so `dropEntries` must run inside the handler; reading the
 * folders it found (`readDropped`) may happen later.
 */
import type { GivenFile } from '../../data/spider-source-memory.ts';

export interface GivenSelection {
  label: string;
  files: GivenFile[];
}

function labelOf(paths: readonly string[], fallback: string): string {
  const tops = new Set(paths.map((p) => p.split('/')[0]));
  return tops.size === 1 ? [...tops][0] : fallback;
}

/** Files from an `<input type="file">` (with `webkitdirectory`, each has its path inside the chosen folder). */
export function fromFileInput(list: FileList | null): GivenSelection | null {
  const files = Array.from(list ?? [], (file) => ({ path: file.webkitRelativePath || file.name, data: file }));
  return files.length === 0 ? null : { label: labelOf(files.map((f) => f.path), 'chosen files'), files };
}

/** What was dropped: file-system entries where the browser offers them (folders included), else plain files. */
export type Dropped = { kind: 'entries'; entries: FileSystemEntry[] } | { kind: 'files'; files: File[] };

/** Call inside the drop handler. */
export function dropEntries(data: DataTransfer): Dropped {
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(data.items)) {
    const entry = item.kind === 'file' && typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
  }
  return entries.length > 0 ? { kind: 'entries', entries } : { kind: 'files', files: Array.from(data.files) };
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a folder (a reader answers in batches until an empty one). */
async function childrenOf(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, out: GivenFile[]): Promise<void> {
  if (entry.isFile) out.push({ path: entry.fullPath.replace(/^\/+/, ''), data: await fileOf(entry as FileSystemFileEntry) });
  else if (entry.isDirectory) for (const child of await childrenOf(entry as FileSystemDirectoryEntry)) await walk(child, out);
}

export async function readDropped(dropped: Dropped): Promise<GivenSelection | null> {
  let files: GivenFile[];
  if (dropped.kind === 'files') files = dropped.files.map((file) => ({ path: file.name, data: file }));
  else {
    files = [];
    for (const entry of dropped.entries) await walk(entry, files);
  }
  return files.length === 0 ? null : { label: labelOf(files.map((f) => f.path), 'dropped files'), files };
}
