/** Hash routes (src/ui/router.ts): the help page is a view of its own, and an unknown path falls back to Play. */
import { describe, expect, it } from 'vitest';
import { parseHash, routeHash } from '../../src/ui/router.ts';

describe('parseHash', () => {
  it('opens the How it works page at #/help', () => {
    expect(parseHash('#/help').view).toBe('help');
    expect(parseHash(routeHash('help')).view).toBe('help');
  });
  it('falls back to Play for an unknown view', () => {
    expect(parseHash('#/nowhere').view).toBe('play');
  });
});
