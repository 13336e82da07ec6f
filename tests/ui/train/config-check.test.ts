/**
 * The Train form's checks (src/ui/train/config-check.ts, the one settings check of src/train/settings-check.ts):
 * every refusal names the setting at fault as a field (which the form marks) and starts with its label, the
 * defaults of both algorithms pass, and a stored form is completed with defaults (`completeConfig`,
 * src/ui/train/shared-settings.ts). The rules themselves are tested in tests/train/settings-check.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainConfig } from '../../../src/train/types.ts';
import { configProblem } from '../../../src/ui/train/config-check.ts';
import { groupHasFields, NUMBER_SETTINGS, settingLabel } from '../../../src/ui/train/config-fields.ts';
import { completeConfig } from '../../../src/ui/train/shared-settings.ts';

const grpo = (patch: Partial<TrainConfig>): TrainConfig => ({ ...DEFAULT_TRAIN_CONFIG, ...patch });

describe('configProblem', () => {
  it('accepts the defaults of GRPO and SFT', () => {
    expect(configProblem(DEFAULT_TRAIN_CONFIG)).toBeNull();
    expect(configProblem(DEFAULT_SFT_CONFIG)).toBeNull();
  });

  it.each<[string, Partial<TrainConfig>, string, RegExp]>([
    ['G of 1', { groupSize: 1 }, 'groupSize', /^Episodes per prompt \(G\) must be at least 2 for GRPO/],
    ['a fractional step count', { steps: 2.5 }, 'steps', /^Steps must be a whole number > 0, got 2.5/],
    ['a cleared field (NaN)', { maxTurns: Number.NaN }, 'maxTurns', /^Max turns must be .*got NaN/],
    ['a negative learning rate', { lr: -1 }, 'lr', /^Learning rate must be a finite number ≥ 0, got -1/],
    ['top-p of 0', { topP: 0 }, 'topP', /^Top-p must be in \(0, 1\]/],
    ['temperature 0 in GRPO', { temperature: 0 }, 'temperature', /^Temperature must be > 0 for GRPO/],
    ['clip ε low of 1', { clipEpsLow: 1 }, 'clipEpsLow', /^Clip ε low must be below 1/],
    ['warm-up steps negative', { warmupSteps: -1 }, 'warmupSteps', /^Warm-up steps must be a whole number ≥ 0/],
    ['Adam β2 of 1', { adamBeta2: 1 }, 'adamBeta2', /^Adam β2 must be in \[0, 1\), got 1/],
    ['Adam ε of 0', { adamEps: 0 }, 'adamEps', /^Adam ε must be > 0/],
    ['LoRA alpha of 0', { loraAlpha: 0 }, 'loraAlpha', /^LoRA alpha must be > 0/],
    ['no LoRA target', { loraTargets: [] }, 'loraTargets', /^LoRA targets need at least one projection/],
    ['a negative seed', { seed: -3 }, 'seed', /^Seed must be a whole number ≥ 0, got -3/],
  ])('refuses %s, naming the setting', (_, patch, field, message) => {
    const problem = configProblem(grpo(patch));
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(message);
  });

  it('refuses reward weights that make shaping worth as much as a correct answer, naming the correctness weight', () => {
    const problem = configProblem(grpo({ rewardWeights: { correctness: 0.1, progress: 1, operational: 1 } }));
    expect(problem?.field).toBe('rewardWeights.correctness');
    expect(problem?.message).toMatch(/^Correctness weight: .*Raise the correctness weight/);
  });

  it('names a negative reward weight', () => {
    const problem = configProblem(grpo({ rewardWeights: { correctness: 1, progress: -0.5, operational: 1 } }));
    expect(problem?.field).toBe('rewardWeights.progress');
    expect(problem?.message).toMatch(/^Progress weight must be a finite number ≥ 0, got -0.5/);
  });

  it('lets SFT keep G = 1 (only GRPO compares episodes of a prompt)', () => {
    expect(configProblem({ ...DEFAULT_SFT_CONFIG, groupSize: 1 })).toBeNull();
  });
});

describe('completeConfig', () => {
  it('fills missing and wrongly typed fields from the defaults, keeps the rest (NaN included)', () => {
    const stored = { steps: 7, lr: null, maxTurns: Number.NaN, rewardWeights: { correctness: 2 }, loraTargets: ['q_proj'] };
    const c = completeConfig(stored, DEFAULT_TRAIN_CONFIG);
    expect(c.steps).toBe(7);
    expect(c.lr).toBe(DEFAULT_TRAIN_CONFIG.lr);
    expect(c.maxTurns).toBeNaN();
    expect(c.rewardWeights).toEqual({ ...DEFAULT_TRAIN_CONFIG.rewardWeights, correctness: 2 });
    expect(c.loraTargets).toEqual(['q_proj']);
    expect(c.groupSize).toBe(DEFAULT_TRAIN_CONFIG.groupSize);
  });

  it('takes the algorithm from the defaults it completes with', () => {
    expect(completeConfig({ ...DEFAULT_TRAIN_CONFIG }, DEFAULT_SFT_CONFIG).algo).toBe('sft');
    expect(completeConfig(undefined, DEFAULT_SFT_CONFIG)).toEqual(DEFAULT_SFT_CONFIG);
  });
});

describe('the settings table', () => {
  it('covers every numeric setting of TrainConfig once, with a label', () => {
    const numeric = Object.entries(DEFAULT_TRAIN_CONFIG)
      .filter(([, v]) => typeof v === 'number')
      .map(([k]) => k)
      .sort();
    expect(NUMBER_SETTINGS.map((s) => s.key).sort()).toEqual(numeric);
    for (const key of numeric) expect(settingLabel(key)).not.toBe(key);
  });
});

describe('groupHasFields', () => {
  it('hides the sampling and loss group under SFT (every field in it is GRPO’s) and shows every group under GRPO', () => {
    expect(groupHasFields('loss', 'sft')).toBe(false);
    for (const group of ['essentials', 'loss', 'optimizer', 'batching', 'reporting'] as const) expect(groupHasFields(group, 'grpo')).toBe(true);
    for (const group of ['essentials', 'optimizer', 'batching', 'reporting'] as const) expect(groupHasFields(group, 'sft')).toBe(true);
  });
});
