/**
 * The reference model's f16 KV cache (emptyCache / createReferenceSession with kvCache 'f16'), the oracle of the
 * engine's default f16 cache (src/gpu/kv-format.ts): the cache holds exactly the f16 rounding of the keys and values
 * the exact cache holds (layer 0, whose inputs do not depend on the rounding), the activations a backward reads
 * (kr, v) are the stored values, KV-cached decode equals the whole sequence with the same cache, and the rounding
 * moves the logits a little but not at all with the default exact cache. Weights drawn from a fresh seed each run.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { roundToF16 } from '../../src/gpu/f16.ts';
import { createReferenceSession, emptyCache, modelForward, toReferenceWeights } from '../../src/model/reference/model.ts';
import { maxAbsDiff } from '../../src/model/reference/ops.ts';
import { randomModelWeights, tinyModelConfig } from '../../src/model/tiny-model.ts';
import { describeSeed, runSeed } from '../../src/gpu-tests/seed.ts';

const run = runSeed(process.env);
const IDS = [3, 17, 400, 5, 5, 42, 311, 9];

describe('reference model: f16 KV cache', () => {
  for (const architecture of ['qwen3', 'qwen2'] as const) {
    it(`${architecture}: stores f16-rounded keys and values, and attends over them`, () => {
      console.log(describeSeed(run, 'npx vitest run tests/model/reference-kv-cache.test.ts'));
      const config = tinyModelConfig({ architecture, vocabSize: 512 });
      const weights = toReferenceWeights(config, randomModelWeights(config, createRng(run.seed)));
      const exact = emptyCache(config);
      const f16 = emptyCache(config, 'f16');
      const fwdExact = modelForward(config, weights, null, exact, IDS);
      const fwdF16 = modelForward(config, weights, null, f16, IDS);
      const n = IDS.length * config.numKvHeads * config.headDim;
      const k0 = exact[0].k.subarray(0, n);
      const v0 = exact[0].v.subarray(0, n);
      expect(Array.from(f16[0].k.subarray(0, n))).toEqual(Array.from(roundToF16(k0)));
      expect(Array.from(f16[0].v.subarray(0, n))).toEqual(Array.from(roundToF16(v0)));
      expect(maxAbsDiff(roundToF16(k0), k0)).toBeGreaterThan(0);
      for (let l = 0; l < config.numLayers; l++) {
        const stored = f16[l].k.subarray(0, n);
        expect(Array.from(roundToF16(stored))).toEqual(Array.from(stored));
        expect(Array.from(fwdF16.layers[l].kr)).toEqual(Array.from(stored));
        expect(Array.from(fwdF16.layers[l].v)).toEqual(Array.from(f16[l].v.subarray(0, n)));
      }
      // The rounding is visible in the logits, and small (keys and values in f16 carry ~3 significant digits).
      const moved = maxAbsDiff(fwdF16.logits, fwdExact.logits);
      const scale = maxAbsDiff(fwdExact.logits, new Float64Array(fwdExact.logits.length));
      expect(moved).toBeGreaterThan(0);
      expect(moved).toBeLessThan(1e-2 * scale);
    });
  }

  it('KV-cached decode with the f16 cache equals the whole sequence with it; the default cache is exact', () => {
    const config = tinyModelConfig({ vocabSize: 512 });
    console.log(describeSeed(run, 'npx vitest run tests/model/reference-kv-cache.test.ts'));
    const weights = toReferenceWeights(config, randomModelWeights(config, createRng(run.seed + 1)));
    const V = config.vocabSize;
    const whole = modelForward(config, weights, null, emptyCache(config, 'f16'), IDS).logits;
    const session = createReferenceSession(config, weights, undefined, 'f16');
    const rows = [session.prefill(IDS.slice(0, 3)), ...IDS.slice(3).map((id) => session.decode(id))];
    rows.forEach((row, i) => expect(maxAbsDiff(row, whole.subarray((i + 2) * V, (i + 3) * V))).toBeLessThan(1e-12));
    const exactWhole = modelForward(config, weights, null, emptyCache(config), IDS).logits;
    expect(maxAbsDiff(createReferenceSession(config, weights).prefill(IDS), exactWhole.subarray((IDS.length - 1) * V))).toBeLessThan(1e-12);
  });
});
