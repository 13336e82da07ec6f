/**
 * Value clipping (src/sql/clip.ts): FNV-1a 64 against published vectors and a BigInt reference, markers that keep
 * the start, full length and hash of a value, surrogate pairs never split, markers parsed back.
 */
import { describe, expect, it } from 'vitest';
import { clipBlob, clipText, fnv1a64Bytes, fnv1a64Text, MAX_MARKER_CHARS, parseClipMarker } from '../../src/sql/clip.ts';
import { createRng, randomInt } from '../../src/data/rng.ts';

/** FNV-1a 64 the slow, obvious way, as the reference. */
function referenceFnv(bytes: Uint8Array): string {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('fnv1a64', () => {
  it.each([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('hashes %j to the published value', (text, hash) => {
    expect(fnv1a64Bytes(utf8(text))).toBe(hash);
    expect(fnv1a64Text(text).hash).toBe(hash);
  });

  it('agrees with a BigInt reference on seeded random bytes and on text across chunk boundaries', () => {
    const rng = createRng(7);
    for (const n of [1, 255, 4_097, 70_001]) {
      const bytes = Uint8Array.from({ length: n }, () => randomInt(rng, 256));
      expect(fnv1a64Bytes(bytes)).toBe(referenceFnv(bytes));
    }
    // 'é😀' is 6 UTF-8 bytes and 3 code units: chunks of 16,384 units would split a pair if they could.
    const text = `x${'é😀'.repeat(12_000)}`;
    expect(fnv1a64Text(text)).toEqual({ hash: referenceFnv(utf8(text)), codePoints: 1 + 2 * 12_000 });
  });
});

describe('clipText', () => {
  it('keeps a value within the budget unchanged', () => {
    expect(clipText('hello', 5)).toEqual({ value: 'hello', clipped: false });
  });

  it('keeps the start, states the length in code points and hashes the whole value', () => {
    const value = `${'a'.repeat(10)}😀${'b'.repeat(10)}`;
    const { value: marker, clipped } = clipText(value, 4);
    expect(clipped).toBe(true);
    expect(marker).toBe(`aaaa… [cut: 21 characters, fnv1a64 ${referenceFnv(utf8(value))}]`);
  });

  it('never ends the kept start inside a surrogate pair', () => {
    const { value } = clipText('ab😀cd', 3);
    expect(value.startsWith('ab…')).toBe(true);
    expect(parseClipMarker(value)).toEqual({ kind: 'text', prefix: 'ab', chars: 5, hash: referenceFnv(utf8('ab😀cd')) });
  });

  it('gives two long values with the same start and length different markers', () => {
    const a = clipText(`${'x'.repeat(5_000)}1`, 100).value;
    const b = clipText(`${'x'.repeat(5_000)}2`, 100).value;
    expect(a).not.toBe(b);
    expect(a.slice(0, 110)).toBe(b.slice(0, 110));
  });

  it('keeps its marker suffix within MAX_MARKER_CHARS', () => {
    const marker = clipText('z'.repeat(1_000_000), 0).value;
    expect(marker.length).toBeLessThanOrEqual(MAX_MARKER_CHARS);
  });
});

describe('clipBlob and parseClipMarker', () => {
  it('replaces a long BLOB by its size and hash, and keeps a short one', () => {
    const bytes = Uint8Array.from({ length: 3_000 }, (_, i) => i % 251);
    const { value, clipped } = clipBlob(bytes, 2_048);
    expect(clipped).toBe(true);
    expect(value).toBe(`[blob: 3000 bytes, fnv1a64 ${referenceFnv(bytes)}]`);
    expect(parseClipMarker(value as string)).toEqual({ kind: 'blob', bytes: 3_000, hash: referenceFnv(bytes) });
    expect(clipBlob(bytes.slice(0, 10), 2_048)).toEqual({ value: bytes.slice(0, 10), clipped: false });
  });

  it('reads ordinary text as no marker', () => {
    for (const text of ['', 'hello', '[blob: 3 bytes]', '… [cut: 5 characters]', 'x'.repeat(10_000)]) expect(parseClipMarker(text)).toBeNull();
  });
});
