/**
 * The Train form's settings (src/ui/train/shared-settings.ts): a shared setting edited under one algorithm is the
 * other's too, an algorithm's own setting is not; every setting of TrainConfig is placed exactly once and agrees
 * with the form's table (a field shown for one algorithm only is that algorithm's own); reset touches the shared
 * settings and the chosen algorithm's own; a stored form of the old shape (one whole config per algorithm) is read
 * without losing an edit made under either algorithm, and a partial one is completed with defaults.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainAlgo, type TrainConfig } from '../../../src/train/types.ts';
import { NUMBER_SETTINGS, SWITCH_SETTINGS } from '../../../src/ui/train/config-fields.ts';
import {
  configFor,
  DEFAULT_TRAIN_SETTINGS,
  isShared,
  OWN_KEYS,
  patchSettings,
  readTrainSettings,
  resetSettings,
  SHARED_KEYS,
  withSettings,
  type TrainSettings,
} from '../../../src/ui/train/shared-settings.ts';

const ALGOS: TrainAlgo[] = ['sft', 'grpo'];
const other = (algo: TrainAlgo): TrainAlgo => (algo === 'sft' ? 'grpo' : 'sft');

describe('shared and per-algorithm settings', () => {
  it('places every setting once: shared, or the own setting of one or both algorithms', () => {
    const keys = Object.keys(DEFAULT_TRAIN_CONFIG).filter((k) => k !== 'algo');
    for (const key of keys) {
      const own = ALGOS.filter((a) => (OWN_KEYS[a] as readonly string[]).includes(key));
      expect(isShared(key as keyof TrainConfig) ? 1 : 0, key).toBe(own.length === 0 ? 1 : 0);
    }
    expect(new Set(SHARED_KEYS).size).toBe(SHARED_KEYS.length);
  });

  it('agrees with the form: a field shown for one algorithm is its own; a field shown for both is shared or kept by both', () => {
    for (const setting of [...NUMBER_SETTINGS, ...SWITCH_SETTINGS]) {
      if (setting.algo !== undefined) {
        expect(OWN_KEYS[setting.algo] as readonly string[], setting.key).toContain(setting.key);
        expect(isShared(setting.key), setting.key).toBe(false);
      } else if (!isShared(setting.key)) {
        for (const algo of ALGOS) expect(OWN_KEYS[algo] as readonly string[], setting.key).toContain(setting.key);
      }
    }
  });

  it('gives each algorithm its own defaults', () => {
    expect(configFor(DEFAULT_TRAIN_SETTINGS, 'grpo')).toEqual(DEFAULT_TRAIN_CONFIG);
    expect(configFor(DEFAULT_TRAIN_SETTINGS, 'sft')).toEqual(DEFAULT_SFT_CONFIG);
  });

  it.each<[string, TrainAlgo, Partial<TrainConfig>]>([
    ['max turns under GRPO', 'grpo', { maxTurns: 2 }],
    ['tokens per turn under SFT', 'sft', { maxNewTokensPerTurn: 7 }],
    ['the LoRA rank and targets under GRPO', 'grpo', { loraRank: 4, loraTargets: ['q_proj'] }],
    ['the evaluation sizes under SFT', 'sft', { evalEvery: 1, evalTrainSamples: 1, evalEvalSamples: 1 }],
    ['the reward weights under GRPO', 'grpo', { rewardWeights: { correctness: 2, progress: 0.1, operational: 0.5 } }],
    ['thinking under SFT', 'sft', { thinking: true }],
    ['the seed under SFT', 'sft', { seed: 9 }],
  ])('a shared setting (%s) is the same under the other algorithm', (_, algo, patch) => {
    const settings = patchSettings(DEFAULT_TRAIN_SETTINGS, algo, patch);
    expect(configFor(settings, algo)).toMatchObject(patch);
    expect(configFor(settings, other(algo))).toMatchObject(patch);
  });

  it.each<[string, TrainAlgo, Partial<TrainConfig>]>([
    ['steps under GRPO', 'grpo', { steps: 3 }],
    ['the learning rate under SFT', 'sft', { lr: 1e-3 }],
    ['G and prompts per step under GRPO', 'grpo', { groupSize: 8, promptsPerStep: 3 }],
    ['transcripts per step under SFT', 'sft', { sftExamplesPerStep: 1 }],
    ['the temperature under GRPO', 'grpo', { temperature: 0.7 }],
  ])('an algorithm’s own setting (%s) leaves the other algorithm’s value alone', (_, algo, patch) => {
    const settings = patchSettings(DEFAULT_TRAIN_SETTINGS, algo, patch);
    expect(configFor(settings, algo)).toMatchObject(patch);
    const before = configFor(DEFAULT_TRAIN_SETTINGS, other(algo));
    expect(configFor(settings, other(algo))).toEqual(before);
  });

  it('keeps both algorithms’ own values across switching back and forth', () => {
    let s = patchSettings(DEFAULT_TRAIN_SETTINGS, 'grpo', { steps: 3, maxTurns: 1 });
    s = patchSettings(s, 'sft', { steps: 1, maxTurns: 2 });
    expect(configFor(s, 'grpo')).toMatchObject({ steps: 3, maxTurns: 2 });
    expect(configFor(s, 'sft')).toMatchObject({ steps: 1, maxTurns: 2 });
  });

  it('resets the shared settings and the chosen algorithm’s own, not the other’s', () => {
    let s = patchSettings(DEFAULT_TRAIN_SETTINGS, 'grpo', { steps: 3, maxTurns: 1 });
    s = patchSettings(s, 'sft', { steps: 1 });
    s = resetSettings(s, 'sft');
    expect(configFor(s, 'sft')).toEqual(DEFAULT_SFT_CONFIG);
    expect(configFor(s, 'grpo')).toEqual({ ...DEFAULT_TRAIN_CONFIG, steps: 3 });
  });
});

describe('readTrainSettings', () => {
  it('reads the current shape, filling missing and wrongly typed fields from the defaults', () => {
    const stored = { shared: { maxTurns: 2, loraRank: 'big' }, own: { grpo: { steps: 3 } } } as unknown as TrainSettings;
    const s = readTrainSettings({ algo: 'grpo', settings: stored });
    expect(configFor(s, 'grpo')).toEqual({ ...DEFAULT_TRAIN_CONFIG, maxTurns: 2, steps: 3 });
    expect(configFor(s, 'sft')).toEqual({ ...DEFAULT_SFT_CONFIG, maxTurns: 2 });
  });

  it('gives the defaults for a form with no settings at all', () => {
    expect(readTrainSettings({ algo: 'sft' })).toEqual(DEFAULT_TRAIN_SETTINGS);
  });

  it('migrates the old shape: each algorithm keeps its own values; a shared edit under either one survives', () => {
    const configs = {
      // GRPO on screen: its edits of shared settings win where both edited one.
      grpo: { ...DEFAULT_TRAIN_CONFIG, steps: 3, groupSize: 2, maxTurns: 1, evalEvery: 2 },
      // SFT edited a shared setting GRPO left at its default, and one GRPO edited too.
      sft: { ...DEFAULT_SFT_CONFIG, steps: 1, sftExamplesPerStep: 1, loraRank: 2, evalEvery: 0 },
    };
    const s = readTrainSettings({ algo: 'grpo', configs });
    expect(configFor(s, 'grpo')).toEqual({ ...DEFAULT_TRAIN_CONFIG, steps: 3, groupSize: 2, maxTurns: 1, evalEvery: 2, loraRank: 2 });
    expect(configFor(s, 'sft')).toEqual({ ...DEFAULT_SFT_CONFIG, steps: 1, sftExamplesPerStep: 1, maxTurns: 1, evalEvery: 2, loraRank: 2 });
    // With SFT on screen, SFT's edit of a setting both edited wins.
    expect(configFor(readTrainSettings({ algo: 'sft', configs }), 'grpo').evalEvery).toBe(0);
  });

  it('migrates an old form whose configs lack fields or one algorithm', () => {
    const s = readTrainSettings({ algo: 'sft', configs: { sft: { steps: 4, maxTurns: 3 } } });
    expect(configFor(s, 'sft')).toEqual({ ...DEFAULT_SFT_CONFIG, steps: 4, maxTurns: 3 });
    expect(configFor(s, 'grpo')).toEqual({ ...DEFAULT_TRAIN_CONFIG, maxTurns: 3 });
  });

  it('drops the old shape once the settings are written', () => {
    const form = { algo: 'grpo' as const, configs: { grpo: DEFAULT_TRAIN_CONFIG }, adapterName: 'x' };
    const next = withSettings(form, DEFAULT_TRAIN_SETTINGS);
    expect(next).toEqual({ algo: 'grpo', settings: DEFAULT_TRAIN_SETTINGS, adapterName: 'x' });
    expect('configs' in next).toBe(false);
  });
});
