/**
 * The one settings check (src/train/settings-check.ts): each rule refuses exactly past its edge, naming the setting
 * as a field; the edges themselves pass; hostile shapes (a missing weight, an undefined number) are refused, not
 * thrown on; and the trainer's `validateTrainConfig` throws a `TrainConfigError` carrying the field. Expected fields
 * and edges are written here from the rules as the header states them, not read from the module.
 */
import { describe, expect, it } from 'vitest';
import { assertValidSettings, settingsProblems, TrainConfigError } from '../../src/train/settings-check.ts';
import { validateTrainConfig } from '../../src/train/trainer.ts';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG, type TrainConfig } from '../../src/train/types.ts';

const grpo = (patch: Partial<TrainConfig>): TrainConfig => ({ ...DEFAULT_TRAIN_CONFIG, ...patch });
const sft = (patch: Partial<TrainConfig>): TrainConfig => ({ ...DEFAULT_SFT_CONFIG, ...patch });
const fields = (c: TrainConfig): string[] => settingsProblems(c).map((p) => p.field);

describe('settingsProblems', () => {
  it('finds nothing wrong with either algorithm’s defaults', () => {
    expect(settingsProblems(DEFAULT_TRAIN_CONFIG)).toEqual([]);
    expect(settingsProblems(DEFAULT_SFT_CONFIG)).toEqual([]);
  });

  // [what, config, the one field refused]: one step past each edge.
  it.each<[string, TrainConfig, string]>([
    ['Adam β2 of 1 (the issue’s --adam-beta2 1)', grpo({ adamBeta2: 1 }), 'adamBeta2'],
    ['LoRA alpha of 0 (--lora-alpha 0)', grpo({ loraAlpha: 0 }), 'loraAlpha'],
    ['Adam ε of 0 (--adam-eps 0)', grpo({ adamEps: 0 }), 'adamEps'],
    ['a seed of -3 (--seed -3)', grpo({ seed: -3 }), 'seed'],
    ['a fractional seed', sft({ seed: 1.5 }), 'seed'],
    ['a seed past 2^53', sft({ seed: 2 ** 53 }), 'seed'],
    ['Adam β1 of 1', sft({ adamBeta1: 1 }), 'adamBeta1'],
    ['Adam β1 below 0', sft({ adamBeta1: -0.1 }), 'adamBeta1'],
    ['0 steps', sft({ steps: 0 }), 'steps'],
    ['a LoRA rank of 0', sft({ loraRank: 0 }), 'loraRank'],
    ['a fractional warm-up', sft({ warmupSteps: 0.5 }), 'warmupSteps'],
    ['an infinite learning rate', sft({ lr: Infinity }), 'lr'],
    ['a negative KL β', grpo({ klBeta: -1e-9 }), 'klBeta'],
    ['G = 1 under GRPO', grpo({ groupSize: 1 }), 'groupSize'],
    ['temperature 0 under GRPO', grpo({ temperature: 0 }), 'temperature'],
    ['top-p above 1', grpo({ topP: 1.01 }), 'topP'],
    ['clip ε low of 1', grpo({ clipEpsLow: 1 }), 'clipEpsLow'],
    ['an unknown loss type', grpo({ lossType: 'ppo' as TrainConfig['lossType'] }), 'lossType'],
    ['an unknown learning-rate schedule', sft({ lrSchedule: 'cosine' as TrainConfig['lrSchedule'] }), 'lrSchedule'],
    ['an unknown LoRA target', grpo({ loraTargets: ['q_proj', 'lm_head' as TrainConfig['loraTargets'][number]] }), 'loraTargets'],
    ['a negative operational weight', grpo({ rewardWeights: { correctness: 1, progress: 0.5, operational: -1 } }), 'rewardWeights.operational'],
    ['shaping worth a correct answer', grpo({ rewardWeights: { correctness: 0.5, progress: 0.5, operational: 0 } }), 'rewardWeights.correctness'],
  ])('refuses %s, naming that setting alone', (_, config, field) => {
    expect(fields(config)).toEqual([field]);
  });

  it.each<[string, TrainConfig]>([
    ['Adam betas of 0 and just below 1', grpo({ adamBeta1: 0, adamBeta2: 0.999999 })],
    ['top-p of 1 and a tiny one', grpo({ topP: 1e-6 })],
    ['clip ε low just below 1', grpo({ clipEpsLow: 0.999 })],
    ['a seed of 0 and the largest safe one', grpo({ seed: Number.MAX_SAFE_INTEGER })],
    ['the switch-offs at 0', grpo({ warmupSteps: 0, maxGradNorm: 0, klBeta: 0, evalEvery: 0, traceEvery: 0, checkpointEvery: 0, microBatchTokens: 0, evalTrainSamples: 0 })],
    ['SFT with G = 1 and temperature 0 (it samples nothing)', sft({ groupSize: 1, temperature: 0 })],
    ['a tiny Adam ε and LoRA alpha', grpo({ adamEps: 1e-300, loraAlpha: 1e-3 })],
  ])('accepts the edge: %s', (_, config) => {
    expect(settingsProblems(config)).toEqual([]);
  });

  it('names every fault, each under its own field, with its label first', () => {
    const problems = settingsProblems(grpo({ adamBeta2: 1, loraAlpha: 0, adamEps: 0, seed: -3 }));
    expect(problems.map((p) => p.field).sort()).toEqual(['adamBeta2', 'adamEps', 'loraAlpha', 'seed']);
    expect(problems.find((p) => p.field === 'adamBeta2')?.message).toMatch(/^Adam β2 must be in \[0, 1\), got 1\.$/);
    expect(problems.find((p) => p.field === 'loraAlpha')?.message).toMatch(/^LoRA alpha must be > 0\b.*got 0\.$/);
    expect(problems.find((p) => p.field === 'adamEps')?.message).toMatch(/^Adam ε must be > 0\b.*got 0\.$/);
    expect(problems.find((p) => p.field === 'seed')?.message).toMatch(/^Seed must be a whole number ≥ 0, got -3\.$/);
  });

  it('refuses a hostile config (missing weight, undefined numbers, no targets list) without throwing', () => {
    const hostile = { ...DEFAULT_TRAIN_CONFIG, lr: undefined, rewardWeights: { correctness: 1, progress: 0.5 }, loraTargets: undefined } as unknown as TrainConfig;
    expect(fields(hostile).sort()).toEqual(['loraTargets', 'lr', 'rewardWeights.operational']);
  });

  it('does not judge the reward rule on an invalid budget (max turns is the fault named)', () => {
    expect(fields(grpo({ maxTurns: 0 }))).toEqual(['maxTurns']);
  });
});

describe('the trainer’s check is the same check', () => {
  it('throws a TrainConfigError carrying the field, from validateTrainConfig and assertValidSettings alike', () => {
    for (const check of [validateTrainConfig, assertValidSettings]) {
      let thrown: unknown;
      try {
        check(grpo({ adamEps: 0 }));
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(TrainConfigError);
      expect((thrown as TrainConfigError).field).toBe('adamEps');
      expect((thrown as TrainConfigError).message).toMatch(/^Adam ε must be > 0/);
    }
    expect(() => validateTrainConfig(DEFAULT_TRAIN_CONFIG)).not.toThrow();
  });
});
