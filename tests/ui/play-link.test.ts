/**
 * The Play view's deep link: parsing, and the plan that keeps the link and the episode in step (src/ui/play/link.ts).
 * Each case is a situation a person can create: a reload, a typed link, the nav link, a button, the header picker.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_MEMO, episodeLink, linkKey, linkParams, parsePlayLink, parseSeed, planLinkSync, type EpisodeRef, type PlayLink, type SyncMemo } from '../../src/ui/play/link.ts';

const link = (dataset: string | null, q: string | null, seed: number | null): PlayLink => ({ dataset, q, seed });
const ep = (dataset: string, questionId: string, seed: number): EpisodeRef => ({ dataset, questionId, seed });
const memoOf = (l: PlayLink, switchedTo: string | null = null, awaiting: string | null = null): SyncMemo => ({ link: linkKey(l), switchedTo, awaiting });

describe('parseSeed', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    [' 7 ', 7],
    ['2147483647', 2147483647],
    ['2147483648', null],
    ['-1', null],
    ['1.5', null],
    ['1e3', null],
    ['abc', null],
    ['', null],
    [null, null],
  ])('%j → %j', (text, seed) => expect(parseSeed(text)).toBe(seed));
});

describe('parsePlayLink and linkParams', () => {
  it('reads dataset, question and seed', () => {
    expect(parsePlayLink(new URLSearchParams('dataset=demo&q=demo-library-001&seed=3'))).toEqual(link('demo', 'demo-library-001', 3));
  });
  it('treats empty and malformed values as absent', () => {
    expect(parsePlayLink(new URLSearchParams('dataset=&q=%20&seed=x'))).toEqual(link(null, null, null));
  });
  it('round-trips through route parameters', () => {
    const l = link('spider', 'dev-0042', 0);
    expect(parsePlayLink(new URLSearchParams(linkParams(l) as Record<string, string>))).toEqual(l);
    expect(linkParams(link('demo', null, null))).toEqual({ dataset: 'demo' });
  });
});

describe('planLinkSync', () => {
  const current = ep('demo', 'demo-library-001', 3);

  it('a reloaded deep link starts its question with its seed', () => {
    const l = link('demo', 'demo-shop-002', 9);
    expect(planLinkSync(l, 'demo', null, EMPTY_MEMO)).toEqual({ action: { kind: 'start', request: { dataset: 'demo', questionId: 'demo-shop-002', seed: 9 } }, memo: memoOf(l) });
  });

  it('waits while the shell applies the link dataset to the header', () => {
    expect(planLinkSync(link('spider', 'dev-0001', 1), 'demo', null, EMPTY_MEMO)).toEqual({ action: { kind: 'none' }, memo: EMPTY_MEMO });
  });

  it('a bare #/play with no episode starts a random one; with one, the URL returns to it', () => {
    expect(planLinkSync(link(null, null, null), 'demo', null, EMPTY_MEMO).action).toEqual({ kind: 'start', request: { dataset: 'demo' } });
    const plan = planLinkSync(link(null, null, null), 'demo', current, memoOf(episodeLink(current)));
    expect(plan).toEqual({ action: { kind: 'navigate', link: episodeLink(current) }, memo: memoOf(episodeLink(current)) });
  });

  it('a link with only a seed starts a seeded draw', () => {
    expect(planLinkSync(link('demo', null, 5), 'demo', null, EMPTY_MEMO).action).toEqual({ kind: 'start', request: { dataset: 'demo', seed: 5 } });
  });

  it('once the episode matches the link, nothing happens', () => {
    const l = episodeLink(current);
    expect(planLinkSync(l, 'demo', current, memoOf(l)).action).toEqual({ kind: 'none' });
    expect(planLinkSync(l, 'demo', current, EMPTY_MEMO)).toEqual({ action: { kind: 'none' }, memo: memoOf(l) });
  });

  it('a link without a seed keeps the episode, then gains its seed', () => {
    const l = link('demo', 'demo-library-001', null);
    const first = planLinkSync(l, 'demo', current, EMPTY_MEMO);
    expect(first.action).toEqual({ kind: 'none' });
    expect(planLinkSync(l, 'demo', current, first.memo).action).toEqual({ kind: 'navigate', link: episodeLink(current) });
  });

  it('an episode started by a button replaces the URL', () => {
    const old = link('demo', 'demo-library-001', 3);
    const next = ep('demo', 'demo-school-010', 77);
    expect(planLinkSync(old, 'demo', next, memoOf(old))).toEqual({ action: { kind: 'navigate', link: episodeLink(next) }, memo: memoOf(episodeLink(next)) });
  });

  it('a typed link for another question starts it, even with an episode in play', () => {
    const typed = link('demo', 'demo-shop-005', 1);
    expect(planLinkSync(typed, 'demo', current, memoOf(episodeLink(current))).action).toEqual({ kind: 'start', request: { dataset: 'demo', questionId: 'demo-shop-005', seed: 1 } });
  });

  it('a link that failed to start is not retried', () => {
    const bad = link('demo', 'no-such-question', 1);
    const first = planLinkSync(bad, 'demo', null, EMPTY_MEMO);
    expect(first.action.kind).toBe('start');
    expect(planLinkSync(bad, 'demo', null, first.memo).action).toEqual({ kind: 'none' });
    // With an older episode in play, the URL goes back to it.
    expect(planLinkSync(bad, 'demo', current, first.memo).action).toEqual({ kind: 'navigate', link: episodeLink(current) });
  });

  it('a dataset picked in the header gets a random episode, once', () => {
    const l = episodeLink(current);
    const plan = planLinkSync(l, 'spider', current, memoOf(l));
    expect(plan).toEqual({ action: { kind: 'start', request: { dataset: 'spider' } }, memo: memoOf(l, 'spider') });
    // Failed (no episode of spider): not retried.
    expect(planLinkSync(l, 'spider', current, plan.memo).action).toEqual({ kind: 'none' });
    // Succeeded: the URL follows the new episode.
    const next = ep('spider', 'dev-0100', 12);
    expect(planLinkSync(l, 'spider', next, plan.memo).action).toEqual({ kind: 'navigate', link: episodeLink(next) });
  });

  it('follows the switched-to episode even if the header was set back to the link dataset meanwhile', () => {
    const l = episodeLink(current);
    const next = ep('spider', 'dev-0100', 12);
    expect(planLinkSync(l, 'demo', next, memoOf(l, 'spider'))).toEqual({ action: { kind: 'navigate', link: episodeLink(next) }, memo: memoOf(episodeLink(next), null, 'spider') });
  });

  it('after writing a link of another dataset, waits for the header to show it instead of starting another episode', () => {
    const next = ep('spider', 'dev-0100', 12);
    const written = memoOf(episodeLink(next), null, 'spider');
    expect(planLinkSync(episodeLink(next), 'demo', next, written)).toEqual({ action: { kind: 'none' }, memo: written });
    expect(planLinkSync(episodeLink(next), 'spider', next, written)).toEqual({ action: { kind: 'none' }, memo: memoOf(episodeLink(next)) });
  });

  it('settles on the new dataset through the whole picker sequence, even when the shell sets the header back once', () => {
    // A little simulation of the view's effect, the shell's effect (which re-applies the link dataset whenever
    // the two differ), and the environment (which starts what it is asked).
    let url = episodeLink(current);
    let header = 'spider'; // the person picked spider
    let episode: EpisodeRef = current;
    let memo = memoOf(url);
    let episodes = 0;
    for (let tick = 0; tick < 12; tick++) {
      const plan = planLinkSync(url, header, episode, memo);
      memo = plan.memo;
      if (plan.action.kind === 'start') {
        episodes++;
        episode = ep(plan.action.request.dataset, `${plan.action.request.dataset}-q${episodes}`, episodes);
      } else if (plan.action.kind === 'navigate') url = plan.action.link;
      if (url.dataset !== null && url.dataset !== header) header = url.dataset; // the shell
    }
    expect(episodes).toBe(1);
    expect(episode.dataset).toBe('spider');
    expect(header).toBe('spider');
    expect(url).toEqual(episodeLink(episode));
  });
});

describe('free play has a link of its own', () => {
  const free = ep('my-zoo', 'free-play', 4);
  const freeRef: EpisodeRef = { ...free, free: true };
  const freeLink: PlayLink = { dataset: 'my-zoo', q: null, seed: null, free: true };

  it('`free=` is parsed apart from `dataset=` and written back as `free=`', () => {
    expect(parsePlayLink(new URLSearchParams('free=my-zoo&q=free-play&seed=4'))).toEqual({ dataset: 'my-zoo', q: 'free-play', seed: 4, free: true });
    expect(linkParams(episodeLink(freeRef))).toEqual({ free: 'my-zoo', q: 'free-play', seed: 4 });
    expect(linkParams(episodeLink(current()))).toEqual({ dataset: 'demo', q: 'demo-library-001', seed: 3 });
    expect(linkKey(freeLink)).not.toBe(linkKey(link('my-zoo', null, null)));
  });

  it('a free link starts its file (the view passes the link\'s dataset, not the header\'s)', () => {
    expect(planLinkSync(freeLink, 'my-zoo', current(), EMPTY_MEMO).action).toEqual({ kind: 'start', request: { dataset: 'my-zoo' } });
  });

  it('a free episode writes a free link, with nothing to wait for in the header', () => {
    const plan = planLinkSync(freeLink, 'my-zoo', freeRef, memoOf(freeLink));
    expect(plan.action).toEqual({ kind: 'navigate', link: { dataset: 'my-zoo', q: 'free-play', seed: 4, free: true } });
    expect(plan.memo.awaiting).toBeNull();
  });

  it('the bare nav link returns to a free-play episode instead of starting one of the header\'s dataset', () => {
    const plan = planLinkSync(link(null, null, null), 'demo', freeRef, memoOf(episodeLink(freeRef)));
    expect(plan.action).toEqual({ kind: 'navigate', link: episodeLink(freeRef) });
    expect(plan.memo.awaiting).toBeNull();
  });
});

function current(): EpisodeRef {
  return ep('demo', 'demo-library-001', 3);
}
