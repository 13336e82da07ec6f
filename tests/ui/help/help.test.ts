/**
 * The "How it works" figures and the glossary's tooltips (src/ui/help): the returns the page states are what the
 * environment really pays, the texts quote the environment's current weights and amounts, and every Train setting
 * has a tooltip.
 */
import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../../src/env/env.ts';
import { OPERATIONAL } from '../../../src/env/rewards.ts';
import { DEFAULT_ENV_CONFIG } from '../../../src/env/types.ts';
import { GLOSSARY, trainSettingHelp } from '../../../src/ui/help/glossary.ts';
import { helpFigures, numberText } from '../../../src/ui/help/help-figures.ts';
import { CHOICE_SETTINGS, NUMBER_SETTINGS, REWARD_LABELS, SWITCH_SETTINGS } from '../../../src/ui/train/config-fields.ts';
import { useTinyDataset } from '../../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();

/** The return of an episode on tiny-1 ("How many singers are there?"): `padding` DESCRIBEs, then the right answer. */
async function correctReturn(padding: number): Promise<number> {
  const env = new SqlEnv(tiny.dataset, tiny.executor, { queryTimeoutMs: 800 });
  await env.reset({ questionId: 'tiny-1' });
  for (let i = 0; i < padding; i++) await env.step(i % 2 === 0 ? 'DESCRIBE singer' : 'SAMPLE singer');
  const count = tiny.dataset.questions.find((q) => q.id === 'tiny-1')?.goldResult.rows[0][0];
  const last = await env.step(`ANSWER ${String(count)}`);
  expect(last.info.correct).toBe(true);
  return last.info.episodeReturn;
}

describe('helpFigures', () => {
  it('states the returns the environment pays for the fastest and the slowest correct episode', async () => {
    const f = helpFigures();
    expect(f.budget).toBe(DEFAULT_ENV_CONFIG.budget);
    expect(await correctReturn(0)).toBeCloseTo(f.bestCorrectReturn, 12);
    expect(await correctReturn(f.budget - 1)).toBeCloseTo(f.worstCorrectReturn, 12);
    expect(f.worstCorrectReturn).toBeGreaterThan(f.bestFailedReturn);
  });

  it('follows a changed configuration instead of fixed numbers', () => {
    const f = helpFigures({ ...DEFAULT_ENV_CONFIG, budget: 4, weights: { correctness: 3, progress: 0.5, operational: 2 } });
    expect(f.weights).toEqual({ correctness: 3, progress: 0.5, operational: 2 });
    expect(f.bestCorrectReturn).toBe(3);
    expect(f.worstCorrectReturn).toBeCloseTo(3 - 2 * f.stepCost * 3, 12);
    // v3: the best failure reads the answer in one step (Φ = 1) and then answers wrongly: 2 steps at 0.01 each.
    expect(f.bestFailedReturn).toBeCloseTo(0.5 - 2 * 0.01 * 2, 12);
  });

  it('writes numbers without float noise and with a true minus sign', () => {
    expect(numberText(0.1 + 0.2)).toBe('0.3');
    expect(numberText(-0.05)).toBe('−0.05');
    expect(numberText(1)).toBe('1');
  });
});

describe('glossary', () => {
  it('quotes the current weights and operational amounts', () => {
    const w = DEFAULT_ENV_CONFIG.weights;
    expect(GLOSSARY.reward).toContain(`${numberText(w.correctness)} × correctness + ${numberText(w.progress)} × progress + ${numberText(w.operational)} × operational`);
    expect(GLOSSARY.progress).toContain(`Weight ${numberText(w.progress)}`);
    for (const amount of [OPERATIONAL.step, OPERATIONAL.repeat, OPERATIONAL.error]) expect(GLOSSARY.operational).toContain(numberText(amount));
    expect(GLOSSARY.stepsLeft).toContain(`budget ${DEFAULT_ENV_CONFIG.budget}`);
  });

  it('has a tooltip for every Train setting, found by the label the form shows', () => {
    const labels = [...[...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS].map((s) => s.label), ...Object.values(REWARD_LABELS)];
    for (const label of labels) expect(trainSettingHelp(label), label).toMatch(/\w{4,}/);
    expect(new Set(labels.map(trainSettingHelp)).size, 'each setting has its own text').toBe(labels.length);
    expect(trainSettingHelp('No such setting')).toBeUndefined();
  });
});
