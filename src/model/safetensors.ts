/**
 * Safetensors, read and written. Layout: an 8-byte little-endian u64 header length N, N bytes of JSON
 *   { "<name>": { "dtype": "BF16"|"F16"|"F32", "shape": [...], "data_offsets": [begin, end] }, "__metadata__": {...} }
 * then the data, with offsets relative to the data's start. BF16 and F16 decode to Float32Array (exact: both are
 * subsets of f32); writing rounds f32 to nearest-even. Other dtypes (F64, integer types) are refused by name.
 *
 * The parse is split so a browser can read a header from a ranged fetch before the data arrives
 * (`headerLength`, `parseSafetensorsHeader`) and decode tensors one at a time (`decodeTensor`), or hand the raw bytes
 * of a tensor to the GPU (`tensorBytes`). Every failure is a `SafetensorsError` subclass naming the file (callers pass
 * its name) and the tensor at fault. A little-endian host is assumed (every browser engine and Node on x86/ARM).
 *
 * Files are untrusted: the header length is checked against the file size and a 100 MB cap before any JSON is
 * parsed; every entry needs a known dtype, a shape of safe non-negative integers whose byte size equals its
 * data_offsets span, and offsets inside the data section; the tensors must tile that section with no overlap or gap
 * (OverlappingTensorsError), and no name may appear twice (JSON.parse would keep only the last). Nothing is
 * allocated from a header's numbers until they are checked against the bytes actually present. `requireFinite` refuses NaN/±Infinity values by tensor name (NonFiniteTensorError).
 */
import { firstDuplicateTopLevelKey } from './json-duplicate-keys.ts';

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';
const DTYPE_BYTES: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 };
/** The reference implementation's limit; a larger header is taken as corruption. */
const MAX_HEADER_BYTES = 100 * 1024 * 1024;
/** Rank limit of one tensor (the reference has none; a Qwen checkpoint's deepest is 2). */
const MAX_RANK = 8;
/** Default name in messages when the caller does not say which file the bytes came from. */
const UNNAMED = 'safetensors file';

export interface TensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  /** Byte offsets into the data section (after the header). */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  tensors: Map<string, TensorInfo>;
  metadata: Record<string, string>;
  /** Byte offset of the data section in the file: 8 + N. */
  dataOffset: number;
  /** The file's name (for messages), e.g. `model-00001-of-00002.safetensors`. */
  file: string;
}

/** Base class: every failure names the file and, where one is at fault, the tensor. */
export class SafetensorsError extends Error {
  override name = 'SafetensorsError';
  constructor(
    message: string,
    readonly file: string | null = null,
    readonly tensor: string | null = null,
  ) {
    super(message);
  }
}
export class TruncatedFileError extends SafetensorsError {
  override name = 'TruncatedFileError';
}
export class CorruptHeaderError extends SafetensorsError {
  override name = 'CorruptHeaderError';
}
export class UnknownDtypeError extends SafetensorsError {
  override name = 'UnknownDtypeError';
  constructor(
    tensor: string,
    readonly dtype: string,
    file: string = UNNAMED,
  ) {
    super(`${file}: tensor "${tensor}" has dtype ${dtype}; only F32, F16 and BF16 are supported. Convert the checkpoint to bf16 or f16.`, file, tensor);
  }
}
export class OffsetOutOfRangeError extends SafetensorsError {
  override name = 'OffsetOutOfRangeError';
}
/** Two tensors claim the same bytes: a crafted or damaged header (the reference refuses it too). */
export class OverlappingTensorsError extends CorruptHeaderError {
  override name = 'OverlappingTensorsError';
  constructor(
    file: string,
    tensor: string,
    readonly other: string,
    detail: string,
  ) {
    super(`${file}: tensors "${other}" and "${tensor}" overlap (${detail}). The header is damaged or crafted; copy the file again from its source.`, file, tensor);
  }
}
/** A NaN or ±Infinity weight: a diverged or damaged checkpoint would give garbage logits silently. */
export class NonFiniteTensorError extends SafetensorsError {
  override name = 'NonFiniteTensorError';
  constructor(
    file: string,
    tensor: string,
    readonly index: number,
    readonly value: number,
  ) {
    super(`${file}: tensor "${tensor}" holds ${value} at element ${index}. A model with NaN or infinite weights gives meaningless output; use an undamaged copy or an earlier checkpoint.`, file, tensor);
  }
}

