/**
 * The GPU kit's size rule: the folder travels with the working tree to the GPU machine, which takes 64 MiB in all
 * (/work/.library/device/README.md), so the build refuses a kit over the limit, naming the largest files. Pure
 * functions over a file listing, so the rule is tested without building anything (tests/scripts/gpu-kit.test.ts).
 */

export const DEFAULT_LIMIT_BYTES = 64 * 2 ** 20;

export interface KitFile {
  /** Path inside the kit folder. */
  path: string;
  bytes: number;
}

export class KitBuildError extends Error {
  override name = 'KitBuildError';
}

export class KitTooLargeError extends KitBuildError {
  override name = 'KitTooLargeError';
  constructor(
    readonly totalBytes: number,
    readonly limitBytes: number,
    largest: readonly KitFile[],
  ) {
    super(
      `the kit is ${mib(totalBytes)}, over the ${mib(limitBytes)} a GPU machine is sent; largest: ${largest.map((f) => `${f.path} ${mib(f.bytes)}`).join(', ')}. ` +
        'Use a higher --xz-preset, or leave out what the run does not need.',
    );
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export function kitBytes(files: readonly KitFile[]): number {
  return files.reduce((sum, f) => sum + f.bytes, 0);
}

/** Throws KitTooLargeError when the files add up to more than `limitBytes`; returns the total otherwise. */
export function checkKitSize(files: readonly KitFile[], limitBytes: number = DEFAULT_LIMIT_BYTES): number {
  const total = kitBytes(files);
  if (total > limitBytes) throw new KitTooLargeError(total, limitBytes, [...files].sort((a, b) => b.bytes - a.bytes).slice(0, 3));
  return total;
}

/** One line per file (largest first) and the total, in MiB. */
export function formatSizeTable(files: readonly KitFile[]): string {
  const lines = [...files].sort((a, b) => b.bytes - a.bytes).map((f) => `${mib(f.bytes).padStart(10)}  ${f.path}`);
  return [...lines, `${mib(kitBytes(files)).padStart(10)}  total`].join('\n');
}
