/**
 * Fuzz: safetensors bytes — bit flips, the length field changed, truncation, trailing bytes, header edits (offsets
 * shuffled or overlapping, huge/negative/fractional shapes, unknown dtypes, odd names and metadata), non-JSON headers
 * and random bytes — read with readSafetensors (requireFinite) as a loader does. Each input either decodes, with every
 * tensor's data exactly its shape's size, within the file, and finite, or throws a typed SafetensorsError naming the
 * file. Huge shapes are refused from the header alone (no allocation follows a header number until it is checked
 * against the bytes present). 800 inputs per run, seeded (SQLENV_TEST_SEED replays). A second suite repeats one entry of a
 * valid header in its raw text (JSON.parse would keep only the last copy, which the code before issue 22 accepted):
 * each must be refused naming the repeated tensor.
 */
import { describe, expect, it } from 'vitest';
import { createRng, randomInt } from '../../src/data/rng.ts';
import { CorruptHeaderError, parseSafetensorsHeader, readSafetensors, SafetensorsError } from '../../src/model/safetensors.ts';
import { classify, fuzzSeed, mutateSafetensors, pickOne, tinyWeights, withHeader } from './fuzz-support.ts';

const INPUTS = 800;
const seed = fuzzSeed('fuzz-safetensors');

describe(`fuzz safetensors (seed ${seed})`, () => {
  it(`${INPUTS} mutated files decode consistently or throw a typed error naming the file`, () => {
    const rng = createRng(seed);
    const bases = [tinyWeights(rng, undefined, 'F32'), tinyWeights(rng, undefined, 'BF16'), tinyWeights(rng, undefined, 'F16')];
    const outcomes = new Map<string, number>();
    for (let i = 0; i < INPUTS; i++) {
      const where = `seed ${seed}, case ${i}`;
      let bytes = bases[randomInt(rng, bases.length)];
      for (let k = 1 + randomInt(rng, 2); k > 0; k--) bytes = bytes.length >= 8 ? mutateSafetensors(rng, bytes) : bytes;
      let outcome = 'ok';
      try {
        const { tensors } = readSafetensors(bytes, 'fuzz.safetensors', { requireFinite: true });
        let total = 0;
        for (const [name, t] of tensors) {
          expect(t.data.length, `${where}: ${name}`).toBe(t.shape.reduce((a, b) => a * b, 1));
          expect(t.data.every(Number.isFinite), `${where}: ${name}`).toBe(true);
          total += t.data.length;
        }
        expect(total, where).toBeLessThanOrEqual(bytes.length);
        // The streaming check (file size unknown) accepts whatever the full check accepts.
        expect(() => parseSafetensorsHeader(bytes, null, 'fuzz.safetensors'), where).not.toThrow();
      } catch (e) {
        outcome = classify(e, where);
        if (e instanceof SafetensorsError) expect(e.message, where).toContain('fuzz.safetensors');
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    console.log(`fuzz-safetensors: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(outcomes.get('CorruptHeaderError') ?? 0, `seed ${seed}`).toBeGreaterThan(INPUTS / 10);
    expect(outcomes.get('ok') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
  });
});

describe(`fuzz duplicate tensor names (seed ${seed})`, () => {
  it('200 headers with one entry repeated (same or other offsets, anywhere in the object) are refused naming it', () => {
    const rng = createRng(seed ^ 0x5eed);
    const file = tinyWeights(rng, undefined, 'F32');
    const n = Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + n))) as Record<string, unknown>;
    const names = Object.keys(header).filter((k) => k !== '__metadata__');
    for (let i = 0; i < 200; i++) {
      const name = pickOne(rng, names);
      const other = pickOne(rng, names);
      // The copy holds the entry itself or another tensor's (then the first entry's bytes would be orphaned).
      const copy = `${JSON.stringify(name)}:${JSON.stringify(header[randomInt(rng, 2) === 0 ? name : other])}`;
      const entries = Object.entries(header).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
      entries.splice(randomInt(rng, entries.length + 1), 0, copy);
      const bytes = withHeader(null, file.subarray(8 + n), `{${entries.join(randomInt(rng, 2) === 0 ? ',' : ' , ')}}`);
      const where = `seed ${seed}, case ${i}: ${name}`;
      expect(() => readSafetensors(bytes, 'dup.safetensors'), where).toThrow(CorruptHeaderError);
      expect(() => parseSafetensorsHeader(bytes, bytes.length, 'dup.safetensors'), where).toThrow(`entry ${JSON.stringify(name)} appears twice`);
    }
  });
});
