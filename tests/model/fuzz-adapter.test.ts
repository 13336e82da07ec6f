/**
 * Fuzz: PEFT adapter files (adapter_config.json + adapter_model.safetensors) for a tiny base model — the config's
 * fields mutated (rank, alpha, dropout, target_modules as lists and regexes, backtracking regexes included,
 * layers_to_transform, exclude_modules, unsupported fields), the safetensors mutated as in fuzz-safetensors, NaN and
 * ±Infinity planted. Each input either loads — then every pair has the base model's shapes and finite values — or
 * throws an AdapterFileError naming the file; nothing else escapes and no regex hangs (regexes run in linear time,
 * issue 22's catastrophic ones included). 400 inputs per run, seeded (SQLENV_TEST_SEED replays).
 */
import { describe, expect, it } from 'vitest';
import { createRng, randomInt } from '../../src/data/rng.ts';
import { AdapterFileError, readPeftAdapter, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { createLoraAdapter, loraShapes, peftTensorName } from '../../src/model/lora.ts';
import { classify, FUZZ_MODEL, fuzzSeed, mutateSafetensors, pickOne, poisonF32, randomValue } from './fuzz-support.ts';

const INPUTS = 400;
const seed = fuzzSeed('fuzz-adapter');

const TARGET_SPECS: readonly unknown[] = [
  ['q_proj', 'v_proj'],
  'all-linear',
  '.*\\.(q_proj|v_proj)',
  'model\\.layers\\.\\d+\\.self_attn\\.(q|k)_proj',
  '(a+)+$',
  '(.*)*x',
  '(q|q)*_proj',
  '.*.*.*.*.*.*x',
  '(\\w+)\\1',
  // Issue 22: catastrophic for a backtracking engine (the first hung the loader over a minute); linear here.
  '(.?){40}.{40}',
  '(\\w|\\w)*;',
  '(.*)*q_proj',
  '(a|aa)*b',
  '((a{200}){200})',
  '(?=q)q_proj',
  '[',
  'lm_head',
  ['embed_tokens'],
  [],
  ['nonexistent'],
  42,
  null,
];

function mutateAdapterConfig(rng: ReturnType<typeof createRng>, json: Record<string, unknown>): string {
  if (randomInt(rng, 15) === 0) return pickOne(rng, ['', '{', 'null', '[]', '"x"', '{"r": 4}']);
  const out = { ...json };
  for (let k = 1 + randomInt(rng, 2); k > 0; k--) {
    const field = pickOne(rng, ['r', 'lora_alpha', 'lora_dropout', 'target_modules', 'target_modules', 'layers_to_transform', 'exclude_modules', 'use_dora', 'peft_type', 'rank_pattern', 'bias', 'use_rslora']);
    out[field] = field === 'target_modules' ? pickOne(rng, TARGET_SPECS) : field === 'layers_to_transform' ? pickOne(rng, [0, [1], [0, 1], [-1], [1e9], 'x', randomValue(rng)]) : randomValue(rng);
  }
  return JSON.stringify(out);
}

describe(`fuzz PEFT adapter files (seed ${seed})`, () => {
  it(`${INPUTS} mutated adapters load with the base model's shapes or throw AdapterFileError`, () => {
    const rng = createRng(seed);
    const lora = { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] as Array<'q_proj' | 'v_proj' | 'down_proj'>, dropout: 0, useRslora: false };
    const files = writePeftAdapter(createLoraAdapter(FUZZ_MODEL, lora, rng, (r) => r.next() - 0.5), { modelId: 'fuzz/tiny', config: FUZZ_MODEL });
    const baseJson = JSON.parse(files['adapter_config.json']) as Record<string, unknown>;
    const outcomes = new Map<string, number>();
    for (let i = 0; i < INPUTS; i++) {
      const where = `seed ${seed}, case ${i}`;
      let safetensors = files['adapter_model.safetensors'];
      let configJson = files['adapter_config.json'];
      const what = randomInt(rng, 4);
      if (what === 0 || what === 3) configJson = mutateAdapterConfig(rng, baseJson);
      if (what === 1 || what === 3) safetensors = mutateSafetensors(rng, safetensors);
      if (what === 2) safetensors = poisonF32(safetensors, peftTensorName(randomInt(rng, 2), 'v_proj', 'B'), randomInt(rng, 16), pickOne(rng, [NaN, Infinity, -Infinity]));
      let outcome = 'ok';
      try {
        const adapter = readPeftAdapter({ safetensors, configJson }, FUZZ_MODEL);
        expect(adapter.layers.length, where).toBe(FUZZ_MODEL.numLayers);
        for (const layer of adapter.layers) {
          for (const t of adapter.config.targetModules) {
            const pair = layer[t]!;
            const want = loraShapes(FUZZ_MODEL, adapter.config, t);
            expect([pair.a.shape, pair.b.shape], where).toEqual([want.a, want.b]);
            expect([...pair.a.data, ...pair.b.data].every(Number.isFinite), where).toBe(true);
          }
        }
      } catch (e) {
        outcome = classify(e, `${where}, config ${configJson.slice(0, 200)}`);
        expect(e, `${where}: ${(e as Error).message}`).toBeInstanceOf(AdapterFileError);
        expect((e as Error).message, where).toMatch(/^adapter_(config\.json|model\.safetensors)/);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    console.log(`fuzz-adapter: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(outcomes.get('ok') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
  });
});
