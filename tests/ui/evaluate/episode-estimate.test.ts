/**
 * Evaluate's figures for the episode in play (src/ui/evaluate/episode-estimate.ts): the bar moves with its steps and
 * tokens without reaching the next episode, and the bound on the time left uses the steps' pace, or the first step's
 * token rate.
 */
import { describe, expect, it } from 'vitest';
import { boundLeftMs, runFraction, stepBoundMs } from '../../../src/ui/evaluate/episode-estimate.ts';
import type { LiveStep } from '../../../src/ui/store/live-step.ts';

const live = (step: number, newTokens: number | null, times: Partial<LiveStep> = {}): LiveStep => ({
  step,
  budget: 10,
  turn: newTokens === null ? null : { promptTokens: 100, newTokens, maxNewTokens: 100 },
  startedAt: 0,
  firstTokenAt: null,
  updatedAt: 0,
  firstTokens: 0,
  ...times,
});

describe('runFraction', () => {
  it.each([
    [0, null, 0],
    [0, live(1, null), 0],
    [0, live(1, 50), 0.05],
    [0, live(3, 0), 0.2],
    [2, live(10, 100), 2.99],
  ])('%d done, %j → %d', (done, current, fraction) => expect(runFraction(done, current)).toBeCloseTo(fraction, 10));
});

describe('stepBoundMs and boundLeftMs', () => {
  it("takes the pace of the episode's steps played so far", () => {
    const current = live(3, null, { startedAt: 8000 });
    expect(stepBoundMs(current, 0)).toBe(4000);
    // 8 steps of this episode and 10 of one more, 4 s each, 1 s of the current step gone.
    expect(boundLeftMs(1, current, 0, 9000)).toBe(4000 * 18 - 1000);
  });

  it('during the first step, the prompt time and the token rate up to the limit', () => {
    const current = live(1, 11, { startedAt: 0, firstTokenAt: 2000, firstTokens: 1, updatedAt: 3000 }); // 10 tokens/s
    expect(stepBoundMs(current, 0)).toBe(2000 + 99 * 100);
    expect(stepBoundMs(live(1, 0), 0)).toBeNull();
    expect(boundLeftMs(0, live(1, 0), 0, 0)).toBeNull();
  });
});
