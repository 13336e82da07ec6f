/**
 * The CPU quantiser (src/gpu/quant.ts): layout golden words, round-trip error within half a grid step per element
 * (and the group's largest element reproduced), measured RMS round-trip error of q8 and q4 on uniform random
 * weights, the f16 format equal to the f16 packer, and typed errors for shapes that cannot be grouped.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { packF16Matrix } from '../../src/gpu/f16.ts';
import { QUANT_GROUP, decodeWeight, encodeWeight, roundTripWeight, weightBytes, weightRowWords } from '../../src/gpu/quant.ts';

function uniform(n: number, seed: number, scale = 1): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => Math.fround((rng.next() * 2 - 1) * scale));
}

describe('quant formats', () => {
  it('stores q8 as int8 codes then f32 scales, per row', () => {
    const row = Array.from({ length: 32 }, (_, k) => (k === 0 ? 127 : k === 1 ? -63.25 : k === 2 ? 1 : 0));
    const words = encodeWeight('q8', row, 1, 32);
    expect(words.length).toBe(32 / 4 + 1);
    expect(new Float32Array(words.buffer)[8]).toBe(1); // scale = 127 / 127
    expect(words[0]).toBe((127 | ((-63 & 0xff) << 8) | (1 << 16)) >>> 0); // byte j of a word holds element j
  });

  it('stores q4 as nibbles code + 8 then f32 scales, per row', () => {
    const row = Array.from({ length: 32 }, (_, k) => (k === 0 ? 7 : k === 1 ? -7 : k === 2 ? 3 : 0));
    const words = encodeWeight('q4', row, 1, 32);
    expect(words.length).toBe(32 / 8 + 1);
    expect(new Float32Array(words.buffer)[4]).toBe(1);
    expect(words[0]).toBe((15 | (1 << 4) | (11 << 8) | 0x88888000) >>> 0);
    expect(words[1]).toBe(0x88888888);
  });

  for (const [format, qmax, rmsBound] of [['q8', 127, 0.005], ['q4', 7, 0.08]] as const) {
    it(`${format}: every element within half a step of its group's grid, the group max exact, RMS error < ${rmsBound} of RMS weight`, () => {
      const rows = 24;
      const cols = 96;
      const w = uniform(rows * cols, 11, 0.3);
      const back = roundTripWeight(format, w, rows, cols);
      let se = 0;
      let ss = 0;
      for (let n = 0; n < rows; n++) {
        for (let g = 0; g < cols / QUANT_GROUP; g++) {
          let amax = 0;
          for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) amax = Math.max(amax, Math.abs(w[n * cols + k]));
          const step = Math.fround(amax / qmax);
          for (let k = g * QUANT_GROUP; k < (g + 1) * QUANT_GROUP; k++) {
            const i = n * cols + k;
            expect(Math.abs(back[i] - w[i])).toBeLessThanOrEqual(step / 2 + 1e-6 * amax);
            if (Math.abs(w[i]) === amax) expect(Math.abs(back[i] - w[i])).toBeLessThanOrEqual(1e-6 * amax);
            se += (back[i] - w[i]) ** 2;
            ss += w[i] ** 2;
          }
        }
      }
      const rel = Math.sqrt(se / ss);
      console.log(`${format} round trip: RMS error / RMS weight = ${rel.toExponential(3)} (uniform weights, groups of ${QUANT_GROUP})`);
      expect(rel).toBeLessThan(rmsBound);
      // Encoding the decoded values again gives the same words (the grid is a fixed point).
      expect(encodeWeight(format, back, rows, cols)).toEqual(encodeWeight(format, w, rows, cols));
    });
  }

  it('keeps all-zero groups at zero and mixes scales across groups', () => {
    const w = new Float64Array(64);
    for (let k = 32; k < 64; k++) w[k] = (k - 48) / 100;
    const back = roundTripWeight('q4', w, 1, 64);
    expect([...back.subarray(0, 32)].every((x) => x === 0)).toBe(true);
    expect(Math.max(...back.subarray(32).map(Math.abs))).toBeCloseTo(0.16, 6);
  });

  it('f16 format is the f16 packer, and decodes to f16 values', () => {
    const w = uniform(8 * 6, 3);
    expect(encodeWeight('f16', w, 8, 6)).toEqual(packF16Matrix(w, 8, 6));
    const back = decodeWeight('f16', encodeWeight('f16', w, 8, 6), 8, 6);
    for (let i = 0; i < w.length; i++) expect(Math.abs(back[i] - w[i])).toBeLessThanOrEqual(Math.abs(w[i]) * 2 ** -11);
  });

  it('counts bytes per format: f16 2, q8 1.125, q4 0.625 per element', () => {
    expect(weightBytes('f16', 1024, 1024)).toBe(1024 * 1024 * 2);
    expect(weightBytes('q8', 1024, 1024)).toBe(1024 * 1024 * 1.125);
    expect(weightBytes('q4', 1024, 1024)).toBe(1024 * 1024 * 0.625);
    expect(weightRowWords('q4', 64)).toBe(8 + 2);
  });

  it('refuses K that is not a multiple of the group, and non-finite values, naming the weight', () => {
    expect(() => encodeWeight('q4', new Float64Array(48), 1, 48, 'layer.0.q_proj')).toThrow(GpuShapeError);
    expect(() => encodeWeight('q4', new Float64Array(48), 1, 48, 'layer.0.q_proj')).toThrow(/layer\.0\.q_proj.*multiple of 32/);
    const bad = new Float64Array(32);
    bad[5] = NaN;
    expect(() => encodeWeight('q8', bad, 1, 32, 'w')).toThrow(/not finite/);
  });
});
