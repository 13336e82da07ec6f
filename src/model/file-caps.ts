/**
 * Size caps on the small files of a checkpoint or adapter, checked before a byte is read or allocated: from the
 * folder's stat (Node), the picked File's size (page), or the Content-Length and then the running count of a
 * download (hub.ts). A file over its cap is a FileTooLargeError naming the file, its size and the cap.
 *
 * The caps are far above what real checkpoints ship (Qwen3: tokenizer.json 11 MB, tokenizer_config.json 10 KB,
 * config.json 1 KB, chat templates 4–10 KB) and far below what would strain a page: the probe's 300 MB
 * chat_template.jinja was read whole. Weight files are bounded elsewhere (model-budget.ts, safetensors headers at
 * 100 MB by safetensors.ts, adapters by MAX_ADAPTER_BYTES).
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/** Bytes each small file may have. */
export const MAX_FILE_BYTES = {
  'config.json': 1 * MIB,
  'generation_config.json': 1 * MIB,
  'tokenizer.json': 64 * MIB,
  'tokenizer_config.json': 16 * MIB,
  'chat_template.jinja': 1 * MIB,
  'model.safetensors.index.json': 16 * MIB,
  'adapter_config.json': 1 * MIB,
} as const;

export type CappedFile = keyof typeof MAX_FILE_BYTES;

export function isCappedFile(name: string): name is CappedFile {
  return Object.hasOwn(MAX_FILE_BYTES, name);
}

/** The cap of `path` by its last segment (a shard index or config in a subfolder too), or null when uncapped here. */
export function fileCap(path: string): number | null {
  const name = path.split('/').pop() ?? path;
  return isCappedFile(name) ? MAX_FILE_BYTES[name] : null;
}

export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(
    readonly file: string,
    readonly bytes: number,
    readonly cap: number,
  ) {
    super(`${file} has at least ${bytes} bytes; at most ${cap} are read for this file (real checkpoints ship far smaller ones). Is it the right file?`);
  }
}

/** Throws FileTooLargeError when `bytes` exceeds the cap of `file` (a name with a cap) or `cap` when given. */
export function checkFileSize(file: string, bytes: number, cap: number | null = fileCap(file)): void {
  if (cap !== null && bytes > cap) throw new FileTooLargeError(file, bytes, cap);
}
