/**
 * A step as it runs, on the page (src/ui/store/live-step.ts): reports of one step keep its start, the decode rate
 * counts from the first token, and the text says what the step is doing.
 */
import { describe, expect, it } from 'vitest';
import { generatingText, liveStep, tokensPerSecond } from '../../../src/ui/store/live-step.ts';
import type { StepProgress } from '../../../src/workers/env-protocol.ts';

const report = (step: number, newTokens: number | null): StepProgress => ({ step, budget: 10, turn: newTokens === null ? null : { promptTokens: 300, newTokens, maxNewTokens: 64 } });

describe('liveStep', () => {
  it('keeps the step start across its reports, and starts afresh on the next step', () => {
    let live = liveStep(null, report(1, null), 1000);
    live = liveStep(live, report(1, 0), 1500);
    expect(generatingText(live)).toBe('Generating… reading the prompt (300 tokens)');
    live = liveStep(live, report(1, 1), 3000);
    expect(live).toMatchObject({ startedAt: 1000, firstTokenAt: 3000, firstTokens: 1, updatedAt: 3000 });
    expect(tokensPerSecond(live)).toBeNull();
    live = liveStep(live, report(1, 21), 5000);
    expect(tokensPerSecond(live)).toBe(10);
    expect(generatingText(live)).toBe('Generating… 21 tokens of at most 64 (10.0 tokens/s)');
    const next = liveStep(live, report(2, null), 6000);
    expect(next).toMatchObject({ step: 2, startedAt: 6000, firstTokenAt: null });
    expect(generatingText(next)).toBeNull();
  });

  it('a first report that already counts tokens (a throttled stream) starts the rate there', () => {
    const live = liveStep(liveStep(null, report(3, 5), 0), report(3, 25), 4000);
    expect(tokensPerSecond(live)).toBe(5);
    expect(generatingText(liveStep(null, report(3, 1), 0))).toBe('Generating… 1 token of at most 64');
  });
});
