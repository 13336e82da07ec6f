/**
 * Cases that kill what Stryker's run over src/sql/clip.ts left alive (docs/mutation.md): surrogate pairs at the cut
 * and at the hash's chunk boundary, values exactly at their budget, the markers' anchors and longest form, kept
 * prefixes longer than one copy chunk. Expected hashes come from FNV-1a 64 written here with BigInt over
 * TextEncoder's bytes (and the published test vectors), code-point counts from the string iterator — never from the
 * module under test.
 *
 * The second round (issue 28, task K) targets the exact code units a comparison mutant moves: a high surrogate of
 * exactly 0xD800 or 0xDBFF at a cut, a low one of exactly 0xDC00 or 0xDFFF, BMP characters above the surrogates, a
 * chunk of three-byte characters that only fits its buffer because the cut steps back, a lone high surrogate at the
 * very end (a mutant that steps back there loops forever; Stryker counts that as a timeout), and markers at the
 * edges of parseClipMarker's windows. 😀 (0xD83D 0xDE00) sits inside every range, so it cannot tell `>=` from `>`.
 */
import { describe, expect, it } from 'vitest';
import { clipBlob, clipText, fnv1a64Bytes, fnv1a64Text, MAX_MARKER_CHARS, parseClipMarker } from '../../src/sql/clip.ts';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a 64 as its definition says, one byte at a time in BigInt. */
function fnvReference(bytes: Uint8Array): string {
  let h = FNV_OFFSET;
  for (const byte of bytes) h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK;
  return h.toString(16).padStart(16, '0');
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const codePoints = (text: string) => [...text].length;
/** The hash's chunk is 16,384 code units: a pair whose high half is its last unit straddles the boundary. */
const CHUNK = 16_384;

describe('FNV-1a 64', () => {
  it('matches the published vectors', () => {
    expect(fnv1a64Bytes(new Uint8Array())).toBe('cbf29ce484222325');
    expect(fnv1a64Bytes(utf8('a'))).toBe('af63dc4c8601ec8c');
    expect(fnv1a64Bytes(utf8('foobar'))).toBe('85944171f73967e8');
    expect(fnv1a64Text('foobar')).toEqual({ hash: '85944171f73967e8', codePoints: 6 });
  });

  it.each([
    ['a pair straddling the first chunk boundary', `${'a'.repeat(CHUNK - 1)}😀b`],
    ['a pair straddling the second chunk boundary', `${'é'.repeat(2 * CHUNK - 1)}😀${'z'.repeat(10)}`],
    ['a pair right after the boundary', `${'a'.repeat(CHUNK)}😀`],
    ['pairs everywhere', '😀'.repeat(CHUNK + 3)],
    ['three-byte characters across chunks', '語'.repeat(2 * CHUNK + 5)],
  ])('hashes the UTF-8 bytes of the whole text and counts code points: %s', (_, text) => {
    expect(fnv1a64Text(text)).toEqual({ hash: fnvReference(utf8(text)), codePoints: codePoints(text) });
  });

  it.each([
    // U+10000 is 0xD800 0xDC00 and U+10FFFF is 0xDBFF 0xDFFF: the first and last units of both surrogate ranges.
    ['U+10000 straddling the chunk boundary', `${'a'.repeat(CHUNK - 1)}\u{10000}b`],
    ['U+10FFFF straddling the chunk boundary', `${'a'.repeat(CHUNK - 1)}\u{10FFFF}b`],
    // 16,383 three-byte units + a four-byte pair = 49,153 bytes: one more than the 3 × 16,384-byte buffer holds, so
    // a cut that steps forward over the pair (instead of back before it) loses bytes from the hash.
    ['three-byte characters filling the chunk up to a straddling pair', `${'語'.repeat(CHUNK - 1)}😀語`],
    // A lone high surrogate is the text's last unit: the cut must not step back there (it is the end, not a split).
    ['a lone high surrogate at the end', 'a\ud800'],
    ['a lone high surrogate at the end of a second chunk', `${'a'.repeat(CHUNK + 5)}\udbff`],
  ])('hashes and counts a text whose edge code units sit on the surrogate ranges\' bounds: %s', (_, text) => {
    expect(fnv1a64Text(text)).toEqual({ hash: fnvReference(utf8(text)), codePoints: codePoints(text) });
  });

  it('counts a code point once for each pair and each character above the surrogates', () => {
    // Units: D800 DC00 | DBFF DFFF | E000 | FF01 | FFFF — five code points, written out rather than iterated.
    const text = '\u{10000}\u{10FFFF}\ue000\uff01\uffff';
    expect(text.length).toBe(7);
    expect(fnv1a64Text(text)).toEqual({ hash: fnvReference(utf8(text)), codePoints: 5 });
  });
});

describe('clipText', () => {
  it('keeps a text of exactly its budget whole, and clips one unit more', () => {
    expect(clipText('abcd', 4)).toEqual({ value: 'abcd', clipped: false });
    expect(clipText('abcde', 4)).toEqual({ value: `abcd… [cut: 5 characters, fnv1a64 ${fnvReference(utf8('abcde'))}]`, clipped: true });
  });

  it('never ends the kept prefix inside a surrogate pair', () => {
    const text = 'ab😀cd'; // units: a b \ud83d \ude00 c d
    const marker = `… [cut: 5 characters, fnv1a64 ${fnvReference(utf8(text))}]`;
    expect(clipText(text, 3).value).toBe(`ab${marker}`);
    expect(clipText(text, 4).value).toBe(`ab😀${marker}`);
    expect(clipText(text, 2).value).toBe(`ab${marker}`);
    expect(clipText('😀😀', 1).value).toBe(`… [cut: 2 characters, fnv1a64 ${fnvReference(utf8('😀😀'))}]`);
    expect(clipText(text, 0).value).toBe(marker);
  });

  it.each([
    ['U+10000 (0xD800 0xDC00)', '\u{10000}'],
    ['U+10FFFF (0xDBFF 0xDFFF)', '\u{10FFFF}'],
  ])('steps the cut back before a pair whose high half is a bound of the range: %s', (_, pair) => {
    const text = `a${pair}b`; // units: a, high, low, b — 3 code points
    const marker = `… [cut: 3 characters, fnv1a64 ${fnvReference(utf8(text))}]`;
    expect(clipText(text, 2).value).toBe(`a${marker}`);
    expect(clipText(text, 3).value).toBe(`a${pair}${marker}`);
  });

  it('keeps a prefix longer than one copy chunk exactly', () => {
    const text = Array.from({ length: 9_000 }, (_, i) => String.fromCharCode(0x41 + (i % 26))).join('');
    const { value } = clipText(text, 8_500);
    expect(value.slice(0, 8_500)).toBe(text.slice(0, 8_500));
    expect(value.slice(8_500)).toBe(`… [cut: 9000 characters, fnv1a64 ${fnvReference(utf8(text))}]`);
  });
});

describe('clipBlob', () => {
  it('keeps a BLOB of exactly its budget, and marks one byte more with the hash of its bytes', () => {
    const bytes = Uint8Array.from([0, 1, 2, 255]);
    expect(clipBlob(bytes, 4)).toEqual({ value: bytes, clipped: false });
    expect(clipBlob(bytes, 3)).toEqual({ value: `[blob: 4 bytes, fnv1a64 ${fnvReference(bytes)}]`, clipped: true });
  });
});

describe('parseClipMarker', () => {
  const hash = '0123456789abcdef';

  it('reads a text marker with a many-digit count after a long prefix', () => {
    const prefix = 'p'.repeat(1_000);
    expect(parseClipMarker(`${prefix}… [cut: 1234567890 characters, fnv1a64 ${hash}]`)).toEqual({ kind: 'text', prefix, chars: 1234567890, hash });
  });

  it('the longest marker is MAX_MARKER_CHARS long and still read', () => {
    const suffix = `… [cut: 9999999999 characters, fnv1a64 ${hash}]`;
    expect(suffix.length).toBe(56);
    expect(MAX_MARKER_CHARS).toBe(56);
    expect(parseClipMarker(`${'x'.repeat(500)}${suffix}`)).toMatchObject({ kind: 'text', chars: 9999999999 });
  });

  it('reads a text marker after every prefix length, including ones that put the text just past the tail window', () => {
    // The marker is read from the text's last MAX_MARKER_CHARS + 8 units; a 56-unit marker after 0–100 units of
    // prefix crosses that window's edge (64 units) and must be found wherever it starts.
    const suffix = `… [cut: 1234567890 characters, fnv1a64 ${hash}]`;
    for (let n = 0; n <= 100; n++) {
      const prefix = 'q'.repeat(n);
      expect(parseClipMarker(`${prefix}${suffix}`)).toEqual({ kind: 'text', prefix, chars: 1234567890, hash });
    }
  });

  it('a marker-shaped ending far longer than any real marker is ordinary text', () => {
    // A real count has at most 10 digits (MAX_MARKER_CHARS); 40 digits make the suffix 86 units, past the tail window.
    const text = `ab… [cut: ${'7'.repeat(40)} characters, fnv1a64 ${hash}]`;
    expect(parseClipMarker(text)).toBeNull();
  });

  it('reads a BLOB-marker-shaped value of MAX_MARKER_CHARS units, and not one of a unit more', () => {
    const atMost = `[blob: ${'1'.repeat(16)} bytes, fnv1a64 ${hash}]`;
    const over = `[blob: ${'1'.repeat(17)} bytes, fnv1a64 ${hash}]`;
    expect([atMost.length, over.length]).toEqual([56, 57]);
    expect(parseClipMarker(atMost)).toEqual({ kind: 'blob', bytes: 1111111111111111, hash });
    expect(parseClipMarker(over)).toBeNull();
  });

  it('reads a BLOB marker with a many-digit count', () => {
    expect(parseClipMarker(`[blob: 123456 bytes, fnv1a64 ${hash}]`)).toEqual({ kind: 'blob', bytes: 123456, hash });
  });

  it.each([
    ['text after a text marker', `ab… [cut: 5 characters, fnv1a64 ${hash}] and more`],
    ['text before a BLOB marker', `x[blob: 4 bytes, fnv1a64 ${hash}]`],
    ['text after a BLOB marker', `[blob: 4 bytes, fnv1a64 ${hash}]x`],
    ['a short hash', `ab… [cut: 5 characters, fnv1a64 ${hash.slice(1)}]`],
    ['upper-case hex', `ab… [cut: 5 characters, fnv1a64 ${hash.toUpperCase()}]`],
    ['no count', `ab… [cut:  characters, fnv1a64 ${hash}]`],
    ['a BLOB marker inside a long value', `${'y'.repeat(100)}[blob: 4 bytes, fnv1a64 ${hash}]`],
  ])('an ordinary value is not a marker: %s', (_, text) => {
    expect(parseClipMarker(text)).toBeNull();
  });
});
