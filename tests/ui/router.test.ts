/**
 * Hash routes (src/ui/router.ts): the help page is a view of its own, an unknown path falls back to Play, and a
 * replacing navigation never takes the person back to a view they have left.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { navigate, parseHash, routeHash } from '../../src/ui/router.ts';

describe('parseHash', () => {
  it('opens the How it works page at #/help', () => {
    expect(parseHash('#/help').view).toBe('help');
    expect(parseHash(routeHash('help')).view).toBe('help');
  });
  it('falls back to Play for an unknown view', () => {
    expect(parseHash('#/nowhere').view).toBe('play');
  });
});

describe('navigate', () => {
  /** A page whose address is `hash`: replaceState rewrites it, a hash assignment navigates. */
  function fakePage(hash: string) {
    const page = { hash, events: 0 };
    vi.stubGlobal('location', {
      get hash() {
        return page.hash;
      },
      set hash(h: string) {
        page.hash = h;
      },
    });
    vi.stubGlobal('history', { replaceState: (_s: unknown, _t: string, url: string) => (page.hash = url) });
    vi.stubGlobal('window', { dispatchEvent: () => page.events++ });
    vi.stubGlobal('HashChangeEvent', class extends Event {});
    return page;
  }
  afterEach(() => vi.unstubAllGlobals());

  it('replaces the state of the view on screen, and says so', () => {
    const page = fakePage('#/play?dataset=demo');
    navigate('play', { dataset: 'demo', q: 'demo-1', seed: 3 }, { replace: true });
    expect(page.hash).toBe('#/play?dataset=demo&q=demo-1&seed=3');
    expect(page.events).toBe(1);
  });

  it('does not replace another view: a late update of Play leaves the page the person went to', () => {
    const page = fakePage('#/help');
    navigate('play', { dataset: 'demo', q: 'demo-1', seed: 3 }, { replace: true });
    expect(page.hash).toBe('#/help');
    expect(page.events).toBe(0);
  });

  it('navigates to any view without replace', () => {
    const page = fakePage('#/help');
    navigate('watch', { policy: 'oracle' });
    expect(page.hash).toBe('#/watch?policy=oracle');
  });
});
