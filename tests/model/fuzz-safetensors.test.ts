/**
 * Fuzz: safetensors bytes — bit flips, the length field changed, truncation, trailing bytes, header edits (offsets
 * shuffled or overlapping, huge/negative/fractional shapes, unknown dtypes, odd names and metadata), non-JSON headers
 * and random bytes — read with readSafetensors (requireFinite) as a loader does. Each input either decodes, with every
 * tensor's data exactly its shape's size, within the file, and finite, or throws a typed SafetensorsError naming the
 * file. Huge shapes are refused from the header alone (no allocation follows a header number until it is checked
 * against the bytes present). 800 inputs per run, seeded (FUZZ_SEED replays).
 */
import { describe, expect, it } from 'vitest';
import { createRng, randomInt } from '../../src/data/rng.ts';
import { parseSafetensorsHeader, readSafetensors, SafetensorsError } from '../../src/model/safetensors.ts';
import { classify, fuzzSeed, mutateSafetensors, tinyWeights } from './fuzz-support.ts';

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
