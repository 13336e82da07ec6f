/**
 * The Train summary's words (src/ui/train/run-summary.ts): an SFT step's reward and success are named as the Oracle
 * demonstrations', a GRPO step's as the model's rollouts, and the model's own success comes from the last evaluation
 * (or says there is none yet).
 */
import { describe, expect, it } from 'vitest';
import type { StepMetrics } from '../../../src/train/types.ts';
import { modelEvaluationFigure, stepEpisodesFigure } from '../../../src/ui/train/run-summary.ts';

function step(algo: StepMetrics['algo']): StepMetrics {
  return {
    step: 1,
    algo,
    reward: { correctness: 1, progress: 1, operational: 0.02, total: 1.22 },
    loss: 2.5,
    successRate: 1,
    tokens: 100,
    generatedTokens: 20,
    tokensPerSecond: 10,
    seconds: { rollout: 1, update: 1, total: 2 },
    etaSeconds: 0,
    gpuBytes: null,
    gradNorm: 1,
    lr: 1e-4,
    microBatches: 1,
  };
}

describe('run summary', () => {
  it('names an SFT step’s figures as the Oracle demonstrations’, not the model’s', () => {
    expect(stepEpisodesFigure(step('sft'))).toMatchObject({ term: 'Oracle demonstrations (not the model)', value: 'reward 1.220 · success 100%' });
    expect(stepEpisodesFigure(step('sft')).hint).toMatch(/Oracle’s figures, not the model’s/);
  });

  it('names a GRPO step’s figures as the model’s sampled rollouts', () => {
    expect(stepEpisodesFigure(step('grpo'))).toMatchObject({ term: 'model’s sampled rollouts', value: 'reward 1.220 · success 100%' });
  });

  it('gives the model’s success from the last evaluation, n/a for an empty sample, or none yet', () => {
    expect(modelEvaluationFigure({ step: 1, trainSuccess: 0, evalSuccess: 0.5 })).toMatchObject({ term: 'model (last evaluation)', value: 'success train 0% · eval 50.0% (step 1)' });
    expect(modelEvaluationFigure({ step: 0, trainSuccess: 1, evalSuccess: Number.NaN }).value).toBe('success train 100% · eval n/a (step 0)');
    expect(modelEvaluationFigure(undefined).value).toBe('none yet');
  });
});
