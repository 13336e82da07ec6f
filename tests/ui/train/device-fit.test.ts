/**
 * Do the settings fit this device (src/ui/train/device-fit.ts): on a software adapter, or when the time plan says
 * minutes, smaller settings are proposed with the reason; never a setting the algorithm does not use, never a
 * larger value; nothing on a GPU with a small model, or once the settings are small.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SFT_CONFIG, DEFAULT_TRAIN_CONFIG } from '../../../src/train/types.ts';
import { deviceFit, planSeconds, SMALL_SETTINGS, SOFTWARE_FLOPS } from '../../../src/ui/train/device-fit.ts';

const TINY = { layers: 2, hidden: 32, vocab: 151_936 };
const QWEN3_06B = { layers: 28, hidden: 1024, vocab: 151_936 };
const SWIFTSHADER = { name: 'google / swiftshader', software: true };
const GPU = { name: 'nvidia / ampere', software: false };

describe('deviceFit', () => {
  it('proposes smaller settings on SwiftShader with the default SFT settings, and says why', () => {
    const advice = deviceFit(DEFAULT_SFT_CONFIG, SWIFTSHADER, TINY);
    expect(advice).not.toBeNull();
    expect(advice!.reasons[0]).toContain('(google / swiftshader) is a software fallback');
    expect(advice!.reasons[1]).toMatch(/^With these settings the evaluation before step 1 would take about \d+ min and each step about \d+ (s|min) here\.$/);
    expect(advice!.evalSeconds).toBeGreaterThan(120); // the 27 minutes were mostly this evaluation
    expect(advice!.patch).toEqual({ evalTrainSamples: 2, evalEvalSamples: 2, maxTurns: 3, maxNewTokensPerTurn: 48, maxEpisodeTokens: 1024, sftExamplesPerStep: 2 });
  });

  it('never proposes a setting the algorithm does not use, nor a larger value', () => {
    const grpo = deviceFit({ ...DEFAULT_TRAIN_CONFIG, maxTurns: 1 }, SWIFTSHADER, TINY)!;
    expect(grpo.patch).not.toHaveProperty('sftExamplesPerStep');
    expect(grpo.patch).not.toHaveProperty('maxTurns');
    expect(grpo.patch).toMatchObject({ groupSize: 2, promptsPerStep: 1 });
    expect(deviceFit(DEFAULT_SFT_CONFIG, SWIFTSHADER, TINY)!.patch).not.toHaveProperty('groupSize');
  });

  it('is quiet on a GPU with a small model, and once the settings are small', () => {
    expect(deviceFit(DEFAULT_SFT_CONFIG, GPU, TINY)).toBeNull();
    expect(deviceFit({ ...DEFAULT_SFT_CONFIG, ...SMALL_SETTINGS }, SWIFTSHADER, TINY)?.patch ?? {}).toEqual({});
    expect(deviceFit(DEFAULT_SFT_CONFIG, SWIFTSHADER, null)).toBeNull();
  });

  it('proposes on a GPU too when the plan says a step takes minutes', () => {
    const slow = { ...DEFAULT_TRAIN_CONFIG, groupSize: 16, promptsPerStep: 8, maxEpisodeTokens: 4096, maxTurns: 10, maxNewTokensPerTurn: 512 };
    const advice = deviceFit(slow, GPU, QWEN3_06B);
    expect(advice?.stepSeconds).toBeGreaterThan(120);
    expect(advice?.reasons).toHaveLength(1);
  });

  it('plans time in proportion to the FLOPs per token', () => {
    const a = planSeconds(DEFAULT_SFT_CONFIG, TINY, SOFTWARE_FLOPS);
    const b = planSeconds(DEFAULT_SFT_CONFIG, TINY, SOFTWARE_FLOPS * 2);
    expect(b.evalSeconds * 2).toBeCloseTo(a.evalSeconds, 6);
    expect(planSeconds({ ...DEFAULT_SFT_CONFIG, evalEvery: 0 }, TINY, SOFTWARE_FLOPS).evalSeconds).toBe(0);
  });
});
