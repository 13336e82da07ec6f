/**
 * Reading an untrusted zip one entry at a time, under expansion rules, for the page's Spider import
 * (spider-source-memory.ts). A zip bomb (976 KB that inflates to 1 GB) is refused from its central directory, before
 * anything is allocated, and an entry that lies about its size is stopped while it inflates.
 *
 * The rules (ZIP_LIMITS): a zip of at most `maxZipBytes` (the page checks a file's size before reading it); at
 * most `maxEntries` entries (counted from the end record, before the directory is read);
 * no entry over `maxEntryBytes` inflated; all entries together at most `maxTotalBytes`; no entry above
 * `ratioFloorBytes` inflating more than `maxRatio` times its compressed size (real Spider files deflate at most
 * ~28:1, DEFLATE's limit is ~1030:1); only stored and deflated entries, none encrypted. An entry inflates into a
 * buffer of exactly its declared size, through fflate's streaming `Inflate` fed `CHUNK_BYTES` at a time, so one
 * that produces more is stopped within one chunk's output of its declared size (at most ~1030 × CHUNK_BYTES).
 *
 * Layout read here (APPNOTE.TXT): the end-of-central-directory record (and its ZIP64 form), then one central header
 * per entry (name, method, sizes, local header offset), then the entry's local header to find where its data starts.
 */
import { Inflate } from 'fflate';
import { printable } from './printable.ts';

export const ZIP_LIMITS = {
  maxZipBytes: 2 * 1024 * 1024 * 1024,
  maxEntries: 20_000,
  maxEntryBytes: 512 * 1024 * 1024,
  maxTotalBytes: 4 * 1024 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
} as const;

export type ZipLimits = { readonly [K in keyof typeof ZIP_LIMITS]: number };

/** Compressed bytes given to the inflater at a time. */
const CHUNK_BYTES = 16 * 1024;

/**
 * A zip that cannot be read ('damaged'), or that breaks an expansion rule or holds what the importer does not read
 * ('refused'); the message names the entry and the rule.
 */
export class ZipError extends Error {
  constructor(
    readonly kind: 'damaged' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'ZipError';
  }
}