/** N from the first 8 bytes (enough for a ranged fetch of the header). */
export function headerLength(first8: Uint8Array, file: string = UNNAMED): number {
  if (first8.length < 8) throw new TruncatedFileError(`${file}: too short, ${first8.length} bytes; the header length alone takes 8`, file);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES)) throw new CorruptHeaderError(`${file}: header length ${n} bytes exceeds ${MAX_HEADER_BYTES}: not a safetensors file?`, file);
  return Number(n);
}

function isSafeCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/**
 * Parses and checks the header. `bytes` must hold at least 8 + N bytes. `fileSize` (default bytes.length; null when
 * unknown, as for a download whose length was not sent) bounds the header and every tensor's data; when known, the
 * tensors must tile the data section exactly — no overlap, no gap, no trailing bytes — as the reference reader demands.
 * `file` names the file in every error.
 */
export function parseSafetensorsHeader(bytes: Uint8Array, fileSize: number | null = bytes.length, file: string = UNNAMED): SafetensorsHeader {
  const n = headerLength(bytes, file);
  if (fileSize !== null && 8 + n > fileSize) throw new TruncatedFileError(`${file}: the header claims ${n} bytes, the file has ${fileSize} (truncated download?)`, file);
  if (bytes.length < 8 + n) throw new TruncatedFileError(`${file}: the header needs ${8 + n} bytes, only ${bytes.length} are here`, file);
  let json: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n));
    json = JSON.parse(text);
  } catch (e) {
    throw new CorruptHeaderError(`${file}: the header is not valid UTF-8 JSON (${(e as Error).message}); not a safetensors file, or damaged`, file);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CorruptHeaderError(`${file}: the header is not a JSON object`, file);
  // JSON.parse keeps the last of two equal keys: a tensor named twice would silently lose its first entry.
  const duplicate = firstDuplicateTopLevelKey(text);
  if (duplicate !== null) throw new CorruptHeaderError(`${file}: entry "${duplicate}" appears twice in the header (the second would hide the first); the header is damaged or crafted`, file, duplicate);
  const dataOffset = 8 + n;
  const dataSize = fileSize === null ? null : fileSize - dataOffset;
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  const corrupt = (name: string, detail: string) => new CorruptHeaderError(`${file}: entry "${name}" ${detail}`, file, name);
  for (const [name, entry] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      metadata = checkMetadata(file, entry);
      continue;
    }
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw corrupt(name, 'is not an object');
    if (typeof e.dtype !== 'string') throw corrupt(name, 'has no dtype');
    if (!Object.hasOwn(DTYPE_BYTES, e.dtype)) throw new UnknownDtypeError(name, e.dtype.slice(0, 40), file);
    const dtype = e.dtype as SafetensorsDtype;
    const shape = e.shape;
    if (!Array.isArray(shape) || shape.length > MAX_RANK || !shape.every(isSafeCount)) {
      throw corrupt(name, `has an invalid shape ${JSON.stringify(shape)?.slice(0, 80)} (at most ${MAX_RANK} non-negative integers)`);
    }
    const off = e.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every(isSafeCount)) {
      throw corrupt(name, `has invalid data_offsets ${JSON.stringify(off)?.slice(0, 80)} (two non-negative integers)`);
    }
    const [begin, end] = off as [number, number];
    // A crafted shape's byte count can pass 2^53 (or Infinity): only a safe integer can equal a real span.
    const count = shape.reduce((a, b) => a * b, 1);
    const want = count * DTYPE_BYTES[dtype];
    if (end < begin || !Number.isSafeInteger(want) || end - begin !== want) {
      throw corrupt(name, `has data_offsets [${begin}, ${end}] holding ${end - begin} bytes; shape [${shape.join(', ')}] × ${dtype} needs ${want}`);
    }
    if (dataSize !== null && end > dataSize) {
      throw new OffsetOutOfRangeError(`${file}: entry "${name}" ends at byte ${end} of the data section, which has ${dataSize} (truncated download?)`, file, name);
    }
    tensors.set(name, { name, dtype, shape, begin, end });
  }
  checkTiling(file, tensors, dataSize);
  return { tensors, metadata, dataOffset, file };
}

function checkMetadata(file: string, entry: unknown): Record<string, string> {
  if (entry === null || entry === undefined) return {};
  if (typeof entry !== 'object' || Array.isArray(entry) || !Object.values(entry).every((v) => typeof v === 'string')) {
    throw new CorruptHeaderError(`${file}: "__metadata__" must map names to strings`, file, '__metadata__');
  }
  return { ...(entry as Record<string, string>) };
}

