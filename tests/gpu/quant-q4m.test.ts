/**
 * The q4m weight format (src/gpu/quant.ts): 4-bit codes over each group's [min, max] with an f16 step and minimum.
 * Layout golden words; every element within half a step (plus the minimum's f16 rounding) of its value, with the step
 * the smallest f16 that spans the group; an error no larger than q4's on heavy-tailed weights and about half of it on
 * skewed groups; constant and zero groups; typed errors; and the memory plan's dtypes (projections q4m, embedding and
 * LM head q8). Random weights are drawn from a fresh seed each run (printed; SQLENV_TEST_SEED=<n> replays it).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/data/rng.ts';
import { GpuShapeError } from '../../src/gpu/errors.ts';
import { f16BitsToNumber, f32ToF16Bits } from '../../src/gpu/f16.ts';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { QUANT_GROUP, decodeWeight, encodeWeight, matrixFormats, roundTripWeight, tableFormat, weightBytes, weightRowWords } from '../../src/gpu/quant.ts';
import { QWEN2_5_0_5B_INSTRUCT, QWEN3_0_6B } from '../../src/model/config.ts';
import { testSeed } from '../fixtures/seed.ts';

const seed = testSeed('tests/gpu/quant-q4m.test.ts');
console.log(`quant-q4m seed ${seed}; replay: QUANT_TEST_SEED=${seed} npx vitest run tests/gpu/quant-q4m.test.ts`);

/** Student-t with 4 degrees of freedom (heavy tails, as trained weights have), times `scale`, rounded to f32. */
function heavy(rng: Rng, n: number, scale: number, shift = 0): Float64Array {
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  return Float64Array.from({ length: n }, () => {
    let chi = 0;
    for (let i = 0; i < 4; i++) chi += normal() ** 2;
    return Math.fround(shift + (scale * normal()) / Math.sqrt(chi / 4));
  });
}

/** f16 spacing at |v|: the f16 grid's distance between neighbours there (half of it bounds a rounding). */
function f16Ulp(v: number): number {
  const a = Math.abs(v);
  return a < 2 ** -14 ? 2 ** -24 : 2 ** (Math.floor(Math.log2(a)) - 10);
}

function rmsError(format: 'q4' | 'q4m', w: Float64Array, rows: number, cols: number): number {
  const back = roundTripWeight(format, w, rows, cols);
  let se = 0;
  let ss = 0;
  for (let i = 0; i < w.length; i++) {
    se += (back[i] - w[i]) ** 2;
    ss += w[i] ** 2;
  }
  return Math.sqrt(se / ss);
}

