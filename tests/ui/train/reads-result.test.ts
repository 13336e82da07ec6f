/** The toy run's result in words (src/ui/train/reads-result.ts): figures as written by hand, and each verdict. */
import { describe, expect, it } from 'vitest';
import { readsDetailText, readsSuccessText, readsVerdict } from '../../../src/ui/train/reads-result.ts';
import type { ReadsResult } from '../../../src/workers/train-protocol.ts';

const measure = (success: number, copied = 0.5, answered = 0.9) => ({ success, copied, answered, episodes: 200 });
const result = (before: number, after: number): ReadsResult => ({ runSeed: 42, ceiling: 0.20666666, before: measure(before, 0.25, 0.8), after: measure(after, 0.5, 0.95) });

describe('the toy run result line', () => {
  it('says before, after and the ceiling to the digits shown', () => {
    expect(readsSuccessText(result(0.6, 0.655))).toBe('Fresh success: 0.600 before GRPO (the control) → 0.655 after; fixed-answer ceiling 0.2067.');
    expect(readsDetailText(result(0.6, 0.655))).toBe(
      'Answers that copy a value an observation showed: 0.250 → 0.500; episodes that answered: 0.800 → 0.950. Run seed 42, 200 fresh episodes (one sampled episode per question of databases no update saw).',
    );
  });

  it.each([
    [0.3, 0.5, /above the control and the ceiling/],
    [0.5, 0.5, /reads \(above the ceiling\), but GRPO did not add/],
    [0.6, 0.4, /reads \(above the ceiling\), but GRPO did not add/],
    [0.0, 0.1, /not above the ceiling/],
    [0.0, 0.2066, /not above the ceiling/],
  ])('control %s → after %s', (before, after, verdict) => {
    expect(readsVerdict(result(before, after))).toMatch(verdict);
  });
});
