/**
 * What the first-visit card says of its example question (src/ui/play/first-visit.ts, exampleStatus): offered while
 * another episode (or none, or another dataset's) is on screen; "playing" only while the example's episode goes on;
 * once it has ended, solved / answered wrongly / out of steps — never "You are playing it now".
 */
import { describe, expect, it } from 'vitest';
import { EXAMPLE_STATUS_TEXT, exampleStatus, type EpisodeOnScreen } from '../../../src/ui/play/first-visit.ts';

const episode = (e: Partial<EpisodeOnScreen> & { id?: string }): EpisodeOnScreen => ({
  dataset: e.dataset ?? 'demo',
  question: { id: e.id ?? 'ex' },
  done: e.done ?? false,
  success: e.success ?? false,
  truncated: e.truncated ?? false,
});

describe('exampleStatus', () => {
  it.each<[string, EpisodeOnScreen | null, ReturnType<typeof exampleStatus>]>([
    ['no episode', null, 'offer'],
    ['another question', episode({ id: 'other' }), 'offer'],
    ['the same id in another dataset', episode({ dataset: 'spider' }), 'offer'],
    ['the example under way', episode({}), 'playing'],
    ['the example answered correctly', episode({ done: true, success: true }), 'solved'],
    ['the example answered wrongly', episode({ done: true }), 'missed'],
    ['the example out of steps', episode({ done: true, truncated: true }), 'out-of-steps'],
  ])('%s → %s', (_, e, status) => {
    expect(exampleStatus('ex', 'demo', e)).toBe(status);
  });

  it('never says "playing it now" of an episode that has ended', () => {
    for (const ended of [episode({ done: true, success: true }), episode({ done: true }), episode({ done: true, truncated: true })]) {
      const status = exampleStatus('ex', 'demo', ended);
      expect(status).not.toBe('playing');
      expect(status === 'offer' ? '' : EXAMPLE_STATUS_TEXT[status]).not.toMatch(/playing it now/);
    }
  });
});