describe('q4m format', () => {
  it('stores nibbles code 0..15 then one word per group: f16 step low, f16 minimum high', () => {
    const row = Array.from({ length: 32 }, (_, k) => -2 + 0.5 * (k % 16));
    const words = encodeWeight('q4m', row, 1, 32);
    expect(words.length).toBe(32 / 8 + 1);
    expect(words[0]).toBe(0x76543210);
    expect(words[1]).toBe(0xfedcba98);
    expect(words[2]).toBe(0x76543210);
    expect(words[4]).toBe((0x3800 | (0xc000 << 16)) >>> 0); // step 0.5, minimum −2
    expect([...decodeWeight('q4m', words, 1, 32)]).toEqual(row);
  });

  it('same bytes as q4: 0.625 per element', () => {
    expect(weightRowWords('q4m', 64)).toBe(8 + 2);
    expect(weightBytes('q4m', 1024, 1024)).toBe(1024 * 1024 * 0.625);
  });

  it('every element within half a step plus the minimum f16 rounding; the step is the smallest f16 spanning the group', () => {
    const rng = createRng(seed);
    const rows = 16;
    const cols = 256;
    // Row scales over two decades and a shifted (skewed) half, as projections of a trained model have.
    const w = new Float64Array(rows * cols);
    for (let n = 0; n < rows; n++) w.set(heavy(rng, cols, 0.02 * 10 ** (2 * rng.next() - 1), n % 2 === 0 ? 0 : 0.03), n * cols);
    const words = encodeWeight('q4m', w, rows, cols);
    const back = decodeWeight('q4m', words, rows, cols);
    const rowWords = weightRowWords('q4m', cols);
    for (let n = 0; n < rows; n++) {
      for (let g = 0; g < cols / QUANT_GROUP; g++) {
        const group = w.subarray(n * cols + g * QUANT_GROUP, n * cols + (g + 1) * QUANT_GROUP);
        const lo = Math.min(...group);
        const hi = Math.max(...group);
        const dm = words[n * rowWords + cols / 8 + g];
        const d = f16BitsToNumber(dm & 0xffff);
        const m = f16BitsToNumber(dm >>> 16);
        // The minimum is lo rounded to f16; the step reaches hi in 15 steps and is at most one f16 spacing above the exact span / 15.
        expect(m).toBe(f16BitsToNumber(f32ToF16Bits(lo)));
        expect(m + 15 * d).toBeGreaterThanOrEqual(hi);
        expect(d).toBeLessThanOrEqual((hi - m) / 15 + f16Ulp((hi - m) / 15));
        const bound = d / 2 + Math.abs(lo - m) + 2 ** -23 * Math.max(Math.abs(lo), Math.abs(hi));
        for (let k = 0; k < QUANT_GROUP; k++) {
          const i = n * cols + g * QUANT_GROUP + k;
          expect(Math.abs(back[i] - w[i])).toBeLessThanOrEqual(bound);
        }
      }
    }
  });

  it('errs no more than q4 on centred heavy-tailed weights, and about half as much on skewed groups', () => {
    const rng = createRng(seed + 1);
    const rows = 64;
    const cols = 512;
    const centred = heavy(rng, rows * cols, 0.02);
    const skewed = heavy(rng, rows * cols, 0.02, 0.04);
    const c = { q4: rmsError('q4', centred, rows, cols), q4m: rmsError('q4m', centred, rows, cols) };
    const s = { q4: rmsError('q4', skewed, rows, cols), q4m: rmsError('q4m', skewed, rows, cols) };
    console.log(`RMS error / RMS weight, t(4) weights: centred q4 ${c.q4.toFixed(4)} q4m ${c.q4m.toFixed(4)}; skewed q4 ${s.q4.toFixed(4)} q4m ${s.q4m.toFixed(4)}`);
    // Centred: 16 levels over [min, max] against 15 over ±max|w|: the step is at most 15/14 of q4's half-range/7.5.
    expect(c.q4m).toBeLessThan(c.q4);
    // Skewed (every group mostly positive): q4's grid wastes its negative half.
    expect(s.q4m).toBeLessThan(0.6 * s.q4);
  });

  it('reproduces constant groups, zero groups and the group extremes', () => {
    const w = new Float64Array(96);
    w.fill(0.375, 32, 64); // constant, exact in f16
    for (let k = 64; k < 96; k++) w[k] = (k - 70) / 64;
    const back = roundTripWeight('q4m', w, 1, 96);
    expect([...back.subarray(0, 32)].every((x) => x === 0)).toBe(true);
    expect([...back.subarray(32, 64)].every((x) => x === 0.375)).toBe(true);
    expect(back[64]).toBe(w[64]); // the minimum is exact in f16 here
  });

  it('refuses non-finite values and groups beyond f16, naming the weight', () => {
    const bad = new Float64Array(32);
    bad[3] = Infinity;
    expect(() => encodeWeight('q4m', bad, 1, 32, 'layer.3.up_proj')).toThrow(/layer\.3\.up_proj.*not finite/);
    const wide = new Float64Array(32);
    wide[0] = -40000;
    wide[1] = 40000;
    expect(() => encodeWeight('q4m', wide, 1, 32, 'w')).toThrow(GpuShapeError);
    expect(() => encodeWeight('q4m', new Float64Array(48), 1, 48, 'w')).toThrow(/multiple of 32/);
  });

  it('plans projections as q4m and the embedding / LM head as q8', () => {
    expect(tableFormat('q4m')).toBe('q8');
    expect(tableFormat('q4')).toBe('q4');
    expect(matrixFormats('q4m')).toEqual(['q4m', 'q8']);
    expect(matrixFormats('f16')).toEqual(['f16']);
    for (const config of [QWEN3_0_6B, QWEN2_5_0_5B_INSTRUCT]) {
      const plan = planMemory(config, { batch: 1, context: 64, weights: 'q4m' });
      const matrices = plan.entries.filter((e) => e.kind === 'weight' && e.shape.length === 2);
      const tables = matrices.filter((e) => e.name === 'model.embed_tokens.weight' || e.name === 'lm_head.weight');
      expect(tables.length).toBe(config.tieWordEmbeddings ? 1 : 2);
      for (const e of tables) expect([e.dtype, e.bytes]).toEqual(['q8g32', e.shape[0] * e.shape[1] * 1.125]);
      for (const e of matrices.filter((x) => !tables.includes(x))) expect([e.dtype, e.bytes]).toEqual(['q4mg32', e.shape[0] * e.shape[1] * 0.625]);
    }
  });
});