/** Tensors sorted by offset must follow each other with no overlap or gap, and (size known) end at the data's end. */
function checkTiling(file: string, tensors: ReadonlyMap<string, TensorInfo>, dataSize: number | null): void {
  const sorted = [...tensors.values()].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  let previous: TensorInfo | null = null;
  for (const t of sorted) {
    if (t.begin < at && previous !== null) throw new OverlappingTensorsError(file, t.name, previous.name, `bytes [${previous.begin}, ${previous.end}) and [${t.begin}, ${t.end}) of the data section`);
    if (t.begin > at) throw new CorruptHeaderError(`${file}: bytes [${at}, ${t.begin}) of the data section belong to no tensor (before "${t.name}"); the header is damaged`, file, t.name);
    at = t.end;
    if (t.end > t.begin || previous === null) previous = t;
  }
  if (dataSize !== null && at !== dataSize) {
    throw new CorruptHeaderError(`${file}: the tensors cover ${at} bytes, the data section has ${dataSize}; the file has trailing bytes or a damaged header`, file);
  }
}

/** The raw little-endian bytes of one tensor (a view, no copy). */
export function tensorBytes(file: Uint8Array, header: SafetensorsHeader, name: string): Uint8Array {
  const info = header.tensors.get(name);
  if (info === undefined) throw new SafetensorsError(`${header.file}: tensor "${name}" is not in the file`, header.file, name);
  const start = header.dataOffset + info.begin;
  const end = header.dataOffset + info.end;
  if (end > file.length) throw new TruncatedFileError(`${header.file}: tensor "${name}" ends at byte ${end}, the file has ${file.length}`, header.file, name);
  return file.subarray(start, end);
}

// --- number formats -----------------------------------------------------------------------------------------------

let f16Table: Float32Array | null = null;

/** f32 value of an IEEE half (exact). */
export function f16BitsToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m === 0 ? s * Infinity : NaN;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** IEEE half bits of x (as f32), rounded to nearest-even; overflow gives ±Infinity, NaN stays NaN. */
export function f32ToF16Bits(x: number): number {
  const u = f32Bits(x);
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 255) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half: value / 2^-24 = (1.mant) · 2^(e−14) in units of the smallest subnormal.
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    return sign | roundShift(mant, shift);
  }
  // Normal: carry out of the mantissa rounds correctly into the exponent (and to Infinity at the top).
  return sign | (((e << 10) | (mant >>> 13)) + roundingCarry(mant, 13));
}

/** The f32 bit pattern of x. */
function f32Bits(x: number): number {
  F32_SCRATCH[0] = x;
  return U32_SCRATCH[0];
}
const F32_SCRATCH = new Float32Array(1);
const U32_SCRATCH = new Uint32Array(F32_SCRATCH.buffer);

/** 1 when dropping the low `shift` bits of v must round up (nearest, ties to even), else 0. */
function roundingCarry(v: number, shift: number): number {
  const half = 1 << (shift - 1);
  const rest = v & ((1 << shift) - 1);
  const kept = v >>> shift;
  return rest > half || (rest === half && (kept & 1) === 1) ? 1 : 0;
}

function roundShift(v: number, shift: number): number {
  return (v >>> shift) + roundingCarry(v, shift);
}

/** bf16 bits of x (the top half of its f32 bits), rounded to nearest-even; NaN stays NaN. */
export function f32ToBf16Bits(x: number): number {
  const u = f32Bits(x);
  if (Number.isNaN(x)) return 0x7fc0 | ((u >>> 16) & 0x8000);
  return (((u >>> 16) + roundingCarry(u, 16)) & 0xffff) >>> 0;
}

export function bf16BitsToF32(b: number): number {
  U32_SCRATCH[0] = (b & 0xffff) << 16;
  return F32_SCRATCH[0];
}

function decodeF16(src: Uint16Array): Float32Array {
  if (f16Table === null) {
    f16Table = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) f16Table[i] = f16BitsToF32(i);
  }
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = f16Table[src[i]];
  return out;
}

function decodeBf16(src: Uint16Array): Float32Array {
  const bits = new Uint32Array(src.length);
  for (let i = 0; i < src.length; i++) bits[i] = src[i] << 16;
  return new Float32Array(bits.buffer);
}

/** Copies bytes into a fresh, aligned buffer (safetensors offsets need not be aligned). */
function aligned(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy.buffer;
}

/**
 * Index of the first NaN or ±Infinity in raw little-endian values of `dtype`, or -1: one pass over the bit patterns
 * (all-ones exponent), cheaper than decoding first.
 */
