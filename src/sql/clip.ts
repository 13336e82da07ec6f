/**
 * Clipping one value as it leaves SQLite. A value over its budget becomes a marker string that keeps what a reader
 * needs (the start of the text, the full size) and a 64-bit FNV-1a hash of the WHOLE value, so two different long
 * values never share a comparison key (up to hash collisions, ~2^-64 per pair):
 *
 *   text:  `<first keep chars>… [cut: N characters, fnv1a64 <16 hex>]`   N = code points, as SQLite's length()
 *   BLOB:  `[blob: N bytes, fnv1a64 <16 hex>]`
 *
 * The hash is FNV-1a 64 over the text's UTF-8 bytes (TextEncoder's: a lone surrogate becomes U+FFFD), or over the
 * BLOB's bytes. The kept prefix never ends inside a surrogate pair. A short text cell that happens to read like a
 * marker is left as it is (it is short).
 */

/** Longest possible marker suffix: `… [cut: ` + 10 digits + ` characters, fnv1a64 ` + 16 hex + `]`. */
export const MAX_MARKER_CHARS = 56;

const TEXT_MARKER = /… \[cut: (\d+) characters, fnv1a64 ([0-9a-f]{16})\]$/;
const BLOB_MARKER = /^\[blob: (\d+) bytes, fnv1a64 ([0-9a-f]{16})\]$/;

/** What a marker says about the value it replaced. */
export type ClipMarker = { kind: 'text'; prefix: string; chars: number; hash: string } | { kind: 'blob'; bytes: number; hash: string };

/**
 * FNV-1a 64 state as four 16-bit limbs, least significant first, so every operation stays in small integers (V8
 * runs these ~2.5× faster than a hi/lo pair of 32-bit halves). Offset basis 0xcbf29ce484222325.
 */
type FnvState = [number, number, number, number];

function fnvStart(): FnvState {
  return [0x2325, 0x8422, 0x9ce4, 0xcbf2];
}

/**
 * Mixes `bytes[0, length)` into `state`. One round: h ^= byte; h *= 2^40 + 0x1b3 (mod 2^64), limb by limb: the
 * 2^40 term adds h·2^8 two limbs up; every intermediate stays below 2^26.
 */
function fnvMix(state: FnvState, bytes: Uint8Array, length: number): void {
  let [h0, h1, h2, h3] = state;
  for (let i = 0; i < length; i++) {
    h0 ^= bytes[i];
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
}

function fnvHex(state: FnvState): string {
  return [state[3], state[2], state[1], state[0]].map((limb) => limb.toString(16).padStart(4, '0')).join('');
}

/** FNV-1a 64 of `bytes`, as 16 lower-case hex digits. */
export function fnv1a64Bytes(bytes: Uint8Array): string {
  const state = fnvStart();
  fnvMix(state, bytes, bytes.length);
  return fnvHex(state);
}

const encoder = new TextEncoder();
/** Code units encoded per chunk: 3 UTF-8 bytes at most per unit, so the buffer below never overflows. */
const CHUNK_UNITS = 16_384;
const chunkBuffer = new Uint8Array(3 * CHUNK_UNITS);

/**
 * FNV-1a 64 of `text`'s UTF-8 encoding as TextEncoder gives it (a lone surrogate as U+FFFD's bytes; both sides of a
 * comparison go through here, so that is the key), and its length in code points (SQLite's length()), in one pass over
 * chunks: no copy of the whole text is made.
 */
export function fnv1a64Text(text: string): { hash: string; codePoints: number } {
  const state = fnvStart();
  let lowSurrogates = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK_UNITS);
    // Never end a chunk between the two halves of a surrogate pair (each half alone would encode as U+FFFD).
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const chunk = text.slice(start, end);
    const { written } = encoder.encodeInto(chunk, chunkBuffer);
    fnvMix(state, chunkBuffer, written);
    for (let i = 0; i < chunk.length; i++) {
      const unit = chunk.charCodeAt(i);
      if (unit >= 0xdc00 && unit <= 0xdfff) lowSurrogates++;
    }
    start = end;
  }
  return { hash: fnvHex(state), codePoints: text.length - lowSurrogates };
}

/**
 * A fresh flat copy of a short string. `slice` of a huge string may share the huge string's memory (V8 sliced
 * strings), which would keep a 90 MB value alive inside a 4 KB marker.
 */
function detach(text: string): string {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += 4_096) parts.push(String.fromCharCode(...Array.from({ length: Math.min(4_096, text.length - i) }, (_, k) => text.charCodeAt(i + k))));
  return parts.join('');
}

/** `text` whole when at most `keep` code units, else its marker. */
export function clipText(text: string, keep: number): { value: string; clipped: boolean } {
  if (text.length <= keep) return { value: text, clipped: false };
  let end = Math.max(0, keep);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  const { hash, codePoints } = fnv1a64Text(text);
  return { value: `${detach(text.slice(0, end))}… [cut: ${codePoints} characters, fnv1a64 ${hash}]`, clipped: true };
}

/** `bytes` whole when at most `keep` bytes, else its marker string. */
export function clipBlob(bytes: Uint8Array, keep: number): { value: Uint8Array | string; clipped: boolean } {
  if (bytes.length <= keep) return { value: bytes, clipped: false };
  return { value: `[blob: ${bytes.length} bytes, fnv1a64 ${fnv1a64Bytes(bytes)}]`, clipped: true };
}

/** The marker `text` is, or null when it is an ordinary value. */
export function parseClipMarker(text: string): ClipMarker | null {
  // Markers are short at the end; test the tail only, so a long ordinary value costs nothing here.
  const tail = text.length > MAX_MARKER_CHARS + 8 ? text.slice(-(MAX_MARKER_CHARS + 8)) : text;
  const t = TEXT_MARKER.exec(tail);
  if (t) {
    const suffix = t[0].length;
    return { kind: 'text', prefix: text.slice(0, text.length - suffix), chars: Number(t[1]), hash: t[2] };
  }
  const b = text.length <= MAX_MARKER_CHARS ? BLOB_MARKER.exec(text) : null;
  return b ? { kind: 'blob', bytes: Number(b[1]), hash: b[2] } : null;
}
