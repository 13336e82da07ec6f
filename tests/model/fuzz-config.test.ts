/**
 * Fuzz: config.json (and generation_config.json) values, random and mutated from a valid tiny Qwen3/Qwen2 config and
 * from Qwen3-0.6B's published one. Each input either parses and fits the memory budget — then its numbers are in
 * range and its plan is within budget — or throws one of the project's typed errors naming config.json or
 * generation_config.json. 600 inputs per run, seeded (SQLENV_TEST_SEED replays).
 */
import { describe, expect, it } from 'vitest';
import { createRng, randomInt } from '../../src/data/rng.ts';
import { ModelConfigError, parseModelConfig, QWEN3_0_6B_CONFIG_JSON, validateModelConfig } from '../../src/model/config.ts';
import { checkModelFits, DEFAULT_MODEL_BUDGET_BYTES } from '../../src/model/model-budget.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';
import { classify, fuzzSeed, mutateConfig, pickOne, randomValue, tinyConfigJson } from './fuzz-support.ts';

const INPUTS = 600;
const seed = fuzzSeed('fuzz-config');

describe(`fuzz config.json (seed ${seed})`, () => {
  it(`${INPUTS} mutated configs load or throw a typed error naming the file and field`, () => {
    const rng = createRng(seed);
    const bases = [tinyConfigJson(), tinyConfigJson(tinyModelConfig({ architecture: 'qwen2', vocabSize: 64 })), { ...QWEN3_0_6B_CONFIG_JSON }];
    const outcomes = new Map<string, number>();
    for (let i = 0; i < INPUTS; i++) {
      const where = `seed ${seed}, case ${i}`;
      const json = mutateConfig(rng, pickOne(rng, bases));
      const generation = randomInt(rng, 4) === 0 ? { eos_token_id: randomValue(rng) } : undefined;
      let outcome = 'ok';
      try {
        const config = parseModelConfig(json, generation);
        const plan = checkModelFits(config);
        expect(() => validateModelConfig(config), where).not.toThrow();
        expect(plan.totalBytes, where).toBeLessThanOrEqual(DEFAULT_MODEL_BUDGET_BYTES);
      } catch (e) {
        outcome = classify(e, `${where}, input ${JSON.stringify(json)?.slice(0, 300)}`);
        if (e instanceof ModelConfigError) expect(e.message, where).toMatch(/^(config|generation_config)\.json field "/);
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    console.log(`fuzz-config: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    // The mutator must exercise both sides: some inputs load, most are refused.
    expect(outcomes.get('ok') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
    expect(outcomes.get('ModelConfigError') ?? 0, `seed ${seed}`).toBeGreaterThan(INPUTS / 4);
  });
});