function firstNonFinite(raw: ArrayBuffer, dtype: SafetensorsDtype): number {
  switch (dtype) {
    case 'F32': {
      const u = new Uint32Array(raw);
      for (let i = 0; i < u.length; i++) if ((u[i] & 0x7f800000) === 0x7f800000) return i;
      return -1;
    }
    case 'F16': {
      const u = new Uint16Array(raw);
      for (let i = 0; i < u.length; i++) if ((u[i] & 0x7c00) === 0x7c00) return i;
      return -1;
    }
    case 'BF16': {
      const u = new Uint16Array(raw);
      for (let i = 0; i < u.length; i++) if ((u[i] & 0x7f80) === 0x7f80) return i;
      return -1;
    }
    default:
      return dtype satisfies never;
  }
}

export interface DecodeOptions {
  /** Refuse a NaN or ±Infinity value with NonFiniteTensorError (naming file, tensor and element). Default false. */
  requireFinite?: boolean;
}

/** One tensor decoded to f32. */
export function decodeTensor(file: Uint8Array, header: SafetensorsHeader, name: string, options: DecodeOptions = {}): Float32Array {
  const info = header.tensors.get(name);
  if (info === undefined) throw new SafetensorsError(`${header.file}: tensor "${name}" is not in the file`, header.file, name);
  const raw = aligned(tensorBytes(file, header, name));
  if (options.requireFinite === true) {
    const bad = firstNonFinite(raw, info.dtype);
    if (bad >= 0) {
      const value = info.dtype === 'F32' ? new Float32Array(raw)[bad] : info.dtype === 'F16' ? f16BitsToF32(new Uint16Array(raw)[bad]) : bf16BitsToF32(new Uint16Array(raw)[bad]);
      throw new NonFiniteTensorError(header.file, name, bad, value);
    }
  }
  switch (info.dtype) {
    case 'F32':
      return new Float32Array(raw);
    case 'F16':
      return decodeF16(new Uint16Array(raw));
    case 'BF16':
      return decodeBf16(new Uint16Array(raw));
    default:
      return info.dtype satisfies never;
  }
}

export interface DecodedTensor {
  dtype: SafetensorsDtype;
  shape: number[];
  data: Float32Array;
}

/** Parses a whole file and decodes every tensor to f32. `file` names it in errors. */
export function readSafetensors(bytes: Uint8Array, file: string = UNNAMED, options: DecodeOptions = {}): { tensors: Map<string, DecodedTensor>; metadata: Record<string, string> } {
  const header = parseSafetensorsHeader(bytes, bytes.length, file);
  const tensors = new Map<string, DecodedTensor>();
  for (const info of header.tensors.values()) {
    tensors.set(info.name, { dtype: info.dtype, shape: info.shape, data: decodeTensor(bytes, header, info.name, options) });
  }
  return { tensors, metadata: header.metadata };
}

// --- writing -------------------------------------------------------------------------------------------------------

export interface TensorToWrite {
  shape: readonly number[];
  data: ArrayLike<number>;
  /** Storage dtype; default F32. */
  dtype?: SafetensorsDtype;
}

/**
 * Serialises tensors (in the map's order) to a safetensors file. The header is padded with spaces to a multiple of
 * 8 bytes, as the reference writer does, so f32 data starts aligned.
 */
export function writeSafetensors(tensors: ReadonlyMap<string, TensorToWrite>, metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, t] of tensors) {
    const dtype = t.dtype ?? 'F32';
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new SafetensorsError(`Tensor "${name}" to write: shape [${t.shape.join(', ')}] needs ${count} values, got ${t.data.length}`);
    const size = count * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape: [...t.shape], data_offsets: [offset, offset + size] };
    offset += size;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padded - json.length));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  const base = 8 + json.length; // a multiple of 8
  let at = base;
  for (const t of tensors.values()) {
    const dtype = t.dtype ?? 'F32';
    const n = t.data.length;
    // Copied through an aligned temporary: a tensor after an odd-length 2-byte one starts off 4-byte alignment.
    let bytes: Uint8Array;
    if (dtype === 'F32') {
      bytes = new Uint8Array(Float32Array.from(t.data).buffer);
    } else {
      const enc = dtype === 'F16' ? f32ToF16Bits : f32ToBf16Bits;
      const half = new Uint16Array(n);
      for (let i = 0; i < n; i++) half[i] = enc(t.data[i]);
      bytes = new Uint8Array(half.buffer);
    }
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}