export interface ZipEntry {
  /** The name as stored (decoded as UTF-8). */
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  /** Inflated size, as the central directory declares it. */
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MIB = 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(bytes < MIB ? 3 : 0)} MiB`;
}

class Reader {
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private check(at: number, length: number): void {
    if (at < 0 || at + length > this.bytes.length) throw new ZipError('damaged', `the zip is cut short (a record at byte ${at} runs past its end)`);
  }
  u16(at: number): number {
    this.check(at, 2);
    return this.view.getUint16(at, true);
  }
  u32(at: number): number {
    this.check(at, 4);
    return this.view.getUint32(at, true);
  }
  u64(at: number): number {
    const value = this.u32(at) + this.u32(at + 4) * 2 ** 32;
    if (!Number.isSafeInteger(value)) throw new ZipError('damaged', `a size or offset at byte ${at} is too large`);
    return value;
  }
  slice(at: number, length: number): Uint8Array {
    this.check(at, length);
    return this.bytes.subarray(at, at + length);
  }
}

/** Where the central directory is and how many entries it declares. */
function endRecord(r: Reader, length: number): { count: number; offset: number; size: number } {
  // The end record is 22 bytes plus a comment of up to 65535 bytes, so it starts in the last 65557 bytes.
  for (let at = length - 22; at >= Math.max(0, length - 22 - 0xffff); at--) {
    if (r.u32(at) !== EOCD) continue;
    let count = r.u16(at + 10);
    let size = r.u32(at + 12);
    let offset = r.u32(at + 16);
    if ((count === 0xffff || size === 0xffffffff || offset === 0xffffffff) && at >= 20 && r.u32(at - 20) === ZIP64_LOCATOR) {
      const z = r.u64(at - 20 + 8);
      if (r.u32(z) !== ZIP64_EOCD) throw new ZipError('damaged', 'its ZIP64 end record is missing');
      count = r.u64(z + 32);
      size = r.u64(z + 40);
      offset = r.u64(z + 48);
    }
    return { count, offset, size };
  }
  throw new ZipError('damaged', 'it has no end-of-central-directory record (not a zip, or cut short)');
}

/** Sizes and offset from a ZIP64 extra field, for the fields the central header marks 0xFFFFFFFF. */
function zip64Fields(r: Reader, extraAt: number, extraLength: number, entry: ZipEntry): void {
  for (let at = extraAt; at + 4 <= extraAt + extraLength; ) {
    const id = r.u16(at);
    const length = r.u16(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      for (const key of ['size', 'compressedSize', 'localHeaderOffset'] as const) {
        if (entry[key] !== 0xffffffff) continue;
        entry[key] = r.u64(field);
        field += 8;
      }
      return;
    }
    at += 4 + length;
  }
}

/**
 * Every entry of `zip`, checked against `limits` from the sizes the central directory declares (nothing is
 * inflated). Throws a ZipError saying which entry breaks which rule.
 */
export function listZipEntries(zip: Uint8Array, limits: ZipLimits = ZIP_LIMITS): ZipEntry[] {
  if (zip.length > limits.maxZipBytes) throw new ZipError('refused', `it is ${mib(zip.length)}, more than the ${mib(limits.maxZipBytes)} allowed for a zip`);
  const r = new Reader(zip);
  const end = endRecord(r, zip.length);
  if (end.count > limits.maxEntries) throw new ZipError('refused', `it holds ${end.count} entries, more than the ${limits.maxEntries} allowed`);
  const names = new TextDecoder();
  const entries: ZipEntry[] = [];
  let total = 0;
  let at = end.offset;
  for (let i = 0; i < end.count; i++) {
    if (r.u32(at) !== CENTRAL) throw new ZipError('damaged', `its central directory is damaged (entry ${i + 1} of ${end.count})`);
    const flags = r.u16(at + 8);
    const nameLength = r.u16(at + 28);
    const extraLength = r.u16(at + 30);
    const commentLength = r.u16(at + 32);
    const entry: ZipEntry = {
      name: names.decode(r.slice(at + 46, nameLength)),
      method: r.u16(at + 10),
      compressedSize: r.u32(at + 20),
      size: r.u32(at + 24),
      localHeaderOffset: r.u32(at + 42),
    };
    zip64Fields(r, at + 46 + nameLength, extraLength, entry);
    at += 46 + nameLength + extraLength + commentLength;

    const what = `entry '${printable(entry.name)}'`;
    if (flags & 1) throw new ZipError('refused', `${what} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8) throw new ZipError('refused', `${what} uses compression method ${entry.method}; only stored and deflated entries are read`);
    if (entry.method === 0 && entry.size !== entry.compressedSize) throw new ZipError('damaged', `${what} is stored uncompressed but declares ${entry.size} bytes from ${entry.compressedSize}`);
    if (entry.size > limits.maxEntryBytes) throw new ZipError('refused', `${what} inflates to ${mib(entry.size)}, more than the ${mib(limits.maxEntryBytes)} allowed for one file`);
    if (entry.size > limits.ratioFloorBytes && entry.size > entry.compressedSize * limits.maxRatio) {
      const ratio = entry.compressedSize === 0 ? 'from nothing' : `${Math.round(entry.size / entry.compressedSize)} times its compressed size`;
      throw new ZipError('refused', `${what} inflates ${ratio} (${mib(entry.size)}), more than the ${limits.maxRatio}:1 allowed: it looks like a zip bomb`);
    }
    total += entry.size;
    if (total > limits.maxTotalBytes) throw new ZipError('refused', `its entries inflate to more than the ${mib(limits.maxTotalBytes)} allowed in all (reached at ${what})`);
    entries.push(entry);
  }
  return entries;
}

/**
 * One entry's bytes, inflated into a buffer of its declared size (already checked by listZipEntries). Throws a
 * ZipError, having allocated nothing more, when the data inflates to more or fewer bytes than declared.
 */
export function readZipEntry(zip: Uint8Array, entry: ZipEntry): Uint8Array {
  const r = new Reader(zip);
  const what = `entry '${printable(entry.name)}'`;
  const local = entry.localHeaderOffset;
  if (r.u32(local) !== LOCAL) throw new ZipError('damaged', `${what} has no local header where the directory says`);
  const data = r.slice(local + 30 + r.u16(local + 26) + r.u16(local + 28), entry.compressedSize);
  if (entry.method === 0) return data.slice();

  const out = new Uint8Array(entry.size);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > out.length) throw new ZipError('refused', `${what} inflates to more than its declared ${entry.size} bytes`);
    out.set(chunk, written);
    written += chunk.length;
  });
  try {
    for (let at = 0; at < data.length || at === 0; at += CHUNK_BYTES) {
      inflater.push(data.subarray(at, at + CHUNK_BYTES), at + CHUNK_BYTES >= data.length);
    }
  } catch (e) {
    if (e instanceof ZipError) throw e;
    throw new ZipError('damaged', `${what} could not be inflated (${(e as Error).message})`);
  }
  if (written !== entry.size) throw new ZipError('damaged', `${what} inflates to ${written} bytes, not its declared ${entry.size}`);
  return out;
}
