/**
 * Safetensors, read and written. Layout: an 8-byte little-endian u64 header length N, N bytes of JSON
 *   { "<name>": { "dtype": "BF16"|"F16"|"F32", "shape": [...], "data_offsets": [begin, end] }, "__metadata__": {...} }
 * then the data, with offsets relative to the data's start. BF16 and F16 decode to Float32Array (exact: both are
 * subsets of f32); writing rounds f32 to nearest-even. Other dtypes (F64, integer types) are refused by name.
 *
 * The parse is split so a browser can read a header from a ranged fetch before the data arrives
 * (`headerLength`, `parseSafetensorsHeader`) and decode tensors one at a time (`decodeTensor`), or hand the raw bytes
 * of a tensor to the GPU (`tensorBytes`). Every failure is a `SafetensorsError` subclass naming the file part at
 * fault. A little-endian host is assumed (every browser engine and Node on x86/ARM).
 */

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';
const DTYPE_BYTES: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 };
/** The reference implementation's limit; a larger header is taken as corruption. */
const MAX_HEADER_BYTES = 100 * 1024 * 1024;

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
}

export class SafetensorsError extends Error {
  override name = 'SafetensorsError';
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
    readonly tensor: string,
    readonly dtype: string,
  ) {
    super(`Tensor "${tensor}" has dtype ${dtype}; only F32, F16 and BF16 are supported. Convert the checkpoint to bf16 or f16.`);
  }
}
export class OffsetOutOfRangeError extends SafetensorsError {
  override name = 'OffsetOutOfRangeError';
}

/** N from the first 8 bytes (enough for a ranged fetch of the header). */
export function headerLength(first8: Uint8Array): number {
  if (first8.length < 8) throw new TruncatedFileError(`Safetensors file too short: ${first8.length} bytes, the header length alone takes 8`);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES)) throw new CorruptHeaderError(`Safetensors header length ${n} bytes exceeds ${MAX_HEADER_BYTES}: not a safetensors file?`);
  return Number(n);
}

/**
 * Parses the header. `bytes` must hold at least 8 + N bytes; `fileSize` (default bytes.length) is used to check that
 * every tensor's data lies inside the file.
 */
export function parseSafetensorsHeader(bytes: Uint8Array, fileSize = bytes.length): SafetensorsHeader {
  const n = headerLength(bytes);
  if (bytes.length < 8 + n) throw new TruncatedFileError(`Safetensors header needs ${8 + n} bytes, the file has ${bytes.length}`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new CorruptHeaderError(`Safetensors header is not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CorruptHeaderError('Safetensors header is not a JSON object');
  const dataOffset = 8 + n;
  const dataSize = fileSize - dataOffset;
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') {
      metadata = (entry ?? {}) as Record<string, string>;
      continue;
    }
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    if (typeof e !== 'object' || e === null) throw new CorruptHeaderError(`Safetensors entry "${name}" is not an object`);
    if (typeof e.dtype !== 'string') throw new CorruptHeaderError(`Safetensors entry "${name}" has no dtype`);
    if (!(e.dtype in DTYPE_BYTES)) throw new UnknownDtypeError(name, e.dtype);
    const dtype = e.dtype as SafetensorsDtype;
    const shape = e.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && (d as number) >= 0)) {
      throw new CorruptHeaderError(`Safetensors entry "${name}" has an invalid shape ${JSON.stringify(shape)}`);
    }
    const off = e.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((o) => Number.isInteger(o) && (o as number) >= 0)) {
      throw new CorruptHeaderError(`Safetensors entry "${name}" has invalid data_offsets ${JSON.stringify(off)}`);
    }
    const [begin, end] = off as [number, number];
    const want = (shape as number[]).reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype];
    if (end < begin || end - begin !== want) {
      throw new CorruptHeaderError(`Safetensors entry "${name}": data_offsets [${begin}, ${end}] hold ${end - begin} bytes, shape [${shape.join(', ')}] × ${dtype} needs ${want}`);
    }
    if (end > dataSize) {
      throw new OffsetOutOfRangeError(`Safetensors entry "${name}": data ends at byte ${end} of the data section, which has ${dataSize} (truncated download?)`);
    }
    tensors.set(name, { name, dtype, shape: shape as number[], begin, end });
  }
  return { tensors, metadata, dataOffset };
}

/** The raw little-endian bytes of one tensor (a view, no copy). */
export function tensorBytes(file: Uint8Array, header: SafetensorsHeader, name: string): Uint8Array {
  const info = header.tensors.get(name);
  if (info === undefined) throw new SafetensorsError(`Tensor "${name}" is not in the safetensors file`);
  const start = header.dataOffset + info.begin;
  const end = header.dataOffset + info.end;
  if (end > file.length) throw new TruncatedFileError(`Tensor "${name}" ends at byte ${end}, the file has ${file.length}`);
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

/** One tensor decoded to f32. */
export function decodeTensor(file: Uint8Array, header: SafetensorsHeader, name: string): Float32Array {
  const info = header.tensors.get(name);
  if (info === undefined) throw new SafetensorsError(`Tensor "${name}" is not in the safetensors file`);
  const raw = aligned(tensorBytes(file, header, name));
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

/** Parses a whole file and decodes every tensor to f32. */
export function readSafetensors(file: Uint8Array): { tensors: Map<string, DecodedTensor>; metadata: Record<string, string> } {
  const header = parseSafetensorsHeader(file);
  const tensors = new Map<string, DecodedTensor>();
  for (const info of header.tensors.values()) {
    tensors.set(info.name, { dtype: info.dtype, shape: info.shape, data: decodeTensor(file, header, info.name) });
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
    if (count !== t.data.length) throw new SafetensorsError(`Tensor "${name}": shape [${t.shape.join(', ')}] needs ${count} values, got ${t.data.length}`);
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
