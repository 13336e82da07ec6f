/** The badge beside a transcript step (src/ui/components/step-badge.ts): an ANSWER says the verdict, never "ok". */
import { describe, expect, it } from 'vitest';
import type { ParsedAction } from '../../../src/env/actions.ts';
import type { StepOutcome } from '../../../src/env/types.ts';
import { stepBadge } from '../../../src/ui/components/step-badge.ts';

const step = (action: ParsedAction, outcome: StepOutcome, correctness = 0) => ({ action, outcome, components: { correctness, progress: 0, operational: 0 } });
const answer: ParsedAction = { type: 'ANSWER', value: '7' };

describe('stepBadge', () => {
  it.each([
    ['a wrong answer', step(answer, 'ok', 0), false, 'wrong'],
    ['a correct answer', step(answer, 'ok', 1), false, 'correct'],
    ['an answer in free play', step(answer, 'ok', 0), true, 'noted'],
    ['an answer the environment could not process', step(answer, 'error'), false, 'error'],
    ['a query', step({ type: 'QUERY', sql: 'SELECT 1' }, 'ok'), false, 'ok'],
    ['a repeated describe', step({ type: 'DESCRIBE', table: 't' }, 'repeat'), false, 'repeat'],
  ])('%s: %j', (_label, s, freePlay, text) => {
    const badge = stepBadge(s, freePlay);
    expect(badge.text).toBe(text);
    expect(badge.kind).toBe(text);
    expect(badge.title.length).toBeGreaterThan(0);
  });
});
